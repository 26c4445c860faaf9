import Foundation

/// Owns the signed-in account of one client: its record in the credential store, the access
/// token cache, and the one refresh in flight per scope set.
actor AccountManager {
    private let store: any CredentialStore
    private let storeKey: String
    private let wire: WireClient
    private let clock: any NativeAuthClock
    private let margin: TimeInterval
    private let log: Log

    private var record: AccountRecord?
    private var loaded = false
    /// Bumped by every sign-in and sign-out, so that a refresh started for an earlier account
    /// cannot write into a later one.
    private var generation = 0
    private var refreshes: [String: Task<Result<TokenResult, RetrieveAccessTokenError>, Never>] = [:]
    /// Accounts signed out whose credentials the store failed to remove: the next sign-out retries.
    private var pendingRemovals: Set<String> = []

    init(configuration: NativeAuthConfiguration, store: any CredentialStore, wire: WireClient, log: Log) {
        self.store = store
        storeKey = "nativeauth.account.\(configuration.clientId)"
        self.wire = wire
        clock = configuration.clock
        margin = max(0, configuration.tokenRefreshMargin)
        self.log = log
    }

    // MARK: Loading and saving

    /// The stored account, read from the store once.
    func current() async throws(CredentialStoreError) -> AccountRecord? {
        if loaded { return record }
        let data: Data?
        do {
            data = try await store.data(forKey: storeKey)
        } catch {
            log(.error, "credential store unreadable", ["error": String(describing: type(of: error))])
            throw CredentialStoreError(error, isReadFailure: true)
        }
        // A sign-in may have finished while the store was being read.
        if loaded { return record }
        loaded = true
        guard let data else { return nil }
        do {
            let decoded = try Self.decoder.decode(AccountRecord.self, from: data)
            guard decoded.version <= AccountRecord.currentVersion else {
                log(.error, "stored account has a newer format; ignored", ["version": "\(decoded.version)"])
                return nil
            }
            // An account whose sign-out could not reach the store stays signed out.
            if !pendingRemovals.contains(decoded.identifier) { record = decoded }
        } catch {
            log(.error, "stored account is damaged; ignored", ["bytes": "\(data.count)"])
        }
        return record
    }

    private func save(_ record: AccountRecord) async -> Bool {
        do {
            try await store.setData(Self.encoder.encode(record), forKey: storeKey)
            return true
        } catch {
            log(.error, "credential store unwritable", ["error": String(describing: type(of: error))])
            return false
        }
    }

    // MARK: Sign-in and sign-out

    /// Records a new sign-in from a token answer, replacing any earlier account.
    func signedIn(_ answer: TokenAnswer, username: String, scopes: [String], correlationId: UUID) async
        -> AccountRecord
    {
        let idToken = answer.idToken?.reveal ?? ""
        let claims = Claims(JWT.payload(of: idToken) ?? [:])
        let key = AccountRecord.scopeKey(scopes)
        let newRecord = AccountRecord(
            identifier: Self.identifier(clientInfo: answer.clientInfo, claims: claims, username: username),
            username: username.isEmpty ? (claims.preferredUsername ?? "") : username,
            idToken: idToken,
            refreshToken: answer.refreshToken?.reveal,
            signInScopes: scopes,
            accessTokens: [key: cachedToken(from: answer, requested: scopes)])
        generation += 1
        refreshes = [:]
        record = newRecord
        loaded = true
        _ = await save(newRecord)
        log(.info, "signed in", correlationId: correlationId)
        return newRecord
    }

    func signOut(identifier: String) async -> SignOutResult {
        if !loaded { _ = try? await current() }
        let wasSignedIn = record?.identifier == identifier
        guard wasSignedIn || pendingRemovals.contains(identifier) else {
            return SignOutResult(removedFromStore: false, wasSignedIn: false)
        }
        if wasSignedIn {
            record = nil
            generation += 1
            refreshes = [:]
        }
        var removed = true
        do {
            try await store.removeData(forKey: storeKey)
            pendingRemovals.remove(identifier)
        } catch {
            removed = false
            pendingRemovals.insert(identifier)
            log(.error, "credentials could not be removed from the store", ["error": String(describing: type(of: error))])
        }
        log(.info, "signed out")
        return SignOutResult(removedFromStore: removed, wasSignedIn: true)
    }

    // MARK: Access tokens

    func accessToken(for identifier: String, scopes: [String], forceRefresh: Bool) async throws(
        RetrieveAccessTokenError
    ) -> TokenResult {
        let current: AccountRecord?
        do {
            current = try await self.current()
        } catch {
            throw RetrieveAccessTokenError(
                details: .init(.storage, correlationId: UUID(), underlyingError: error.underlyingError))
        }
        guard let current, current.identifier == identifier else {
            throw RetrieveAccessTokenError(.noAccount, correlationId: UUID())
        }
        let requested = scopes.isEmpty ? current.signInScopes : scopes
        let key = AccountRecord.scopeKey(requested)
        if !forceRefresh, let cached = current.accessTokens[key], cached.expiresOn > clock.now().addingTimeInterval(margin) {
            return TokenResult(accessToken: cached.token, expiresOn: cached.expiresOn, scopes: cached.scopes)
        }
        if let running = refreshes[key] {
            return try await running.value.get()
        }
        let generation = self.generation
        let task = Task { await self.refresh(key: key, scopes: requested, generation: generation) }
        refreshes[key] = task
        let result = await task.value
        if generation == self.generation { refreshes[key] = nil }
        return try result.get()
    }

    private func refresh(key: String, scopes: [String], generation: Int) async -> Result<TokenResult, RetrieveAccessTokenError> {
        let correlationId = UUID()
        guard let refreshToken = record?.refreshToken else {
            // Without a refresh token the account can never get a new access token: sign it out.
            if let identifier = record?.identifier { _ = await signOut(identifier: identifier) }
            return .failure(
                RetrieveAccessTokenError(.refreshTokenExpired, correlationId: correlationId, note: "No refresh token is stored."))
        }
        let answer: TokenAnswer
        do {
            let reply = try await wire.send(.tokenRefresh(refreshToken: Secret(refreshToken), scopes: scopes), correlationId: correlationId)
            answer = try reply.decode { reply throws(WireFailure) in try TokenAnswer(reply.object, headers: reply.response) }
        } catch {
            let failure = RetrieveAccessTokenError(error, correlationId: correlationId) { server in
                server.isError("invalid_grant") || server.isError("expired_token") ? .refreshTokenExpired : nil
            }
            if failure.isRefreshTokenExpired, generation == self.generation, let identifier = record?.identifier {
                log(.warning, "refresh token refused; signing out", correlationId: correlationId)
                _ = await signOut(identifier: identifier)
            }
            return .failure(failure)
        }
        guard generation == self.generation, var updated = record else {
            return .failure(RetrieveAccessTokenError(.noAccount, correlationId: correlationId))
        }
        if let rotated = answer.refreshToken { updated.refreshToken = rotated.reveal }
        if let idToken = answer.idToken { updated.idToken = idToken.reveal }
        let cached = cachedToken(from: answer, requested: scopes)
        updated.accessTokens[key] = cached
        record = updated
        // The rotated refresh token is stored before the new access token is handed out.
        if !(await save(updated)) {
            log(.warning, "refreshed credentials kept in memory only", correlationId: correlationId)
        }
        log(.info, "token refreshed", correlationId: correlationId)
        return .success(TokenResult(accessToken: cached.token, expiresOn: cached.expiresOn, scopes: cached.scopes))
    }

    private func cachedToken(from answer: TokenAnswer, requested: [String]) -> AccountRecord.CachedAccessToken {
        let now = clock.now()
        let lifetime: TimeInterval
        if let expiresIn = answer.expiresIn {
            lifetime = TimeInterval(expiresIn)
        } else if let exp = Claims(JWT.payload(of: answer.accessToken.reveal) ?? [:]).expiresAt,
            let issued = Claims(JWT.payload(of: answer.accessToken.reveal) ?? [:]).issuedAt
        {
            // Without expires_in, the token's own lifetime (exp - iat) is immune to clock skew.
            lifetime = max(0, exp.timeIntervalSince(issued))
        } else {
            lifetime = 0
        }
        let scopes = answer.scopes.isEmpty ? requested : answer.scopes
        return .init(token: answer.accessToken.reveal, expiresOn: now.addingTimeInterval(lifetime), scopes: scopes)
    }

    static func identifier(clientInfo: String?, claims: Claims, username: String) -> String {
        if let clientInfo, let data = Base64URL.decode(clientInfo), let info = try? JSONValue.parse(data),
            let uid = info["uid"]?.stringValue, let utid = info["utid"]?.stringValue
        {
            return "\(uid).\(utid)"
        }
        if let oid = claims.objectId { return claims.tenantId.map { "\(oid).\($0)" } ?? oid }
        return claims.subject ?? username.lowercased()
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
