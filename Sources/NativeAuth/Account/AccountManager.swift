import Foundation

/// Owns the signed-in account of one client: its sign-in, refreshes and sign-out, and following
/// what other clients on the same store do. Its items in the credential store are read and
/// written by an ``AccountStore``; concurrent refreshes are shared by a ``RefreshCoalescer``.
///
/// Guarantees: a rotated refresh token is written to the store before the new access token is
/// handed out; a network or server failure never removes credentials; only a refused refresh
/// token (or a sign-out) does; a store that cannot be read is an error, never a sign-out.
actor AccountManager {
    let accountStore: AccountStore
    let coalescer: RefreshCoalescer
    /// Where refresh tokens are redeemed: the native token endpoint, or a web provider's.
    let redeemer: any RefreshRedeemer
    /// The transport for `account.send`.
    nonisolated var transport: any HTTPTransport { redeemer.transport }
    let clock: any NativeAuthClock
    /// Asks the person before a refresh, when the configuration says so.
    nonisolated let presence: UserPresenceGate
    private let margin: TimeInterval
    let log: Log
    let events: SessionEventHub
    /// DPoP's keys and nonces, for a client that binds its tokens to a key (RFC 9449).
    let dpop: DPoPContext?

    var record: AccountRecord? {
        didSet {
            recordVersion &+= 1
            snapshot.invalidate()
        }
    }
    /// Bumped by every change of `record`: a save publishes the snapshot only when the record it
    /// wrote is still the current one.
    var recordVersion = 0
    /// The `recordVersion` the snapshot last served: when it is the current one, the snapshot
    /// shows the record in memory and the store holds it.
    var publishedVersion = -1
    /// The token cache as last written to the store, read without entering the actor.
    private nonisolated let snapshot = TokenCacheSnapshot()
    private var loaded = false
    /// Bumped by every sign-in and sign-out, so that a refresh started for an earlier account
    /// cannot write into a later one (nor be joined by a caller of the later one).
    var generation = 0
    /// Accounts signed out whose credentials the store failed to remove: the next sign-out retries.
    private var pendingRemovals: Set<String> = []
    /// The record in memory is newer than the store's copy (a write failed): retried on every use.
    var needsSave = false {
        didSet { if needsSave { snapshot.invalidate() } }
    }
    /// The server's clock minus ours, from the `Date` header of the last token answer.
    var serverClockOffset: TimeInterval = 0

    init(
        configuration: NativeAuthConfiguration, store: any CredentialStore, redeemer: any RefreshRedeemer, log: Log,
        events: SessionEventHub
    ) {
        self.init(
            clientId: configuration.clientId, clock: configuration.clock, margin: configuration.tokenRefreshMargin,
            userPresence: configuration.userPresence, store: store, redeemer: redeemer, log: log, events: events)
    }

    init(
        clientId: String, clock: any NativeAuthClock, margin: TimeInterval,
        userPresence: UserPresenceRequirement? = nil,
        store: any CredentialStore, redeemer: any RefreshRedeemer, log: Log, events: SessionEventHub,
        storeKey: String? = nil, dpop: DPoPContext? = nil
    ) {
        accountStore = AccountStore(store: store, key: storeKey ?? "nativeauth.account.\(clientId)", log: log)
        coalescer = RefreshCoalescer(log: log)
        presence = UserPresenceGate(requirement: userPresence, clock: clock)
        self.redeemer = redeemer
        self.clock = clock
        self.margin = margin.isFinite ? min(max(0, margin), 86_400) : 300
        self.log = log
        self.events = events
        self.dpop = dpop
    }

    // MARK: Loading and saving

    /// The stored account, read from the store once: its account item and index, no token item.
    func current() async throws(CredentialStoreError) -> AccountRecord? {
        if loaded { return record }
        let stored = try await accountStore.readAccount()
        // A sign-in may have finished while the store was being read.
        if loaded { return record }
        if case .record(var stored) = stored, !pendingRemovals.contains(stored.identifier) {
            await accountStore.adopt(stored)
            if loaded { return record }
            // A format 1 record gets its session now; it is rewritten in the new layout at the
            // first write.
            if stored.session == nil { stored.session = UUID().uuidString }
            record = stored
        }
        loaded = true
        publishSnapshot()
        return record
    }

    /// Whether a store write (a save, a sign-in's replace, a sign-out's removal) is under way, and
    /// the writes waiting for their turn. A save takes several store calls; a sign-out or a new
    /// sign-in run between them on this actor must not be followed by the rest of an older save.
    var storeBusy = false
    var storeWaiters: [CheckedContinuation<Void, Never>] = []

    /// Stores `record`; `changed` names the scope sets whose token changed. Nothing is written when
    /// the account was signed out or replaced (its generation passed) while the save waited.
    /// `snapshotDelta`, when given, names every token that changed since the snapshot last
    /// matched the record: the snapshot then updates those only.
    @discardableResult
    func save(
        _ record: AccountRecord, changed: Set<String> = [], snapshotDelta: Set<String>? = nil
    ) async -> Bool {
        let expected = generation
        await beginStoreWrite()
        defer { endStoreWrite() }
        guard expected == generation else { return false }
        let version = recordVersion
        do {
            try await accountStore.save(record, changed: changed)
            needsSave = false
            if version == recordVersion { publishSnapshot(changed: snapshotDelta) }
            return true
        } catch {
            needsSave = true
            log(.error, "credential store unwritable; kept in memory", errorType(error))
            return false
        }
    }

    /// Retries the failed write of `record` when there was one.
    private func saveIfNeeded(_ record: AccountRecord) async {
        if needsSave { await save(record) }
    }

    // MARK: Sign-in and sign-out

    /// Records a new sign-in from a token answer, replacing any earlier account.
    func signedIn(
        _ answer: TokenAnswer, username: String, scopes: [String], correlationId: UUID, dpopKey: Data? = nil
    ) async -> AccountRecord {
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
            accessTokens: [key: cachedToken(from: answer, requested: scopes)], session: UUID().uuidString,
            dpopKey: dpopKey, authSession: answer.authSession?.reveal)
        let replacedKey = record?.dpopKey
        generation += 1
        record = newRecord
        loaded = true
        // The new sign-in replaces whatever the store held: earlier failed removals are moot, and
        // retrying one later must not delete this account.
        pendingRemovals = []
        let version = recordVersion
        await beginStoreWrite()
        defer { endStoreWrite() }
        do {
            try await accountStore.replace(with: newRecord)
            needsSave = false
            if version == recordVersion { publishSnapshot() }
        } catch {
            needsSave = true
            log(.error, "credential store unwritable; kept in memory", errorType(error))
        }
        log(.info, "signed in", correlationId: correlationId)
        events.publish(.signedIn(newRecord.account))
        if let replacedKey, replacedKey != dpopKey { await dpop?.forget(replacedKey) }
        return newRecord
    }

    func signOut(identifier: String, reason: SignOutReason = .requested) async -> SignOutResult {
        // Not under `if !loaded` (`current()` returns at once when loaded): an await under a
        // condition has the compiler copy what follows it.
        _ = try? await current()
        let signedOut = record?.identifier == identifier ? record : nil
        guard signedOut != nil || pendingRemovals.contains(identifier) else {
            return SignOutResult(removedFromStore: false, wasSignedIn: false)
        }
        if signedOut != nil {
            record = nil
            generation += 1
            needsSave = false
        }
        var removed = true
        await beginStoreWrite()
        defer { endStoreWrite() }
        do {
            try await accountStore.removeAll()
            pendingRemovals.remove(identifier)
        } catch {
            removed = false
            pendingRemovals.insert(identifier)
            log(
                .error, "credentials could not be removed from the store",
                errorType(error))
        }
        if let signedOut {
            log(.info, "signed out", ["reason": "\(reason)"])
            events.publish(.signedOut(signedOut.account, reason: reason))
            if let key = signedOut.dpopKey { await dpop?.forget(key) }
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
        _ = try? await current()
        let taken = record.flatMap { $0.identifier == identifier ? ($0.refreshToken, $0.idToken) : nil }
        return (await signOut(identifier: identifier), taken)
    }

    // MARK: Access tokens

    /// Publishes the record in memory to the snapshot; only when it is what the store holds.
    /// `changed`, when given, names every token that changed since the snapshot last matched the
    /// record (the caller knows), so that only those are copied.
    func publishSnapshot(changed: Set<String>? = nil) {
        guard let record, loaded, !needsSave else { return snapshot.publish(nil) }
        snapshot.publish(record, changed: changed)
        publishedVersion = recordVersion
    }

    /// The cached access token for `scopes` when one is valid beyond the margin (at most half of
    /// the token's lifetime: ``AccountRecord/CachedAccessToken/effectiveMargin(_:)``), without entering
    /// the actor; `nil` sends the caller to ``accessToken(for:scopes:forceRefresh:claims:)``.
    nonisolated func cachedAccessToken(for identifier: String, scopes: [String]) -> TokenResult? {
        snapshot.token(for: identifier, scopes: scopes, at: clock.now(), margin: margin)
    }

    /// `cached`, or when it is `nil` and `wanted`, the token of `key` from its token item, when it
    /// was not read yet; the record keeps it when it is still the account (`identifier`) and
    /// sign-in (`session`) the token was read for. The conditions are the callee's: an await under
    /// a condition has the compiler copy what follows it.
    private func loadToken(
        _ key: String, identifier: String, session: String?, unless cached: AccountRecord.CachedAccessToken?,
        wanted: Bool
    ) async -> AccountRecord.CachedAccessToken? {
        if let cached { return cached }
        guard wanted, let token = await accountStore.token(for: key, session: session) else { return nil }
        guard record?.session == session, record?.identifier == identifier else { return token }
        if let kept = record?.accessTokens[key] { return kept }
        // A token read from the store changes nothing the store lacks: the version stays, and the
        // snapshot serves it at once when it served the record before. Changed in place: a copy
        // of the cache per token read would cost as much as the cache is large.
        let version = recordVersion
        let served = publishedVersion == version
        record?.setAccessToken(token, forKey: key)
        recordVersion = version
        if served { publishSnapshot(changed: [key]) }
        return token
    }

    func accessToken(for identifier: String, scopes: [String], forceRefresh: Bool, claims: String? = nil)
        async throws(RetrieveAccessTokenError) -> TokenResult
    {
        let claims = try ClaimsRequest.validated(claims, correlationId: UUID(), as: RetrieveAccessTokenError.self)
        // What this call needs of the record, taken so that no copy of the record (and of its
        // token cache) is held while a refresh changes the record in place.
        let requested: [String]
        let key: String
        var cached: AccountRecord.CachedAccessToken?
        let session: String?
        let hasRefreshToken: Bool
        do {
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
            await saveIfNeeded(current)
            requested = scopes.isEmpty ? current.signInScopes : scopes
            key = AccountRecord.scopeKey(requested)
            cached = current.accessTokens[key]
            session = current.session
            hasRefreshToken = current.refreshToken != nil
        }
        cached = await loadToken(
            key, identifier: identifier, session: session, unless: cached, wanted: !forceRefresh && claims == nil)
        // A claims request always goes to the server: the cached token does not carry the claims.
        if !forceRefresh, claims == nil, let cached, cached.isValid(at: clock.now(), margin: margin) {
            return TokenResult(accessToken: cached.token, expiresOn: cached.expiresOn, scopes: cached.scopes)
        }
        // Refreshes with a claims request are shared only with callers asking for the same claims;
        // a refresh of an earlier sign-in is never joined.
        let generation = self.generation
        let flightKey = "\(generation)\u{0}" + (claims.map { key + "\u{0}" + $0 } ?? key)
        // Releasing the refresh token may need the person's confirmation first (not when there is
        // none to release: that refresh signs the account out).
        let confirm = presence.isActive && hasRefreshToken ? confirmPresence(session: session) : nil
        return try await coalescer.join(flightKey, account: accountStore.key + "\u{0}" + identifier, confirm: confirm) {
            await self.refresh(key: key, scopes: requested, claims: claims, generation: generation)
        }.get()
    }

}

extension AccountRecord {
    var account: Account { Account(username: username, identifier: identifier, claims: claims) }
}

/// Reflection shows nothing of the account's state: it is the actor's to read (a `Mirror` would read
/// it off the actor), and it holds the account's tokens.
extension AccountManager: CustomReflectable {
    nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
