import Foundation

/// One pushed authorization request (RFC 9126 §2.1): every parameter of an
/// ``AuthorizationRequest`` (PKCE challenge, `state`, `nonce`, scopes, redirect URI, login hint,
/// extra parameters, …) in a form POST to the provider's `pushed_authorization_request_endpoint`,
/// authenticated as the client authenticates at the token endpoint.
///
/// The form keeps `client_id` whatever the authentication: it is a parameter of the authorization
/// request, which a pushed request carries whole (RFC 9126 §2.1 and its example send it beside an
/// HTTP Basic header). `client-request-id` goes as a header only.
/// A class: it never changes once built, and its fields are shared rather than copied.
final class PushedAuthorizationRequest: Sendable {
    let endpoint: URL
    let request: AuthorizationRequest
    let authentication: WebClientAuthentication
    /// The provider's audiences and clock, for `private_key_jwt`'s assertion.
    let assertion: ClientAssertionContext

    init(
        endpoint: URL, request: AuthorizationRequest, authentication: WebClientAuthentication,
        assertion: ClientAssertionContext = ClientAssertionContext()
    ) {
        self.endpoint = endpoint
        self.request = request
        self.authentication = authentication
        self.assertion = assertion
    }

    /// The form body: the request's parameters, plus `client_secret` for the post method, or
    /// `client_assertion_type` and no assertion for `private_key_jwt`. Field names only may be
    /// logged (``FormBody/names``).
    var form: FormBody { form(assertion: nil) }

    /// The form body with `assertion`, the client assertion of `private_key_jwt` (RFC 7523 §2.2,
    /// which RFC 9126 §2 takes for the pushed request as for the token endpoint).
    func form(assertion: Secret?) -> FormBody {
        var form = FormBody()
        for field in request.parameters.fields where !WebClientAuthentication.credentialFields.contains(field.name) {
            form.add(field.name, field.value)
        }
        switch authentication {
        case .clientSecretPost(let secret):
            form.add("client_secret", secret: Secret(secret))
        case .privateKeyJWT:
            form.add("client_assertion_type", ClientAssertion.type)
            form.add("client_assertion", secret: assertion)
        case .none, .clientSecretBasic:
            break
        }
        return form
    }

    var httpRequest: HTTPRequest { httpRequest(assertion: nil) }

    func httpRequest(assertion: Secret?) -> HTTPRequest {
        var headers = WebHTTP.headers(correlationId: request.correlationId, form: true)
        if let authorization = authentication.authorizationHeader(clientId: request.clientId) {
            headers["Authorization"] = authorization.reveal
        }
        return HTTPRequest(method: "POST", url: endpoint, headers: headers, body: form(assertion: assertion).encoded)
    }

    /// Pushes the request and reads the answer. Stores nothing.
    ///
    /// - Throws: ``WebSignInError/isInvalidParameters`` for an endpoint that is not `https` (nothing
    ///   sent), ``WebSignInError/isNetworkError`` (naming ``RequestEndpoint/pushedAuthorizationRequest``),
    ///   ``WebSignInError/isUnexpectedResponse`` for an answer over 1 MiB, ``WebSignInError/isCancelled``,
    ///   or what ``PushedAuthorizationAnswer/init(_:correlationId:)`` throws.
    func send(through pipeline: RequestPipeline) async throws(WebSignInError) -> PushedAuthorizationAnswer {
        let correlationId = request.correlationId
        if EndpointPolicy.problem(with: endpoint, field: "pushed_authorization_request_endpoint") != nil {
            throw .invalidParameters(
                "The pushed authorization request endpoint must be https (http for loopback hosts only).",
                correlationId: correlationId)
        }
        let log = pipeline.log
        let signed = try await authentication.assertion(
            for: endpoint, clientId: request.clientId, context: assertion, correlationId: correlationId)
        log(
            .debug, "pushed authorization request",
            [
                "fields": form(assertion: signed).names.joined(separator: ","),
                "authentication": authentication.methodName,
            ],
            correlationId: correlationId)
        let response: HTTPResponse
        do {
            response = try await WebHTTP.send(
                httpRequest(assertion: signed), to: .pushedAuthorizationRequest, through: pipeline,
                correlationId: correlationId)
        } catch {
            throw error.isCancelled ? error : error.noting(PushedAuthorizationAnswer.refused)
        }
        do {
            let answer = try PushedAuthorizationAnswer(response, correlationId: correlationId)
            log(
                .debug, "authorization request pushed", ["expires_in": "\(answer.expiresIn)"],
                correlationId: correlationId)
            return answer
        } catch {
            log(
                .debug, "pushed authorization request refused",
                ["status": "\(response.statusCode)", "error": error.serverError.map { String($0.prefix(80)) } ?? ""],
                correlationId: correlationId)
            throw error
        }
    }
}

