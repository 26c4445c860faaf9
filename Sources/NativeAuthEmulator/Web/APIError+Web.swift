/// The errors of the browser endpoints, with the codes and messages Entra gives them.
extension APIError {
    /// Entra's AADSTS900144.
    static func webMissingParameter(_ name: String) -> APIError {
        APIError(
            "invalid_request", code: 900144,
            "The request body must contain the following parameter: '\(name)'.")
    }

    static func unregisteredRedirectURI(_ uri: String, clientId: String) -> APIError {
        APIError(
            "invalid_request", code: 50011,
            "The redirect URI '\(uri)' specified in the request does not match the redirect URIs configured for "
                + "the application '\(clientId)'.")
    }

    static func unsupportedResponseType(_ value: String) -> APIError {
        APIError(
            "unsupported_response_type", code: 700054,
            "response_type '\(value)' is not enabled for the application.")
    }

    static func unsupportedResponseMode(_ value: String) -> APIError {
        APIError("invalid_request", code: 90100, "The response_mode '\(value)' is not supported.")
    }

    static let pkceRequired = APIError(
        "invalid_request", code: 9002325, "Proof Key for Code Exchange is required: send code_challenge.")

    static let invalidCodeChallengeMethod = APIError(
        "invalid_request", code: 50149, "Invalid Code_Challenge_method parameter: only S256 is accepted.")

    static let invalidCodeChallengeSize = APIError(
        "invalid_request", code: 501491, "Invalid size of Code_Challenge parameter.")

    static let loginRequired = APIError(
        "login_required", code: 50058, "A silent sign-in request was sent but no user is signed in.")

    /// Entra names no code for a user who cancels the sign-in page.
    static let signInCancelled: APIError = {
        var error = APIError("access_denied", code: 0, "The user canceled the sign-in.")
        error.codes = []
        return error
    }()

    static let signInPageExpired = APIError(
        "invalid_request", code: 50089, "Flow token expired: the sign-in page is no longer valid. Start again.")

    static let invalidAuthorizationCode = APIError(
        "invalid_grant", code: 70000, "The provided value for the 'code' parameter is not valid.")

    static let authorizationCodeRedeemed = APIError(
        "invalid_grant", code: 54005,
        "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing "
            + "refresh token.")

    static let expiredAuthorizationCode = APIError(
        "invalid_grant", code: 70008,
        "The provided authorization code or refresh token has expired due to inactivity. Send a new interactive "
            + "authorization request for this user and resource.")

    static func redirectURIMismatch(_ given: String, issued: String) -> APIError {
        APIError(
            "invalid_grant", code: 50011,
            "The reply address '\(given)' does not match the reply address '\(issued)' provided when requesting "
                + "Authorization code.")
    }

    static let codeVerifierMismatch = APIError(
        "invalid_grant", code: 501481,
        "The Code_Verifier does not match the code_challenge supplied in the authorization request.")

    // MARK: Pushed authorization requests (RFC 9126): Entra has none, so these carry no AADSTS code.

    /// An error of the emulator's own, with no code.
    private static func uncoded(_ error: String, _ message: String) -> APIError {
        var uncoded = APIError(error, code: 0, message)
        uncoded.codes = []
        return uncoded
    }

    /// RFC 9101 §6.2, RFC 9126 §4.
    static func invalidRequestURI(_ reason: String) -> APIError {
        uncoded("invalid_request_uri", "The request_uri is not valid: \(reason). Push the request again.")
    }

    /// RFC 9126 §2.1: a pushed request cannot itself refer to another.
    static let requestURIPushed = uncoded(
        "invalid_request", "The request_uri parameter must not be sent to the pushed authorization request endpoint.")

    /// RFC 9126 §4: the tenant takes only pushed requests.
    static let pushedAuthorizationRequired = uncoded(
        "invalid_request",
        "Pushed authorization requests are required: push the parameters to the pushed authorization request "
            + "endpoint and send only client_id and request_uri here.")

    /// This error answered with `status`.
    func with(status: Int) -> APIError {
        var copy = self
        copy.status = status
        return copy
    }
}
