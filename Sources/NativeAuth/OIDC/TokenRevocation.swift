import Foundation

/// One token revocation request (RFC 7009 §2.1): the token and its type hint, in a form body,
/// authenticated like a token request.
/// A class: it never changes once built, and its fields are shared rather than copied.
final class TokenRevocationRequest: Sendable {
    /// The `token_type_hint` values of RFC 7009 §2.1.
    enum Hint: String, Sendable {
        case refreshToken = "refresh_token"
        case accessToken = "access_token"
    }

    let endpoint: URL
    let token: Secret
    let hint: Hint
    let clientId: String
    let correlationId: UUID?

    init(endpoint: URL, token: Secret, hint: Hint, clientId: String, correlationId: UUID?) {
        self.endpoint = endpoint
        self.token = token
        self.hint = hint
        self.clientId = clientId
        self.correlationId = correlationId
    }

    /// The form, before client authentication. Field names only may be logged.
    var form: FormBody {
        var form = FormBody()
        form.add("token", secret: token)
        form.add("token_type_hint", hint.rawValue)
        return form
    }

    /// Reads the revocation endpoint's answer.
    ///
    /// Any 2xx is success: RFC 7009 §2.2 answers 200 both for a revoked token and for one the
    /// provider did not know (which is as good as revoked), and the body is ignored.
    ///
    /// - Throws: the typed error of an OAuth error answer (``WebSignInError/isConfigurationError``
    ///   for `invalid_client`; ``WebSignInError/isServerError`` for `unsupported_token_type` and
    ///   the others), ``WebSignInError/isConfigurationError`` for a bare 401 (a provider that
    ///   refuses the client's authentication, or a public client, without a body),
    ///   ``WebSignInError/isServerError`` for 429 and 5xx, ``WebSignInError/isUnexpectedResponse``
    ///   for anything else (a redirect is never followed).
    static func check(_ response: HTTPResponse, correlationId: UUID?) throws(WebSignInError) {
        let status = response.statusCode
        if (200...299).contains(status) { return }
        if !response.body.isEmpty,
            let fields = (try? JSONValue.parse(response.body))?.objectValue.map(WireObject.init),
            let error = fields.string("error"), !error.isEmpty
        {
            throw WebSignInError.oauth(
                error: error, description: fields.string("error_description"), uri: fields.string("error_uri"),
                status: status, correlationId: correlationId)
        }
        switch status {
        case 401, 403:
            throw WebSignInError(
                .configuration,
                note: "The provider refused the client at the revocation endpoint (HTTP \(status)); "
                    + "it may need client authentication.",
                httpStatusCode: status, correlationId: correlationId)
        case 429, 500...599:
            throw WebSignInError(.server, httpStatusCode: status, correlationId: correlationId)
        default:
            throw WebSignInError(
                .unexpectedResponse,
                note: (300...399).contains(status)
                    ? "The revocation endpoint redirected (never followed)." : "The error answer has no 'error'.",
                httpStatusCode: status, correlationId: correlationId)
        }
    }
}

extension WebTokenClient {
    /// Revokes `request.token` at the revocation endpoint, authenticated as this client's
    /// configuration says; with a DPoP proof of `dpop`'s key when the token is bound to one (RFC
    /// 9449 defines no proof for revocation; servers that bind refresh tokens may ask for one,
    /// and one that does not ignores the header).
    func revoke(_ request: TokenRevocationRequest, dpop: DPoPSigner? = nil) async throws(WebSignInError) {
        if EndpointPolicy.problem(with: request.endpoint, field: "revocation_endpoint") != nil {
            throw .invalidParameters(
                "The revocation endpoint must be https (http for loopback hosts only).",
                correlationId: request.correlationId)
        }
        log(
            .debug, "token revocation",
            ["hint": request.hint.rawValue, "authentication": authentication.methodName],
            correlationId: request.correlationId)
        let httpRequest = try await authentication.request(
            url: request.endpoint, form: request.form, clientId: request.clientId, correlationId: request.correlationId,
            context: assertion)
        let response = try await WebHTTP.send(
            httpRequest, to: .revocation, through: pipeline, correlationId: request.correlationId,
            failures: .revocation, dpop: dpop,
            renewBody: authentication.renewal(
                url: request.endpoint, form: request.form, clientId: request.clientId,
                correlationId: request.correlationId, context: assertion))
        do {
            try TokenRevocationRequest.check(response, correlationId: request.correlationId)
        } catch {
            log(
                .debug, "token revocation refused",
                ["status": "\(response.statusCode)", "error": error.serverError.map { String($0.prefix(80)) } ?? ""],
                correlationId: request.correlationId)
            throw error
        }
    }
}
