import Foundation

/// Owns the signed-in account of one client: its record in the credential store, the access
/// token cache, and the one refresh in flight per scope set.
///
/// Guarantees: a rotated refresh token is written to the store before the new access token is
/// handed out; a network or server failure never removes credentials; only a refused refresh
/// token (or a sign-out) does; a store that cannot be read is an error, never a sign-out.
actor AccountManager {
    private let store: any CredentialStore
    private let storeKey: String
    /// Where refresh tokens are redeemed: the native token endpoint, or a web provider's.
    let redeemer: any RefreshRedeemer
    /// The transport for `account.send`.
    nonisolated var transport: any HTTPTransport { redeemer.transport }
    private let clock: any NativeAuthClock
    private let margin: TimeInterval
    private let log: Log
    private let events: SessionEventHub

    private var record: AccountRecord? {
        didSet {
            recordVersion &+= 1
            snapshot.withLock { $0.usable = false }
        }
    }
    /// Bumped by every change of `record`: a save publishes the snapshot only when the record it
    /// wrote is still the current one.
    private var recordVersion = 0
    /// The token cache as last written to the store, read without entering the actor: a cached
    /// `getAccessToken` is a lock and a hash lookup. Unusable until the store is read, while the
    /// record in memory is newer than the store's copy, and after a sign-out.
    private nonisolated let snapshot = Locked(CacheSnapshot())
    private var loaded = false
    /// Bumped by every sign-in and sign-out, so that a refresh started for an earlier account
    /// cannot write into a later one.
    private var generation = 0
    /// The refresh in flight for each scope key.
    private var refreshes: [String: UUID] = [:]
    /// The task of each refresh in flight, cancelled when no caller waits for it any more.
    private var refreshTasks: [UUID: (key: String, task: Task<Void, Never>)] = [:]
    /// Callers waiting for each refresh; a caller whose task is cancelled leaves at once.
    private var waiters: [UUID: [UUID: CheckedContinuation<Result<TokenResult, RetrieveAccessTokenError>, Never>]] = [:]
    /// Accounts signed out whose credentials the store failed to remove: the next sign-out retries.
    private var pendingRemovals: Set<String> = []
    /// The record in memory is newer than the store's copy (a write failed): retried on every use.
    private var needsSave = false {
        didSet { if needsSave { snapshot.withLock { $0.usable = false } } }
    }
    /// The server's clock minus ours, from the `Date` header of the last token answer.
    private(set) var serverClockOffset: TimeInterval = 0

    init(
        configuration: NativeAuthConfiguration, store: any CredentialStore, redeemer: any RefreshRedeemer, log: Log,
        events: SessionEventHub
    ) {
        self.init(
            clientId: configuration.clientId, clock: configuration.clock, margin: configuration.tokenRefreshMargin,
            store: store, redeemer: redeemer, log: log, events: events)
    }

    init(
        clientId: String, clock: any NativeAuthClock, margin: TimeInterval, store: any CredentialStore,
        redeemer: any RefreshRedeemer, log: Log, events: SessionEventHub, storeKey: String? = nil
    ) {
        self.store = store
        self.storeKey = storeKey ?? "nativeauth.account.\(clientId)"
        self.redeemer = redeemer
        self.clock = clock
        self.margin = margin.isFinite ? min(max(0, margin), 86_400) : 300
        self.log = log
        self.events = events
    }

    // MARK: Loading and saving

    /// The stored account, read from the store once.
    func current() async throws(CredentialStoreError) -> AccountRecord? {
        if loaded { return record }
        let stored = try await readStore()
        // A sign-in may have finished while the store was being read.
        if loaded { return record }
        loaded = true
        if case .record(let stored) = stored, !pendingRemovals.contains(stored.identifier) { record = stored }
        publishSnapshot()
        return record
    }

    /// What the store holds for this client.
    private enum StoredAccount {
        case absent
        /// Damaged, or written in a newer format: reported, and read as no account.
        case unusable
        case record(AccountRecord)
        /// The very bytes this client last wrote or read: nothing changed there.
        case unchanged
    }

    /// The bytes this client last wrote to or read from the store, so that the check before each
    /// refresh decodes nothing when no other client touched the store.
    private var lastStored: Data?

    /// Reads and decodes the store's copy. A damaged or newer-format entry is reported and read as
    /// no account (it stays in the store until a sign-in replaces it); an unreadable store throws.
    private func readStore(unchangedIfSame: Bool = false) async throws(CredentialStoreError) -> StoredAccount {
        let data: Data?
        do {
            data = try await store.data(forKey: storeKey)
        } catch {
            // A damaged entry or one from a newer format is not "unavailable": it can never be
            // read, so it is reported and read as no account, and stays until a sign-in replaces it.
            if error is CredentialStoreDamagedError || error is CredentialStoreVersionError {
                log(.error, "stored account cannot be read; ignored", ["error": "\(error)"])
                return .unusable
            }
            log(.error, "credential store unreadable", ["error": String(describing: type(of: error))])
            throw CredentialStoreError(error, isReadFailure: true)
        }
        guard let data else { return .absent }
        if unchangedIfSame, data == lastStored { return .unchanged }
        do {
            let decoded = try Self.decoder.decode(AccountRecord.self, from: data)
            guard decoded.version <= AccountRecord.currentVersion else {
                log(.error, "stored account has a newer format; ignored", ["version": "\(decoded.version)"])
                return .unusable
            }
            lastStored = data
            return .record(decoded)
        } catch {
            log(.error, "stored account is damaged; ignored", ["bytes": "\(data.count)"])
            return .unusable
        }
    }

    @discardableResult
    private func save(_ record: AccountRecord) async -> Bool {
        let version = recordVersion
        do {
            let data = try record.encodedJSON() ?? Self.encoder.encode(record)
            try await store.setData(data, forKey: storeKey)
            lastStored = data
            needsSave = false
            if version == recordVersion { publishSnapshot() }
            return true
        } catch {
            needsSave = true
            log(.error, "credential store unwritable; kept in memory", ["error": String(describing: type(of: error))])
            return false
        }
    }

    // MARK: Sign-in and sign-out

    /// Records a new sign-in from a token answer, replacing any earlier account.
    func signedIn(_ answer: TokenAnswer, username: String, scopes: [String], correlationId: UUID) async
        -> AccountRecord
    {
        noteServerDate(answer.serverDate)
        let idToken = answer.idToken?.reveal ?? ""
        let claims = Claims(JWT.payload(of: idToken) ?? [:])
        let key = AccountRecord.scopeKey(scopes)
        let newRecord = AccountRecord(
            identifier: Self.identifier(clientInfo: answer.clientInfo, claims: claims, username: username),
            username: username.isEmpty ? (claims.preferredUsername ?? "") : username,
            idToken: idToken, claims: claims,
            refreshToken: answer.refreshToken?.reveal,
            signInScopes: scopes,
            accessTokens: [key: cachedToken(from: answer, requested: scopes)])
        generation += 1
        refreshes = [:]
        record = newRecord
        loaded = true
        // The new sign-in replaces whatever the store held: earlier failed removals are moot, and
        // retrying one later must not delete this account.
        pendingRemovals = []
        await save(newRecord)
        log(.info, "signed in", correlationId: correlationId)
        events.publish(.signedIn(newRecord.account))
        return newRecord
    }

    func signOut(identifier: String, reason: SignOutReason = .requested) async -> SignOutResult {
        if !loaded { _ = try? await current() }
        let signedOut = record?.identifier == identifier ? record : nil
        guard signedOut != nil || pendingRemovals.contains(identifier) else {
            return SignOutResult(removedFromStore: false, wasSignedIn: false)
        }
        if signedOut != nil {
            record = nil
            generation += 1
            refreshes = [:]
            needsSave = false
        }
        var removed = true
        do {
            try await store.removeData(forKey: storeKey)
            pendingRemovals.remove(identifier)
        } catch {
            removed = false
            pendingRemovals.insert(identifier)
            log(
                .error, "credentials could not be removed from the store",
                ["error": String(describing: type(of: error))])
        }
        if let signedOut {
            log(.info, "signed out", ["reason": "\(reason)"])
            events.publish(.signedOut(signedOut.account, reason: reason))
        }
        return SignOutResult(removedFromStore: removed, wasSignedIn: signedOut != nil)
    }

    /// Signs the account out like ``signOut(identifier:reason:)`` and hands back the refresh token
    /// and ID token it held (`nil` when it was not the signed-in account), for a sign-out that
    /// also revokes the one and ends the provider's session with the other. They are read right
    /// before the account is removed, with no store or network access in between.
    func signOutTakingCredentials(identifier: String) async -> (
        result: SignOutResult, credentials: (refreshToken: String?, idToken: String)?
    ) {
        if !loaded { _ = try? await current() }
        let taken = record.flatMap { $0.identifier == identifier ? ($0.refreshToken, $0.idToken) : nil }
        return (await signOut(identifier: identifier), taken)
    }

    // MARK: Access tokens

    /// What a cached `getAccessToken` reads without entering the actor.
    struct CacheSnapshot: Sendable {
        var usable = false
        var identifier = ""
        var signInKey = ""
        var tokens: [String: AccountRecord.CachedAccessToken] = [:]
        /// Scope keys of the scope lists callers asked for, so a repeated call computes none.
        var keys: [[String]: String] = [:]
    }

    /// Publishes the record in memory to the snapshot; only when it is what the store holds.
    private func publishSnapshot() {
        let record = needsSave ? nil : record
        snapshot.withLock { snapshot in
            guard let record, loaded else {
                snapshot.usable = false
                return
            }
            snapshot.usable = true
            snapshot.identifier = record.identifier
            snapshot.signInKey = AccountRecord.scopeKey(record.signInScopes)
            snapshot.tokens = record.accessTokens
        }
    }

    /// The cached access token for `scopes` when one is valid beyond the margin, without entering
    /// the actor; `nil` sends the caller to ``accessToken(for:scopes:forceRefresh:claims:)``.
    nonisolated func cachedAccessToken(for identifier: String, scopes: [String]) -> TokenResult? {
        let validUntil = clock.now().addingTimeInterval(margin)
        let found: (AccountRecord.CachedAccessToken?, Bool) = snapshot.withLock { snapshot in
            guard snapshot.usable, snapshot.identifier == identifier else { return (nil, true) }
            let key = scopes.isEmpty ? snapshot.signInKey : snapshot.keys[scopes]
            guard let key else { return (nil, false) }
            return (snapshot.tokens[key], true)
        }
        if let token = found.0 {
            return token.expiresOn > validUntil
                ? TokenResult(accessToken: token.token, expiresOn: token.expiresOn, scopes: token.scopes) : nil
        }
        guard !found.1 else { return nil }
        // First call with this scope list: compute its key once, outside the lock.
        let key = AccountRecord.scopeKey(scopes)
        let token: AccountRecord.CachedAccessToken? = snapshot.withLock { snapshot in
            if snapshot.keys.count >= 1024 { snapshot.keys.removeAll(keepingCapacity: true) }
            snapshot.keys[scopes] = key
            guard snapshot.usable, snapshot.identifier == identifier else { return nil }
            return snapshot.tokens[key]
        }
        guard let token, token.expiresOn > validUntil else { return nil }
        return TokenResult(accessToken: token.token, expiresOn: token.expiresOn, scopes: token.scopes)
    }

    func accessToken(for identifier: String, scopes: [String], forceRefresh: Bool, claims: String? = nil)
        async throws(RetrieveAccessTokenError) -> TokenResult
    {
        let claims = try FlowContext.validClaims(claims, correlationId: UUID(), as: RetrieveAccessTokenError.self)
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
        if needsSave { await save(current) }
        let requested = scopes.isEmpty ? current.signInScopes : scopes
        let key = AccountRecord.scopeKey(requested)
        // A claims request always goes to the server: the cached token does not carry the claims.
        if !forceRefresh, claims == nil, let cached = current.accessTokens[key],
            cached.expiresOn > clock.now().addingTimeInterval(margin)
        {
            return TokenResult(accessToken: cached.token, expiresOn: cached.expiresOn, scopes: cached.scopes)
        }
        // Refreshes with a claims request are shared only with callers asking for the same claims.
        let flightKey = claims.map { key + "\u{0}" + $0 } ?? key
        let refreshId: UUID
        if let running = refreshes[flightKey] {
            refreshId = running
        } else {
            refreshId = UUID()
            refreshes[flightKey] = refreshId
            let generation = self.generation
            // Not a child of any caller: a caller that gives up does not cancel it for the others.
            // It is cancelled when the last caller has left (see `leave`).
            let account = storeKey
            let task = Task {
                let result = await RefreshCoordinator.shared.serialize(key: account) {
                    await self.refresh(key: key, scopes: requested, claims: claims, generation: generation)
                }
                self.finish(refreshId, key: flightKey, result: result)
            }
            refreshTasks[refreshId] = (flightKey, task)
        }
        return try await wait(for: refreshId).get()
    }

    private func wait(for refreshId: UUID) async -> Result<TokenResult, RetrieveAccessTokenError> {
        let waiterId = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(
                        returning: .failure(RetrieveAccessTokenError(.cancelled, correlationId: UUID())))
                } else {
                    waiters[refreshId, default: [:]][waiterId] = continuation
                }
            }
        } onCancel: {
            Task { await self.leave(refreshId, waiter: waiterId) }
        }
    }

    private func leave(_ refreshId: UUID, waiter: UUID) {
        guard let continuation = waiters[refreshId]?.removeValue(forKey: waiter) else { return }
        continuation.resume(returning: .failure(RetrieveAccessTokenError(.cancelled, correlationId: UUID())))
        // Nobody waits for this refresh any more: it ends, so that a stuck one holds nobody up and
        // the next caller starts a fresh one.
        guard waiters[refreshId]?.isEmpty ?? true, let running = refreshTasks.removeValue(forKey: refreshId) else {
            return
        }
        waiters[refreshId] = nil
        if refreshes[running.key] == refreshId { refreshes[running.key] = nil }
        running.task.cancel()
        log(.debug, "refresh abandoned by every caller; cancelled")
    }

    private func finish(_ refreshId: UUID, key: String, result: Result<TokenResult, RetrieveAccessTokenError>) {
        refreshTasks[refreshId] = nil
        if refreshes[key] == refreshId { refreshes[key] = nil }
        for continuation in (waiters.removeValue(forKey: refreshId) ?? [:]).values {
            continuation.resume(returning: result)
        }
    }

    /// Refreshes with the newest refresh token: the store's copy wins when another client (or
    /// process) on the same store rotated it since this one last read it.
    private func refresh(key: String, scopes: [String], claims: String?, generation: Int) async -> Result<
        TokenResult, RetrieveAccessTokenError
    > {
        let correlationId = UUID()
        guard !Task.isCancelled else {
            return .failure(RetrieveAccessTokenError(.cancelled, correlationId: correlationId))
        }
        await adoptNewerStoredRecord(generation: generation)
        guard generation == self.generation, let current = record else {
            return .failure(RetrieveAccessTokenError(.noAccount, correlationId: correlationId))
        }
        let identifier = current.identifier
        guard let refreshToken = current.refreshToken else {
            // Without a refresh token the account can never get a new access token: sign it out.
            _ = await signOut(identifier: identifier, reason: .sessionExpired)
            return .failure(
                RetrieveAccessTokenError(
                    .refreshTokenExpired, correlationId: correlationId, note: "No refresh token is stored."))
        }
        var answer: TokenAnswer
        do {
            answer = try await redeemer.redeem(
                refreshToken: Secret(refreshToken), scopes: scopes, claims: claims, account: current,
                correlationId: correlationId)
        } catch {
            guard error.isRefreshTokenExpired else { return .failure(error) }
            // Another client on the same store may have rotated the token: try the stored one once.
            await adoptNewerStoredRecord(generation: generation)
            guard generation == self.generation, let stored = record?.refreshToken, stored != refreshToken else {
                if generation == self.generation {
                    log(.warning, "refresh token refused; signing out", correlationId: correlationId)
                    _ = await signOut(identifier: identifier, reason: .sessionExpired)
                }
                return .failure(error)
            }
            do {
                answer = try await redeemer.redeem(
                    refreshToken: Secret(stored), scopes: scopes, claims: claims, account: current,
                    correlationId: correlationId)
            } catch let retryError {
                if retryError.isRefreshTokenExpired, generation == self.generation {
                    _ = await signOut(identifier: identifier, reason: .sessionExpired)
                }
                return .failure(retryError)
            }
        }
        guard generation == self.generation, var updated = record else {
            return .failure(RetrieveAccessTokenError(.noAccount, correlationId: correlationId))
        }
        // A refresh never changes whose account it is: an answer for someone else, or an ID token
        // that cannot be read, is refused and nothing of it is stored.
        let identity = Self.checkIdentity(answer, record: updated)
        if let problem = identity.problem {
            log(.error, "refresh answer refused", ["problem": problem], correlationId: correlationId)
            return .failure(
                RetrieveAccessTokenError(
                    details: .init(.accountMismatch, correlationId: correlationId, note: problem)))
        }
        noteServerDate(answer.serverDate)
        if let rotated = answer.refreshToken { updated.refreshToken = rotated.reveal }
        if let idToken = answer.idToken { updated.replaceIDToken(idToken.reveal, claims: identity.claims) }
        let cached = cachedToken(from: answer, requested: scopes)
        updated.accessTokens[key] = cached
        record = updated
        // The rotated refresh token is stored before the new access token is handed out.
        await save(updated)
        log(.info, "token refreshed", correlationId: correlationId)
        events.publish(.tokenRefreshed(updated.account, scopes: cached.scopes, expiresOn: cached.expiresOn))
        return .success(TokenResult(accessToken: cached.token, expiresOn: cached.expiresOn, scopes: cached.scopes))
    }

    /// Why a refresh answer cannot belong to the account of `record` (`nil` when it can), and the
    /// claims of the answer's new ID token, decoded once.
    static func checkIdentity(_ answer: TokenAnswer, record: AccountRecord) -> (problem: String?, claims: Claims?) {
        let old = record.claims
        var claims = old
        var newClaims: Claims?
        if let idToken = answer.idToken {
            guard let payload = JWT.payload(of: idToken.reveal) else {
                return ("The new ID token cannot be read.", nil)
            }
            claims = Claims(payload)
            newClaims = claims
            for (name, before, after) in [
                ("sub", old.subject, claims.subject), ("oid", old.objectId, claims.objectId),
                ("tid", old.tenantId, claims.tenantId),
            ] {
                if let before, !before.isEmpty, before != after {
                    return ("The new ID token's '\(name)' is not the signed-in account's.", nil)
                }
            }
        }
        let identifier = identifier(clientInfo: answer.clientInfo, claims: claims, username: record.username)
        guard identifier == record.identifier else { return ("The answer is for another account.", nil) }
        return (nil, newClaims)
    }

    /// Follows what another client (or process) did to the store: when the account was signed out
    /// or another user signed in there, this client follows instead of writing the old account
    /// back; when the refresh token was rotated there, the store's copy is taken, keeping our
    /// cached access tokens the store does not have.
    private func adoptNewerStoredRecord(generation: Int) async {
        // An unreadable store tells nothing; ours stays (and a failed write of ours is retried).
        guard !needsSave, let stored = try? await readStore(unchangedIfSame: true) else { return }
        guard generation == self.generation, let current = record else { return }
        let storedRecord: AccountRecord
        switch stored {
        case .unchanged:
            return
        case .unusable:
            // Our copy heals the damaged one.
            await save(current)
            return
        case .absent:
            record = nil
            self.generation += 1
            log(.info, "signed out by another client on the same store")
            events.publish(.signedOut(current.account, reason: .requested))
            return
        case .record(let record):
            storedRecord = record
        }
        guard storedRecord.identifier == current.identifier else {
            record = storedRecord
            self.generation += 1
            log(.info, "replaced by a sign-in from another client on the same store")
            events.publish(.signedOut(current.account, reason: .requested))
            return
        }
        guard storedRecord.refreshToken != current.refreshToken else { return }
        var merged = storedRecord
        merged.accessTokens.merge(current.accessTokens) { storedToken, ours in
            storedToken.expiresOn >= ours.expiresOn ? storedToken : ours
        }
        record = merged
        publishSnapshot()
        log(.debug, "adopted credentials rotated by another client")
    }

    private func noteServerDate(_ serverDate: Date?) {
        guard let serverDate else { return }
        serverClockOffset = serverDate.timeIntervalSince(clock.now())
    }

    private func cachedToken(from answer: TokenAnswer, requested: [String]) -> AccountRecord.CachedAccessToken {
        let now = clock.now()
        let lifetime: TimeInterval
        if let expiresIn = answer.expiresIn {
            // Relative to our clock on receipt: immune to any skew between the clocks.
            lifetime = TimeInterval(expiresIn)
        } else if let exp = Claims(JWT.payload(of: answer.accessToken.reveal) ?? [:]).expiresAt {
            // The token's absolute expiry is on the server's clock: correct it by the measured skew.
            lifetime = min(
                exp.timeIntervalSince(now.addingTimeInterval(serverClockOffset)),
                TimeInterval(TokenAnswer.maximumLifetime))
        } else {
            lifetime = 0
        }
        let scopes = answer.scopes.isEmpty ? requested : answer.scopes
        return .init(
            token: answer.accessToken.reveal, expiresOn: now.addingTimeInterval(max(0, lifetime)), scopes: scopes)
    }

    static func identifier(clientInfo: String?, claims: Claims, username: String) -> String {
        if let clientInfo, let data = Base64URL.decode(clientInfo), let info = try? JSONValue.parse(data),
            let uid = info["uid"]?.stringValue, let utid = info["utid"]?.stringValue, !uid.isEmpty, !utid.isEmpty
        {
            return "\(uid).\(utid)"
        }
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        if let oid = nonEmpty(claims.objectId) { return nonEmpty(claims.tenantId).map { "\(oid).\($0)" } ?? oid }
        return nonEmpty(claims.subject) ?? username.lowercased()
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

extension AccountRecord {
    var account: Account { Account(username: username, identifier: identifier, claims: claims) }
}
