#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension UserAccountResult {
    /// Returns `request` with `Authorization: Bearer <access token>`, using a cached token while
    /// it is valid and refreshing it otherwise. For an account whose tokens are bound to a DPoP
    /// key, `Authorization: DPoP <access token>` and a `DPoP` proof of the key for this request's
    /// method and URL (RFC 9449 §7.1), carrying the resource's latest nonce.
    ///
    /// - Throws: ``RetrieveAccessTokenError`` when no token can be had, or when the token holds
    ///   characters a header cannot carry (``NativeAuthError/isUnexpectedResponse``), or the DPoP
    ///   proof cannot be made (``RetrieveAccessTokenError/isProofOfPossessionFailed``).
    public func authorize(_ request: HTTPRequest, scopes: [String] = []) async throws(RetrieveAccessTokenError)
        -> HTTPRequest
    {
        let (header, token, signer) = try await authorization(scopes: scopes, forceRefresh: false)
        var authorized = request
        Self.setAuthorization(header, of: &authorized, replacingDPoP: true)
        if let signer {
            authorized.headers["DPoP"] = try await Self.proof(
                signer, method: request.method, url: request.url, token: token)
        }
        return authorized
    }

    /// Sets `header` as the request's only `Authorization` header, whatever the spelling of the
    /// ones it replaces; with `replacingDPoP`, removes its `DPoP` headers too (a proof follows).
    private static func setAuthorization(_ header: String, of request: inout HTTPRequest, replacingDPoP: Bool) {
        for name in request.headers.keys
        where name.equalsIgnoringASCIICase("Authorization") || (replacingDPoP && name.equalsIgnoringASCIICase("DPoP")) {
            request.headers[name] = nil
        }
        request.headers["Authorization"] = header
    }

    /// The proof of `signer`'s key for a resource request carrying `token`.
    @inline(never)
    private static func proof(_ signer: DPoPSigner, method: String, url: URL, token: String)
        async throws(RetrieveAccessTokenError) -> String
    {
        do {
            return try await signer.context.proof(
                signer.key, method: method, url: url, accessToken: token, now: signer.now())
        } catch {
            throw RetrieveAccessTokenError(.proofOfPossession, correlationId: UUID(), failure: error)
        }
    }

    /// Returns `request` with `Authorization: Bearer <access token>`.
    ///
    /// - Throws: ``RetrieveAccessTokenError`` when no token can be had, or when the header could
    ///   not be set as it is (never a request without it).
    public func authorize(_ request: URLRequest, scopes: [String] = []) async throws(RetrieveAccessTokenError)
        -> URLRequest
    {
        let (value, token, signer) = try await authorization(scopes: scopes, forceRefresh: false)
        var authorized = request
        authorized.setValue(value, forHTTPHeaderField: "Authorization")
        guard authorized.value(forHTTPHeaderField: "Authorization") == value else {
            throw RetrieveAccessTokenError(
                .unexpectedResponse, correlationId: UUID(), note: "The Authorization header could not be set.")
        }
        authorized.setValue(nil, forHTTPHeaderField: "DPoP")
        if let signer {
            guard let url = request.url else {
                throw RetrieveAccessTokenError(
                    .invalidArgument, correlationId: UUID(), note: "The request has no URL to prove possession for.")
            }
            let proof = try await Self.proof(signer, method: request.httpMethod ?? "GET", url: url, token: token)
            authorized.setValue(proof, forHTTPHeaderField: "DPoP")
        }
        return authorized
    }

    /// The `Authorization` value for an access token that can go into a header as it is (no
    /// control character could end the header or add one), the token, and the signer of its
    /// proofs when the account's tokens are bound to a DPoP key. One call for the three requests
    /// that authorize, rather than their own two awaits each.
    private func authorization(scopes: [String], forceRefresh: Bool) async throws(RetrieveAccessTokenError)
        -> (header: String, token: String, signer: DPoPSigner?)
    {
        let token = try await getAccessToken(scopes: scopes, forceRefresh: forceRefresh).accessToken
        guard !token.isEmpty, HeaderValue.isSafe(token) else {
            throw RetrieveAccessTokenError(
                .unexpectedResponse, correlationId: UUID(),
                note: "The access token holds characters a header cannot carry; nothing was sent.")
        }
        let signer = try await manager.dpopSigner(identifier: account.identifier)
        return ("\(signer == nil ? "Bearer" : "DPoP") \(token)", token, signer)
    }

    /// Sends `request` with a bearer token. When the resource answers 401 with a
    /// `WWW-Authenticate` challenge saying the token is invalid or expired, refreshes the token
    /// once and retries once. A 401 with a step-up challenge (`error="insufficient_user_authentication"`,
    /// RFC 9470 §3) throws ``AuthorizedRequestError/isStepUpRequired`` with the resource's
    /// requirements in ``AuthorizedRequestError/stepUpChallenge``; one with a claims challenge
    /// (`error="insufficient_claims"` and `claims=`) throws
    /// ``AuthorizedRequestError/isInteractionRequired`` with the decoded claims. Neither is retried:
    /// the app decides whether the user signs in again. Any other answer is returned as it is.
    ///
    /// - Parameters:
    ///   - request: the request to the protected resource.
    ///   - scopes: the scopes the token must carry; empty means the scopes asked for at sign-in.
    ///   - transport: where to send it; the client's transport when `nil`.
    /// - Throws: ``AuthorizedRequestError`` when no token can be had or no response came, or the
    ///   resource asked for a stronger sign-in or more claims. The account stays signed in.
    public func send(_ request: HTTPRequest, scopes: [String] = [], using transport: (any HTTPTransport)? = nil)
        async throws(AuthorizedRequestError) -> HTTPResponse
    {
        let transport = transport ?? manager.transport
        let first = try await exchange(request, scopes: scopes, forceRefresh: false, transport: transport)
        try Self.throwChallenge(first)
        guard first.statusCode == 401, Self.saysTokenInvalid(first.header("WWW-Authenticate")) else { return first }
        let second = try await exchange(request, scopes: scopes, forceRefresh: true, transport: transport)
        try Self.throwChallenge(second)
        return second
    }

    /// Throws for a 401 whose challenge asks the user for more: a step-up (RFC 9470), or claims.
    private static func throwChallenge(_ response: HTTPResponse) throws(AuthorizedRequestError) {
        guard response.statusCode == 401, let header = response.header("WWW-Authenticate") else { return }
        if let stepUp = StepUpChallenge(wwwAuthenticate: header) {
            throw AuthorizedRequestError(
                details: .init(
                    .interactionRequired, correlationId: UUID(),
                    note: "The resource asks for a stronger or more recent sign-in (insufficient_user_authentication).",
                    interaction: stepUp))
        }
        guard let claims = claimsChallenge(header) else { return }
        var details = NativeAuthErrorDetails(
            .interactionRequired, correlationId: UUID(), note: "The resource asked for more claims.")
        details.challengeClaims = claims
        throw AuthorizedRequestError(details: details)
    }

    /// The claims of a Bearer or DPoP challenge (a DPoP-bound token's resource answers with the
    /// latter, RFC 9449 §7.1) with `error="insufficient_claims"`: the `claims` value base64-decoded
    /// when it decodes to a JSON object, else as it came; `nil` for any other challenge. Long or
    /// malformed headers give `nil` (``AuthenticationChallenges``).
    static func claimsChallenge(_ header: String?) -> String? {
        guard let header,
            let challenge = AuthenticationChallenges(header)?.first(error: "insufficient_claims"),
            let raw = challenge.parameters["claims"], !raw.isEmpty
        else { return nil }
        let decoded =
            Data(base64Encoded: raw) ?? Base64URL.decode(raw)
        if let decoded, let text = String(data: decoded, encoding: .utf8),
            (try? JSONValue.parse(decoded))?.objectValue != nil
        {
            return text
        }
        return (try? JSONValue.parse(Data(raw.utf8)))?.objectValue != nil ? raw : nil
    }

    private func exchange(_ request: HTTPRequest, scopes: [String], forceRefresh: Bool, transport: any HTTPTransport)
        async throws(AuthorizedRequestError) -> HTTPResponse
    {
        let (header, token, signer): (String, String, DPoPSigner?)
        do {
            (header, token, signer) = try await authorization(scopes: scopes, forceRefresh: forceRefresh)
        } catch {
            throw AuthorizedRequestError(error)
        }
        var authorized = request
        Self.setAuthorization(header, of: &authorized, replacingDPoP: false)
        let send = { (request: HTTPRequest) async throws(AuthorizedRequestError) -> HTTPResponse in
            do {
                return try await transport.send(request)
            } catch {
                let cancelled = error is CancellationError || Task.isCancelled
                throw AuthorizedRequestError(
                    details: .init(cancelled ? .cancelled : .network, correlationId: UUID(), underlyingError: error))
            }
        }
        guard let signer else { return try await send(authorized) }
        // RFC 9449 §9: a resource that wants a nonce answers 401 with one; the request goes once
        // more. So it does, on the resource's clock, after a refusal whose `Date` shows the proof's
        // `iat` was off (the server refused it before acting on it, like a nonce challenge).
        return try await signer.send(
            authorized, accessToken: token,
            refused: { AuthorizedRequestError(.proofOfPossession, correlationId: UUID(), failure: $0) },
            isNonceChallenge: DPoPSigner.isResourceNonceChallenge, isProofRefusal: DPoPSigner.isResourceProofRefusal,
            through: send)
    }

    /// Whether a `WWW-Authenticate` value carries a Bearer (RFC 6750 §3.1) or DPoP (RFC 9449 §7.1)
    /// challenge with `error="invalid_token"`: the token is expired, revoked or otherwise invalid.
    /// Read by the challenge grammar (``AuthenticationChallenges``): the words in a description or
    /// a realm say nothing, and a value that cannot be read says nothing either.
    static func saysTokenInvalid(_ header: String?) -> Bool {
        AuthenticationChallenges.hasTokenError("invalid_token", in: header)
    }
}
