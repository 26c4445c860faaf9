import Foundation

/// One RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0 §2): the URL of the
/// provider's `end_session_endpoint` to show in the browser, and the `state` its redirect back
/// must carry.
/// A class: it never changes once built, and its fields are shared rather than copied.
final class EndSessionRequest: Sendable {
    let url: URL
    let postLogoutRedirectURI: URL
    let state: Secret
    let correlationId: UUID

    /// Builds the request: `id_token_hint` (when there is an ID token), `client_id`,
    /// `post_logout_redirect_uri`, `state`, and the correlation id as `client-request-id`. A query
    /// the endpoint already has is kept.
    ///
    /// - Throws: ``WebSignInError/isInvalidParameters`` when the endpoint is not https (http on a
    ///   loopback host only) or the redirect URI is not absolute or has a fragment.
    init(
        endpoint: URL, idTokenHint: String?, clientId: String, postLogoutRedirectURI: URL, state: Secret,
        correlationId: UUID
    ) throws(WebSignInError) {
        if EndpointPolicy.problem(with: endpoint, field: "end_session_endpoint") != nil {
            throw .invalidParameters(
                "The end-session endpoint must be https (http for loopback hosts only).", correlationId: correlationId)
        }
        do {
            try AuthorizationRequest.check(clientId: clientId, redirectURI: postLogoutRedirectURI)
        } catch {
            throw .invalidParameters(
                "The post-logout redirect URI must be an absolute URI without a fragment.",
                correlationId: correlationId)
        }
        var query: [(String, String)] = []
        if let idTokenHint, !idTokenHint.isEmpty { query.append(("id_token_hint", idTokenHint)) }
        query.append(("client_id", clientId))
        query.append(("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString))
        query.append(("state", state.reveal))
        query.append(("client-request-id", correlationId.uuidString.lowercased()))
        guard let url = AuthorizationRequest.url(endpoint, adding: query) else {
            throw .invalidParameters("The end-session URL could not be built.", correlationId: correlationId)
        }
        self.url = url
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.state = state
        self.correlationId = correlationId
    }

    /// Checks the URL the browser came back to: the post-logout redirect URI (scheme, host, port
    /// and path), `state` once and equal to the one sent (compared in constant time; a missing one
    /// is a mismatch, RFC 6749 §10.12 and RP-Initiated Logout §3), and no `error`.
    ///
    /// - Throws: ``WebSignInError/isInvalidCallback``, ``WebSignInError/isStateMismatch``, or the
    ///   typed error of an `error` the provider sent back.
    func check(callback url: URL) throws(WebSignInError) {
        let values = try AuthorizationCallback.response(
            url, redirectURI: postLogoutRedirectURI, names: ["state", "error", "error_description", "error_uri"],
            notURL: "The end-session callback is not a URL.",
            notRedirectURI: "The end-session callback is not the post-logout redirect URI.",
            correlationId: correlationId
        ).values
        guard let state = values["state"], OAuthRandom.constantTimeEqual(state, self.state.reveal) else {
            throw WebSignInError(
                .stateMismatch, note: "The end-session response's state is not the one sent.",
                correlationId: correlationId)
        }
        if let error = values["error"] {
            throw WebSignInError.oauth(
                error: error, description: values["error_description"], uri: values["error_uri"], status: nil,
                correlationId: correlationId)
        }
    }
}

extension EndSessionRequest: CustomStringConvertible, CustomReflectable {
    /// Shows the description only: the URL carries the ID token and the state.
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// The endpoint; never the ID token or the state.
    var description: String { "EndSessionRequest(endpoint: \(url.scheme ?? "")://\(url.host ?? "")\(url.path))" }
}
