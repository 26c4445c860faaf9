import Foundation

/// The authorization response, read from the callback URL the browser was redirected to.
///
/// Only the query is read (`response_mode=query`, the default for `response_type=code`); a
/// response in the fragment is refused. Checks, in order:
/// 1. the URL is the redirect URI (scheme, host, port and path), else ``WebSignInError/isInvalidCallback``;
/// 2. no response parameter appears twice (RFC 6749 §3.1), else ``WebSignInError/isInvalidCallback``;
/// 3. `state` equals the one sent, compared in constant time, else ``WebSignInError/isStateMismatch``;
///    for a request that sent none (one a provider made from a first-party sign-in, answered
///    `redirect_to_web` with a `request_uri`), the callback must carry none either;
/// 4. `iss` (RFC 9207) equals the issuer when present, and is present when the provider announces
///    it, else ``WebSignInError/isIssuerMismatch``;
/// 5. an `error` becomes its typed error with `error_description` and `error_uri` kept
///    (``WebSignInError/isAccessDenied``, ``WebSignInError/isInteractionRequired``, …);
/// 6. `code` is present, else ``WebSignInError/isInvalidCallback``.
struct AuthorizationCallback: Sendable, Equatable {
    let code: Secret
    /// The `iss` the provider sent, if any (already checked).
    let issuer: String?

    init(
        url: URL, redirectURI: URL, expectedState: Secret?, expectedIssuer: String, issuerRequired: Bool,
        correlationId: UUID?
    ) throws(WebSignInError) {
        let (values, fragment) = try Self.response(
            url, redirectURI: redirectURI, names: ["state", "code", "iss", "error", "error_description", "error_uri"],
            notURL: "The callback is not a URL.", notRedirectURI: "The callback is not the redirect URI.",
            correlationId: correlationId)
        if Self.parameters(fragment).contains(where: { ["code", "error", "state"].contains($0.name) }) {
            throw WebSignInError(
                .invalidCallback, note: "The response came in the fragment; only response_mode=query is supported.",
                correlationId: correlationId)
        }

        if let expectedState {
            guard let state = values["state"], OAuthRandom.constantTimeEqual(state, expectedState.reveal) else {
                throw WebSignInError(.stateMismatch, correlationId: correlationId)
            }
        } else if values["state"] != nil {
            throw WebSignInError(
                .stateMismatch, note: "The request sent no state, and the response has one.",
                correlationId: correlationId)
        }
        if let issuer = values["iss"] {
            guard issuer == expectedIssuer else {
                throw WebSignInError(
                    .issuerMismatch, note: "The response names another issuer.", correlationId: correlationId)
            }
        } else if issuerRequired {
            throw WebSignInError(
                .issuerMismatch, note: "The provider announces 'iss' in responses, and this one has none.",
                correlationId: correlationId)
        }
        if let error = values["error"] {
            throw WebSignInError.oauth(
                error: error, description: values["error_description"], uri: values["error_uri"], status: nil,
                correlationId: correlationId)
        }
        guard let code = values["code"], !code.isEmpty else {
            throw WebSignInError(.missingCode, correlationId: correlationId)
        }
        self.code = Secret(code)
        issuer = values["iss"]
    }

    /// The parameters `names` of the response at `url`, each at most once, after checking that
    /// `url` is `redirectURI`; and the fragment, when the query holds no parameter at all. Shared
    /// by the authorization and the end-session callbacks, which differ in their notes only: not
    /// inlined, so that the two share one copy.
    ///
    /// - Throws: ``WebSignInError/isInvalidCallback`` with `notURL` or `notRedirectURI` as its
    ///   note, or when a parameter appears more than once.
    @inline(never)
    static func response(
        _ url: URL, redirectURI: URL, names: [String], notURL: String, notRedirectURI: String, correlationId: UUID?
    ) throws(WebSignInError) -> (values: [String: String], fragment: String?) {
        func invalid(_ note: String) -> WebSignInError {
            WebSignInError(.invalidCallback, note: note, correlationId: correlationId)
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let expected = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        else { throw invalid(notURL) }
        guard sameEndpoint(components, expected) else { throw invalid(notRedirectURI) }
        let parameters = parameters(components.percentEncodedQuery)
        var values: [String: String] = [:]
        for name in names {
            let found = parameters.filter { $0.name == name }
            if found.count > 1 { throw invalid("The parameter '\(name)' appears more than once.") }
            values[name] = found.first?.value
        }
        return (values, parameters.isEmpty ? components.percentEncodedFragment : nil)
    }

    /// Scheme and host compared case-insensitively, port and path exactly.
    static func sameEndpoint(_ lhs: URLComponents, _ rhs: URLComponents) -> Bool {
        lhs.scheme?.lowercased() == rhs.scheme?.lowercased() && lhs.host?.lowercased() == rhs.host?.lowercased()
            && lhs.port == rhs.port && lhs.percentEncodedPath == rhs.percentEncodedPath
    }

    /// `application/x-www-form-urlencoded` pairs: `+` is a space, then percent-decoding.
    static func parameters(_ encoded: String?) -> [(name: String, value: String)] {
        guard let encoded, !encoded.isEmpty else { return [] }
        return encoded.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}
