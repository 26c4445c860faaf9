import Foundation

/// What signing a `private_key_jwt` assertion needs beyond the method: where the audience comes
/// from and the provider's clock. A web client's provider gives both; a token client made without
/// one has neither, and refuses `private_key_jwt` before sending anything.
///
/// A class: it never changes once made, and the requests it goes with share one reference rather
/// than copy two closures.
final class ClientAssertionContext: Sendable {
    /// The provider's audiences, from its metadata; what it throws is a ``WebSignInError``.
    let audiences: (@Sendable (UUID?) async throws -> ClientAssertionAudiences)?
    /// Now on the provider's clock.
    let now: @Sendable () -> Date

    init(
        audiences: (@Sendable (UUID?) async throws -> ClientAssertionAudiences)? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.audiences = audiences
        self.now = now
    }
}

/// The web client's requests, authenticated as ``WebClientAuthentication`` says.
extension WebClientAuthentication {
    /// A new client assertion for a request to `url`, for the `private_key_jwt` method; `nil` for
    /// the others. Its audience is the provider's issuer, its token endpoint or `url`, as the
    /// method says.
    ///
    /// - Throws: ``WebSignInError/isInvalidParameters`` when the context knows no provider to
    ///   take the audience from, or the key does not sign; what discovery throws.
    func assertion(for url: URL, clientId: String, context: ClientAssertionContext, correlationId: UUID?)
        async throws(WebSignInError) -> Secret?
    {
        guard case .privateKeyJWT(let configured) = self else { return nil }
        guard let source = context.audiences else {
            throw .invalidParameters(
                "private_key_jwt needs the provider's issuer and token endpoint for the assertion's audience.",
                correlationId: correlationId)
        }
        let audiences: ClientAssertionAudiences
        do {
            audiences = try await source(correlationId)
        } catch {
            throw error as? WebSignInError
                ?? WebSignInError(.invalidParameters, correlationId: correlationId, underlyingError: error)
        }
        let method = try Self.acceptedMethod(
            configured, by: audiences.acceptedAlgorithms, correlationId: correlationId)
        let audience =
            switch method.audience {
            case .issuer: audiences.issuer
            case .tokenEndpoint: audiences.tokenEndpoint.absoluteString
            case .requestEndpoint: url.absoluteString
            }
        do {
            return try await ClientAssertion.make(method, clientId: clientId, audience: audience, now: context.now())
        } catch {
            switch error {
            case .unsupportedAlgorithm:
                throw .invalidParameters(
                    "The client assertion key's algorithm must be a public-key JWS algorithm "
                        + "(PS256, ES256, EdDSA or RS256).", correlationId: correlationId)
            case .signingFailed(let cause):
                throw WebSignInError(
                    .invalidParameters, note: "The client assertion key did not sign.", correlationId: correlationId,
                    underlyingError: cause)
            }
        }
    }

    /// Checks, before a sign-in opens the browser, that the provider takes an algorithm the
    /// `private_key_jwt` key can sign with (`accepted`: its
    /// `token_endpoint_auth_signing_alg_values_supported`); other methods pass.
    func checkAssertionAlgorithm(acceptedBy accepted: [String]?, correlationId: UUID?) throws(WebSignInError) {
        guard case .privateKeyJWT(let method) = self else { return }
        _ = try Self.acceptedMethod(method, by: accepted, correlationId: correlationId)
    }

    /// `method` with a key the provider accepts (``PrivateKeyJWT/accepted(by:)``).
    /// - Throws: ``WebSignInError/isUnsupported`` when the provider takes none of the key's
    ///   algorithms; nothing is sent.
    private static func acceptedMethod(_ method: PrivateKeyJWT, by accepted: [String]?, correlationId: UUID?)
        throws(WebSignInError) -> PrivateKeyJWT
    {
        guard let chosen = method.accepted(by: accepted) else {
            let listed = (accepted ?? []).prefix(8).map { String($0.prefix(16)) }.joined(separator: ", ")
            throw WebSignInError(
                .unsupported,
                note: "The provider takes client assertions signed with \(listed) only; "
                    + "the client assertion key signs \(method.key.algorithm).", correlationId: correlationId)
        }
        return chosen
    }

    /// A POST of `form` to `url` authenticated as `clientId`, with the web client's headers.
    @inline(never)
    func request(url: URL, form: FormBody, clientId: String, correlationId: UUID?, assertion: Secret? = nil)
        -> HTTPRequest
    {
        request(
            url: url, form: form, clientId: clientId,
            headers: WebHTTP.headers(correlationId: correlationId, form: true),
            assertion: assertion)
    }

    /// ``request(url:form:clientId:correlationId:assertion:)`` with a new assertion when the
    /// method is `private_key_jwt`.
    func request(url: URL, form: FormBody, clientId: String, correlationId: UUID?, context: ClientAssertionContext)
        async throws(WebSignInError) -> HTTPRequest
    {
        request(
            url: url, form: form, clientId: clientId, correlationId: correlationId,
            assertion: try await assertion(for: url, clientId: clientId, context: context, correlationId: correlationId)
        )
    }

    /// For `private_key_jwt`, what makes the body of a retry of the same request with a new
    /// assertion (``DPoPSigner/sendToTokenEndpoint(_:to:through:correlationId:failures:renewBody:)``);
    /// `nil` for the other methods, whose body a retry repeats.
    func renewal(url: URL, form: FormBody, clientId: String, correlationId: UUID?, context: ClientAssertionContext)
        -> (() async throws(WebSignInError) -> Data?)?
    {
        guard case .privateKeyJWT = self else { return nil }
        return { () async throws(WebSignInError) -> Data? in
            try await request(url: url, form: form, clientId: clientId, correlationId: correlationId, context: context)
                .body
        }
    }
}
