#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension UserAccountResult {
    /// Returns `request` with `Authorization: Bearer <access token>`, using a cached token while
    /// it is valid and refreshing it otherwise.
    ///
    /// - Throws: ``RetrieveAccessTokenError`` when no token can be had.
    public func authorize(_ request: HTTPRequest, scopes: [String] = []) async throws(RetrieveAccessTokenError)
        -> HTTPRequest
    {
        let token = try await getAccessToken(scopes: scopes)
        var authorized = request
        authorized.headers = request.headers.filter { $0.key.caseInsensitiveCompare("Authorization") != .orderedSame }
        authorized.headers["Authorization"] = "Bearer \(token.accessToken)"
        return authorized
    }

    /// Returns `request` with `Authorization: Bearer <access token>`.
    ///
    /// - Throws: ``RetrieveAccessTokenError`` when no token can be had.
    public func authorize(_ request: URLRequest, scopes: [String] = []) async throws(RetrieveAccessTokenError)
        -> URLRequest
    {
        let token = try await getAccessToken(scopes: scopes)
        var authorized = request
        authorized.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
        return authorized
    }

    /// Sends `request` with a bearer token. When the resource answers 401 with a
    /// `WWW-Authenticate` challenge saying the token is invalid or expired, refreshes the token
    /// once and retries once; any other answer is returned as it is.
    ///
    /// - Parameters:
    ///   - request: the request to the protected resource.
    ///   - scopes: the scopes the token must carry; empty means the scopes asked for at sign-in.
    ///   - transport: where to send it; the client's transport when `nil`.
    /// - Throws: ``AuthorizedRequestError`` when no token can be had or no response came.
    public func send(_ request: HTTPRequest, scopes: [String] = [], using transport: (any HTTPTransport)? = nil)
        async throws(AuthorizedRequestError) -> HTTPResponse
    {
        let transport = transport ?? manager.wire.transport
        let first = try await exchange(request, scopes: scopes, forceRefresh: false, transport: transport)
        guard first.statusCode == 401, Self.saysTokenInvalid(first.header("WWW-Authenticate")) else { return first }
        return try await exchange(request, scopes: scopes, forceRefresh: true, transport: transport)
    }

    private func exchange(_ request: HTTPRequest, scopes: [String], forceRefresh: Bool, transport: any HTTPTransport)
        async throws(AuthorizedRequestError) -> HTTPResponse
    {
        let token: TokenResult
        do {
            token = try await getAccessToken(scopes: scopes, forceRefresh: forceRefresh)
        } catch {
            throw AuthorizedRequestError(error)
        }
        var authorized = request
        authorized.headers = request.headers.filter { $0.key.caseInsensitiveCompare("Authorization") != .orderedSame }
        authorized.headers["Authorization"] = "Bearer \(token.accessToken)"
        do {
            return try await transport.send(authorized)
        } catch {
            let cancelled = error is CancellationError || Task.isCancelled
            throw AuthorizedRequestError(
                details: .init(cancelled ? .cancelled : .network, correlationId: UUID(), underlyingError: error))
        }
    }

    /// Whether a `WWW-Authenticate` value carries a Bearer challenge with `error="invalid_token"`
    /// (RFC 6750 §3.1): the token is expired, revoked or otherwise invalid.
    static func saysTokenInvalid(_ header: String?) -> Bool {
        guard let header = header?.lowercased(), header.contains("bearer") else { return false }
        let compact = header.replacingOccurrences(of: " ", with: "")
        return compact.contains("error=\"invalid_token\"") || compact.contains("error=invalid_token")
    }
}
