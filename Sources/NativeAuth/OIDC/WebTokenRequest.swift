import Foundation

/// A grant the web client redeems at the token endpoint.
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum WebGrant: Sendable, Equatable {
    /// RFC 6749 §4.1.3 with RFC 7636 §4.5: the code from the callback and the PKCE verifier.
    /// `redirectURI` is `nil` for a code whose authorization request carried none (a code from
    /// an authorization challenge endpoint, First-Party Applications §6): no `redirect_uri` is sent.
    case authorizationCode(code: Secret, redirectURI: URL?, verifier: Secret)
    /// RFC 6749 §6: `scopes` narrows the grant; `nil` keeps the scopes first granted.
    case refreshToken(Secret, scopes: [String]?)
    /// RFC 8628 §3.4: the device code of a device authorization answer.
    case deviceCode(Secret)

    var name: String {
        switch self {
        case .authorizationCode: "authorization_code"
        case .refreshToken: "refresh_token"
        case .deviceCode: "urn:ietf:params:oauth:grant-type:device_code"
        }
    }
}

/// One token endpoint request of the web client: the grant's form body, as a public client sends
/// it; ``WebTokenClient`` adds the client authentication of its configuration.
/// A class: it never changes once built, and its fields are shared rather than copied.
final class WebTokenRequest: Sendable {
    let tokenEndpoint: URL
    let clientId: String
    let grant: WebGrant
    let correlationId: UUID?

    init(tokenEndpoint: URL, clientId: String, grant: WebGrant, correlationId: UUID?) {
        self.tokenEndpoint = tokenEndpoint
        self.clientId = clientId
        self.grant = grant
        self.correlationId = correlationId
    }

    /// The form, in a fixed order. Field names only may be logged (``FormBody/names``).
    var form: FormBody {
        var form = FormBody()
        form.add("grant_type", grant.name)
        switch grant {
        case .authorizationCode(let code, let redirectURI, let verifier):
            form.add("code", secret: code)
            if let redirectURI { form.add("redirect_uri", redirectURI.absoluteString) }
            form.add("client_id", clientId)
            form.add("code_verifier", secret: verifier)
        case .refreshToken(let token, let scopes):
            form.add("refresh_token", secret: token)
            form.add("client_id", clientId)
            if let scopes, !scopes.isEmpty { form.add("scope", scopes.joined(separator: " ")) }
        case .deviceCode(let code):
            form.add("device_code", secret: code)
            form.add("client_id", clientId)
        }
        return form
    }

    var httpRequest: HTTPRequest {
        HTTPRequest(
            method: "POST", url: tokenEndpoint, headers: WebHTTP.headers(correlationId: correlationId, form: true),
            body: form.encoded)
    }
}

/// A successful token endpoint answer, parsed.
/// A class: an answer never changes once read, and the async paths that hand it along copy a reference.
final class WebTokenAnswer: Sendable {
    let accessToken: Secret
    /// Always `Bearer`: the answer's `token_type` is compared case-insensitively (some providers
    /// write `bearer`), and any other type is refused.
    let tokenType: String
    /// Seconds the access token lives, when the provider says.
    let expiresIn: Int?
    /// The refresh token of the answer; `nil` when none came (a refresh answer often has none:
    /// keep the old one, see ``keepingRefreshToken(_:)``).
    let refreshToken: Secret?
    let idToken: Secret?
    /// The granted scopes; `nil` when the answer does not say (then they are the requested ones).
    let scopes: [String]?
    /// The provider's `Date` header, for clock-skew correction.
    let serverDate: Date?
    /// The answer's `auth_session` (OAuth 2.0 for First-Party Applications §6.1), which the client
    /// sends with its later requests to the authorization challenge endpoint (§5.3.1).
    let authSession: Secret?

    /// This answer with `old` as its refresh token when it brought none.
    func keepingRefreshToken(_ old: Secret) -> WebTokenAnswer {
        guard refreshToken == nil else { return self }
        return WebTokenAnswer(
            accessToken: accessToken, tokenType: tokenType, expiresIn: expiresIn, refreshToken: old,
            idToken: idToken, scopes: scopes, serverDate: serverDate, authSession: authSession)
    }

    init(
        accessToken: Secret, tokenType: String, expiresIn: Int?, refreshToken: Secret?, idToken: Secret?,
        scopes: [String]?, serverDate: Date?, authSession: Secret? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scopes = scopes
        self.serverDate = serverDate
        self.authSession = authSession
    }

