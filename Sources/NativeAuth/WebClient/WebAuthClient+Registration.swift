public import Foundation

extension WebAuthClient {
    /// Registers a new client at the provider of `issuer` (OAuth 2.0 Dynamic Client Registration,
    /// RFC 7591): finds its `registration_endpoint` by discovery, then posts the request's client
    /// metadata as JSON.
    ///
    /// A static function: there is no client id yet, and the result is what a ``WebAuthClient``
    /// is then made with (``ClientRegistration/clientId`` and, for a confidential client,
    /// ``ClientRegistration/clientAuthentication``). Register once and keep the result; a new
    /// registration on every launch leaves many clients behind at the provider.
    ///
    /// ```swift
    /// let registration = try await WebAuthClient.register(
    ///     ClientRegistrationRequest(redirectURIs: [redirectURI], clientName: "Example CLI"), issuer: issuer)
    /// let client = try WebAuthClient(issuer: issuer, clientId: registration.clientId, redirectURI: redirectURI)
    /// ```
    ///
    /// - Parameters:
    ///   - request: the client metadata; by default a public native client (see ``ClientRegistrationRequest``).
    ///   - issuer: the provider's issuer, as for ``init(issuer:clientId:redirectURI:transport:credentialStore:configuration:)``.
    ///   - transport: where requests go; `URLSessionTransport` by default.
    ///   - initialAccessToken: the bearer token a provider with protected registration gave out
    ///     (RFC 7591 §3); `nil` for open registration. Never logged.
    ///   - logger: receives the log records of the registration; `nil` logs nothing.
    /// - Returns: the registered client.
    /// - Throws: ``WebSignInError``: ``WebSignInError/isInvalidParameters`` for a request that
    ///   cannot be sent (nothing is sent); ``WebSignInError/isDiscoveryFailed``;
    ///   ``WebSignInError/isUnsupported`` when the provider publishes no `registration_endpoint`;
    ///   ``WebSignInError/isInvalidRedirectURI`` and ``WebSignInError/isInvalidClientMetadata``
    ///   (with the provider's ``WebSignInError/serverErrorDescription``) when it refuses the
    ///   metadata; ``WebSignInError/isNetworkError``, ``WebSignInError/isServerError``,
    ///   ``WebSignInError/isUnexpectedResponse``.
    public static func register(
        _ request: ClientRegistrationRequest, issuer: URL, transport: any HTTPTransport = URLSessionTransport(),
        initialAccessToken: String? = nil, logger: (any NativeAuthLogger)? = nil
    ) async throws(WebSignInError) -> ClientRegistration {
        let correlationId = UUID()
        let log = Log(logger: logger)
        do {
            try request.validate()
        } catch {
            throw error.with(correlationId: correlationId)
        }
        let pipeline = RequestPipeline.web(transport: transport, log: log)
        let discovery = try ProviderDiscovery(issuer: issuer, pipeline: pipeline)
        let metadata = try await discovery.metadata(correlationId: correlationId)
        guard let endpoint = metadata.registrationEndpoint else {
            throw WebSignInError(
                .unsupported, note: "The provider publishes no 'registration_endpoint'.", correlationId: correlationId)
        }
        return try await send(
            request, to: endpoint, pipeline: pipeline, initialAccessToken: initialAccessToken,
            correlationId: correlationId)
    }

    /// Registers a new client at `registrationEndpoint`, for a provider that publishes no discovery
    /// document; otherwise the same as ``register(_:issuer:transport:initialAccessToken:logger:)``.
    ///
    /// - Parameters:
    ///   - request: the client metadata.
    ///   - registrationEndpoint: the provider's registration endpoint: https, or http on a loopback host.
    ///   - transport: where requests go; `URLSessionTransport` by default.
    ///   - initialAccessToken: the bearer token for protected registration; `nil` for open registration.
    ///   - logger: receives the log records of the registration; `nil` logs nothing.
    /// - Returns: the registered client.
    /// - Throws: ``WebSignInError``, as ``register(_:issuer:transport:initialAccessToken:logger:)``.
    public static func register(
        _ request: ClientRegistrationRequest, registrationEndpoint: URL,
        transport: any HTTPTransport = URLSessionTransport(), initialAccessToken: String? = nil,
        logger: (any NativeAuthLogger)? = nil
    ) async throws(WebSignInError) -> ClientRegistration {
        let correlationId = UUID()
        do {
            try request.validate()
        } catch {
            throw error.with(correlationId: correlationId)
        }
        return try await send(
            request, to: registrationEndpoint, pipeline: .web(transport: transport, log: Log(logger: logger)),
            initialAccessToken: initialAccessToken, correlationId: correlationId)
    }

