import Foundation

/// Whether a ``WebAuthClient`` pushes its authorization requests (OAuth 2.0 Pushed Authorization
/// Requests, RFC 9126) before it opens the browser.
///
/// A pushed request sends every parameter of the sign-in (PKCE challenge, `state`, `nonce`,
/// scopes, redirect URI, login hint, extra parameters) to the provider's
/// `pushed_authorization_request_endpoint` in a form POST, authenticated as the client
/// authenticates at the token endpoint (``WebClientAuthentication``), and the browser is then
/// opened with only `client_id` and the `request_uri` the provider answered. The parameters never
/// appear in the browser's address bar, history or logs, nobody on the way can change them, and
/// the provider refuses a wrong redirect URI or client before the user sees a page.
///
/// ```swift
/// var configuration = WebAuthConfiguration()
/// configuration.pushedAuthorizationRequests = .required
/// ```
///
/// The default is ``whenAvailable``, as in ASP.NET Core's OpenID Connect handler, OpenIddict's
/// client and okta-mobile-swift: a provider that publishes the endpoint gets pushed requests, one
/// that does not gets the parameters in the URL. A provider whose metadata says `require_pushed_authorization_requests`
/// (RFC 9126 §5) accepts nothing else: ``whenAvailable`` and ``required`` push there, and
/// ``never`` fails before the browser opens (``WebSignInError/isUnsupported``) instead of showing
/// the user the provider's refusal. Where the policy and the provider cannot agree, the sign-in
/// fails with ``WebSignInError/isUnsupported`` and nothing but discovery is sent.
@nonexhaustive
public enum PushedAuthorizationRequestPolicy: Sendable, Equatable, CustomStringConvertible {
    /// Never pushes: the parameters go in the authorization URL. Against a provider that requires
    /// pushed requests, a sign-in fails with ``WebSignInError/isUnsupported`` and sends nothing
    /// more than discovery.
    case never
    /// Pushes when the provider's metadata names a `pushed_authorization_request_endpoint`;
    /// otherwise the parameters go in the authorization URL. The default.
    case whenAvailable
    /// Always pushes. A provider whose metadata names no `pushed_authorization_request_endpoint`
    /// fails the sign-in with ``WebSignInError/isUnsupported``, and nothing is sent to it beyond
    /// discovery.
    case required

    /// The policy's name: `never`, `whenAvailable` or `required`.
    public var description: String {
        switch self {
        case .never: "never"
        case .whenAvailable: "whenAvailable"
        case .required: "required"
        }
    }
}

extension PushedAuthorizationRequestPolicy {
    /// Where to push a request to `metadata`'s provider; `nil` to put the parameters in the URL.
    ///
    /// - Throws: ``WebSignInError/isUnsupported`` for ``never`` against a provider that requires
    ///   pushed requests, and when the request must be pushed (``required``, or a provider that
    ///   requires it) and the metadata names no endpoint.
    func endpoint(for metadata: ProviderMetadata, correlationId: UUID?) throws(WebSignInError) -> URL? {
        let required = metadata.requirePushedAuthorizationRequests
        switch self {
        case .never:
            guard !required else {
                throw WebSignInError(
                    .unsupported,
                    note: "The provider takes only pushed authorization requests "
                        + "(require_pushed_authorization_requests), and the configuration says never to push.",
                    correlationId: correlationId)
            }
            return nil
        case .whenAvailable, .required:
            if let endpoint = metadata.pushedAuthorizationRequestEndpoint { return endpoint }
            guard self == .required || required else { return nil }
            throw WebSignInError(
                .unsupported,
                note: required
                    ? "The provider requires pushed authorization requests but names no "
                        + "pushed_authorization_request_endpoint."
                    : "Pushed authorization requests are required, and the provider names no "
                        + "pushed_authorization_request_endpoint.",
                correlationId: correlationId)
        }
    }
}