/// A successful pushed authorization answer (RFC 9126 §2.2), parsed.
struct PushedAuthorizationAnswer: Sendable, Equatable {
    /// The reference the browser is sent with. Any non-empty string: RFC 9126 leaves its form to
    /// the provider (`urn:ietf:params:oauth:request_uri:…` is only a suggestion). Single-use, and
    /// not a secret: it is bound to the client and useless without the user's sign-in.
    let requestURI: String
    /// Seconds the `request_uri` lives; always more than zero.
    let expiresIn: Int

    /// Parses the pushed authorization request endpoint's answer.
    ///
    /// Any 2xx is read (RFC 9126 §2.2 answers 201; some providers answer 200). Errors (RFC 9126
    /// §2.3): an OAuth error answer becomes its typed error (``WebSignInError/isConfigurationError``
    /// for `invalid_client` or `unauthorized_client`, ``WebSignInError/isServerError`` with
    /// ``WebSignInError/serverError`` for `invalid_request` and the others); a bare 401 or 403 is
    /// ``WebSignInError/isConfigurationError`` (the provider refused the client or the request
    /// without saying why; glewlwyd answers every refusal so); 429 and 5xx are
    /// ``WebSignInError/isServerError``; anything else, a redirect (never followed), an answer that
    /// is not a JSON object, one without a non-empty `request_uri` string or without a positive
    /// whole `expires_in`, is ``WebSignInError/isUnexpectedResponse``. Every one says, in its
    /// description, that the pushed request failed.
    init(_ response: HTTPResponse, correlationId: UUID?) throws(WebSignInError) {
        let status = response.statusCode
        func unexpected(_ note: String) -> WebSignInError {
            WebSignInError(
                .unexpectedResponse, note: Self.refused + " " + note, httpStatusCode: status,
                correlationId: correlationId)
        }
        let members = try WebHTTP.object(
            of: response, from: "endpoint", refusal: "The provider refused the client or the request.",
            prefix: Self.refused, correlationId: correlationId)
        guard let requestURI = members["request_uri"]?.stringValue, !requestURI.isEmpty else {
            throw unexpected("The answer has no 'request_uri' string.")
        }
        // RFC 9126 §2.2: "A JSON number that represents the lifetime of the request URI in seconds
        // as a positive integer."
        guard case .number(let seconds)? = members["expires_in"] else {
            throw unexpected("The answer has no 'expires_in' number.")
        }
        guard let expiresIn = JSONValue.number(seconds).intValue, expiresIn > 0 else {
            throw unexpected("The 'expires_in' is not a positive whole number of seconds.")
        }
        self.requestURI = requestURI
        self.expiresIn = expiresIn
    }

    /// The sentence every error of a pushed request starts its note with.
    static let refused = "The pushed authorization request failed."
}

extension WebSignInError {
    /// This error with `note` put before its own.
    func noting(_ note: String) -> WebSignInError {
        var copy = WebSignInError(
            code, note: self.note.map { note + " " + $0 } ?? note, serverError: serverError,
            serverErrorDescription: serverErrorDescription, serverErrorURI: serverErrorURI,
            httpStatusCode: httpStatusCode, correlationId: correlationId, underlyingError: underlyingError)
        copy.endpoint = endpoint
        return copy
    }
}