    private static func send(
        _ request: ClientRegistrationRequest, to endpoint: URL, pipeline: RequestPipeline,
        initialAccessToken: String?, correlationId: UUID
    ) async throws(WebSignInError) -> ClientRegistration {
        let log = pipeline.log
        if EndpointPolicy.problem(with: endpoint, field: "registration_endpoint") != nil {
            throw .invalidParameters(
                "The registration endpoint must be https (http for loopback hosts only).", correlationId: correlationId)
        }
        var headers = WebHTTP.headers(correlationId: correlationId, form: false)
        headers["Content-Type"] = "application/json"
        let token = initialAccessToken.flatMap { $0.isEmpty ? nil : Secret($0) }
        if let token { headers["Authorization"] = "Bearer " + token.reveal }
        log(
            .debug, "client registration",
            [
                "grantTypes": request.grantTypes.joined(separator: " "),
                "authMethod": request.tokenEndpointAuthMethod, "initialAccessToken": token == nil ? "no" : "yes",
            ],
            correlationId: correlationId)
        let response = try await WebHTTP.send(
            HTTPRequest(method: "POST", url: endpoint, headers: headers, body: Data(request.document.description.utf8)),
            to: .registration, through: pipeline, correlationId: correlationId)
        do {
            let registration = try ClientRegistration(response, correlationId: correlationId)
            log(
                .info, "client registered",
                ["clientSecret": registration.secret == nil ? "no" : "yes"], correlationId: correlationId)
            return registration
        } catch {
            log(
                .debug, "client registration refused",
                ["status": "\(response.statusCode)", "error": error.serverError.map { String($0.prefix(80)) } ?? ""],
                correlationId: correlationId)
            throw error
        }
    }
}

extension ClientRegistrationRequest {
    /// Registers the client for `private_key_jwt` (OpenID Connect Core §9) with the public key its
    /// assertions are checked with: `token_endpoint_auth_method` `private_key_jwt`, `jwks` a JWK
    /// Set holding `publicJWK` (RFC 7591 §2), and `token_endpoint_auth_signing_alg` the key's
    /// `alg` (OpenID Connect Dynamic Client Registration §2), so the provider takes no other.
    ///
    /// ```swift
    /// let key = try RSAClientAssertionKey(pkcs1DER: storedKey, keyID: "installation-1")
    /// var request = ClientRegistrationRequest(redirectURIs: [redirectURI])
    /// request.registerAssertionKey(publicJWK: key.publicJWK)
    /// let registration = try await WebAuthClient.register(request, issuer: issuer)
    /// configuration.clientAuthentication = registration.clientAuthentication(assertionKey: key)
    /// ```
    ///
    /// Give the key a `kid` (``RSAClientAssertionKey/keyID``): the assertions name it, and some
    /// providers find the key by it.
    public mutating func registerAssertionKey(publicJWK: [String: String]) {
        tokenEndpointAuthMethod = "private_key_jwt"
        additionalMetadata["jwks"] = .object(["keys": .array([.object(publicJWK.mapValues(JSONValue.string))])])
        if let algorithm = publicJWK["alg"] {
            additionalMetadata["token_endpoint_auth_signing_alg"] = .string(algorithm)
        }
    }
}

extension ClientRegistration {
    /// How a ``WebAuthClient`` for this client authenticates with `private_key_jwt`, signing with
    /// `key` (the key whose public half was registered, see
    /// ``ClientRegistrationRequest/registerAssertionKey(publicJWK:)``), each assertion's `aud` as
    /// `audience` says.
    public func clientAuthentication(
        assertionKey key: any ClientAssertionKey, audience: ClientAssertionAudience = .issuer
    ) -> WebClientAuthentication {
        .privateKeyJWT(PrivateKeyJWT(key: key, audience: audience))
    }
}