    /// Parses the token endpoint's answer to `grant`.
    ///
    /// - Throws: the typed error of an error answer (``WebSignInError/isInvalidGrant`` for a refused
    ///   code, verifier or refresh token, including a provider's empty-body `400`;
    ///   ``WebSignInError/isConfigurationError``; ``WebSignInError/isServerError`` for the others and
    ///   for 5xx), ``WebSignInError/isUnexpectedResponse`` for an answer that is not a token
    ///   answer, and ``WebSignInError/isInvalidIDToken`` (``IDTokenCheck/missing``) for a code
    ///   exchange without an ID token.
    convenience init(
        _ response: HTTPResponse, grant: WebGrant, correlationId: UUID?, expectedTokenType: String = "Bearer"
    ) throws(WebSignInError) {
        let status = response.statusCode
        func unexpected(_ note: String) -> WebSignInError {
            WebSignInError(.unexpectedResponse, note: note, httpStatusCode: status, correlationId: correlationId)
        }
        if status == 400, response.body.isEmpty {
            // Some providers (glewlwyd) refuse an unknown or expired refresh token with a bare 400.
            throw WebSignInError(
                .invalidGrant, note: "The provider answered 400 with no body.", httpStatusCode: status,
                correlationId: correlationId)
        }
        let fields = WireObject(
            try WebHTTP.object(of: response, from: "token endpoint", correlationId: correlationId))
        guard let access = fields.string("access_token"), !access.isEmpty else {
            throw unexpected("The answer has no 'access_token'.")
        }
        let type = fields.string("token_type")
        guard let type, type.caseInsensitiveCompare(expectedTokenType) == .orderedSame else {
            if expectedTokenType == "DPoP" {
                // RFC 9449 §5: a client that asked for DPoP-bound tokens checks that it got them;
                // an answer that does not say its type (RFC 6749 §5.1 requires it) does not.
                throw WebSignInError(
                    .proofOfPossession(.tokensNotBound),
                    note: type.map { "The token type is '\($0.prefix(20))'." } ?? "The answer has no 'token_type'.",
                    httpStatusCode: status, correlationId: correlationId)
            }
            throw unexpected(
                type.map { "The token type '\($0.prefix(20))' is not supported; only Bearer is." }
                    ?? "The answer has no 'token_type'.")
        }
        let idToken = fields.string("id_token").flatMap { $0.isEmpty ? nil : Secret($0) }
        if case .authorizationCode = grant, idToken == nil {
            throw WebSignInError.invalidIDToken(
                .missing, note: "The token endpoint sent no ID token.", correlationId: correlationId)
        }
        self.init(
            accessToken: Secret(access), tokenType: expectedTokenType,
            expiresIn: fields.int("expires_in").flatMap { $0 >= 0 ? $0 : nil },
            refreshToken: fields.string("refresh_token").flatMap { $0.isEmpty ? nil : Secret($0) }, idToken: idToken,
            scopes: fields.string("scope").map { $0.split(separator: " ").map(String.init) },
            serverDate: response.header("Date").flatMap(HTTPDate.parse),
            authSession: fields.string("auth_session").flatMap { $0.isEmpty ? nil : Secret($0) })
    }
}

/// What the token endpoint answered a refresh.
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum WebRefreshAnswer: Sendable {
    case tokens(WebTokenAnswer)
    /// `insufficient_authorization` (First-Party Applications §6.2), read as
    /// ``AuthorizationChallengeAnswer/insufficientAuthorization(_:)``,
    /// and the answer's status.
    case challenge(AuthorizationChallengeAnswer, status: Int)
    /// Tokens that are not bound to the key the refresh proved (RFC 9449 §5): refused, with the
    /// refresh token the answer brought, which the provider has rotated the redeemed one into.
    case unbound(WebSignInError, rotatedRefreshToken: Secret?)
}

/// Redeems grants at the token endpoint through the transport, authenticated as `authentication` says.
/// A class: made once with its provider, then shared.
final class WebTokenClient: Sendable {
    let pipeline: RequestPipeline
    let authentication: WebClientAuthentication
    /// The provider's audiences and clock, for `private_key_jwt`'s assertions.
    let assertion: ClientAssertionContext

    var log: Log { pipeline.log }

    init(
        pipeline: RequestPipeline, authentication: WebClientAuthentication = .none,
        assertion: ClientAssertionContext = ClientAssertionContext()
    ) {
        self.pipeline = pipeline
        self.authentication = authentication
        self.assertion = assertion
    }

    /// A token client on a pipeline of its own (no interceptors, the default deadline).
    convenience init(
        transport: any HTTPTransport, log: Log = Log(logger: nil), authentication: WebClientAuthentication = .none
    ) {
        self.init(pipeline: .web(transport: transport, log: log), authentication: authentication)
    }

    /// Exchanges the callback's code for tokens, with the request's PKCE verifier and redirect URI.
    func exchange(
        _ callback: AuthorizationCallback, for request: AuthorizationRequest, tokenEndpoint: URL,
        dpop: DPoPSigner? = nil
    ) async throws(WebSignInError) -> WebTokenAnswer {
        try await send(
            WebTokenRequest(
                tokenEndpoint: tokenEndpoint, clientId: request.clientId,
                grant: .authorizationCode(
                    code: callback.code, redirectURI: request.redirectURI, verifier: request.pkce.verifier),
                correlationId: request.correlationId),
            dpop: dpop)
    }

    /// Redeems `refreshToken`; the answer keeps `refreshToken` when the provider sent no new one.
    func refresh(
        _ refreshToken: Secret, clientId: String, tokenEndpoint: URL, scopes: [String]? = nil,
        correlationId: UUID? = nil, dpop: DPoPSigner? = nil
    ) async throws(WebSignInError) -> WebTokenAnswer {
        try await send(
            WebTokenRequest(
                tokenEndpoint: tokenEndpoint, clientId: clientId, grant: .refreshToken(refreshToken, scopes: scopes),
                correlationId: correlationId),
            dpop: dpop
        ).keepingRefreshToken(refreshToken)
    }

    /// Sends `request` and parses the answer. With `dpop`, the request carries a proof of
    /// possession of its key (RFC 9449 §5), again with the provider's nonce when it asks for one
    /// (§8) or on the provider's clock when it refused a proof made on ours, and the answer must
    /// bind the tokens to the key (`token_type` `DPoP`).
    func send(_ request: WebTokenRequest, dpop: DPoPSigner? = nil) async throws(WebSignInError) -> WebTokenAnswer {
        try parse(try await response(to: request, dpop: dpop), to: request, dpop: dpop)
    }

    /// Redeems `refreshToken`, as ``refresh(_:clientId:tokenEndpoint:scopes:correlationId:dpop:)``
    /// does, or hands back the authorization challenge the provider answered instead: an
    /// `insufficient_authorization` error answer (OAuth 2.0 for First-Party Applications §6.2),
    /// read as an authorization challenge endpoint's (its `auth_session`, its other members).
    @inline(never)
    func refreshOrChallenge(
        _ refreshToken: Secret, clientId: String, tokenEndpoint: URL, scopes: [String]?, correlationId: UUID,
        dpop: DPoPSigner?
    ) async throws(WebSignInError) -> WebRefreshAnswer {
        let request = WebTokenRequest(
            tokenEndpoint: tokenEndpoint, clientId: clientId, grant: .refreshToken(refreshToken, scopes: scopes),
            correlationId: correlationId)
        let response = try await response(to: request, dpop: dpop)
        if !(200...299).contains(response.statusCode) {
            let answer = AuthorizationChallengeAnswer(response, correlationId: correlationId)
            if case .insufficientAuthorization = answer {
                log(.info, "refresh answered with an authorization challenge", correlationId: correlationId)
                return .challenge(answer, status: response.statusCode)
            }
        }
        do {
            return .tokens(try parse(response, to: request, dpop: dpop).keepingRefreshToken(refreshToken))
        } catch  where error.code == .proofOfPossession(.tokensNotBound) {
            let rotated = (try? WebHTTP.members(of: response, correlationId: correlationId))?
                .flatMap { WireObject($0).string("refresh_token") }
            return .unbound(error, rotatedRefreshToken: rotated.flatMap { $0.isEmpty ? nil : Secret($0) })
        }
    }

    /// Sends `request`, with a proof of `dpop`'s key when given, and returns the answer unread.
    private func response(to request: WebTokenRequest, dpop: DPoPSigner?) async throws(WebSignInError)
        -> HTTPResponse
    {
        if EndpointPolicy.problem(with: request.tokenEndpoint, field: "token_endpoint") != nil {
            throw .invalidParameters(
                "The token endpoint must be https (http for loopback hosts only).", correlationId: request.correlationId
            )
        }
        let form = authentication.authenticated(request.form, clientId: request.clientId)
        log(
            .debug, "token request",
            [
                "grant": request.grant.name, "fields": form.names.joined(separator: ","),
                "authentication": authentication.methodName,
            ],
            correlationId: request.correlationId)
        let httpRequest = try await authentication.request(
            url: request.tokenEndpoint, form: request.form, clientId: request.clientId,
            correlationId: request.correlationId, context: assertion)
        return try await WebHTTP.send(
            httpRequest, to: .token, through: pipeline, correlationId: request.correlationId, dpop: dpop,
            renewBody: authentication.renewal(
                url: request.tokenEndpoint, form: request.form, clientId: request.clientId,
                correlationId: request.correlationId, context: assertion))
    }

    /// Reads the answer to `request`.
    private func parse(_ response: HTTPResponse, to request: WebTokenRequest, dpop: DPoPSigner?)
        throws(WebSignInError) -> WebTokenAnswer
    {
        do {
            return try WebTokenAnswer(
                response, grant: request.grant, correlationId: request.correlationId,
                expectedTokenType: dpop == nil ? "Bearer" : "DPoP")
        } catch {
            log(
                .debug, "token request refused",
                ["status": "\(response.statusCode)", "error": error.serverError.map { String($0.prefix(80)) } ?? ""],
                correlationId: request.correlationId)
            throw error
        }
    }
}
