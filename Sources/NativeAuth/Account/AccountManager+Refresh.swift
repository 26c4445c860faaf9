import Foundation

/// Refreshing an account's tokens, and following what other clients on the same store did.
extension AccountManager {
    /// Refreshes with the newest refresh token: the store's copy wins when another client (or
    /// process) on the same store rotated it since this one last read it.
    func refresh(key: String, scopes: [String], claims: String?, generation: Int) async -> Result<
        TokenResult, RetrieveAccessTokenError
    > {
        let correlationId = UUID()
        guard !Task.isCancelled else {
            return .failure(RetrieveAccessTokenError(.cancelled, correlationId: correlationId))
        }
        await adoptNewerStoredRecord(generation: generation)
        // What the refresh needs of the record, taken so that no copy of the record (and of its
        // token cache) outlives this block: the record is then changed in place.
        let identifier: String
        let refreshToken: String
        let redeemed: AccountRecord
        do {
            guard generation == self.generation, let current = record else {
                return .failure(RetrieveAccessTokenError(.noAccount, correlationId: correlationId))
            }
            identifier = current.identifier
            guard let token = current.refreshToken else {
                // Without a refresh token the account can never get a new access token: sign it out.
                _ = await signOut(identifier: identifier, reason: .sessionExpired)
                return .failure(
                    RetrieveAccessTokenError(
                        .refreshTokenExpired, correlationId: correlationId, note: "No refresh token is stored."))
            }
            refreshToken = token
            var slim = current
            slim.accessTokens = [:]
            redeemed = slim
        }
        var answer: TokenAnswer
        // Redeemed at most twice, through one call: another client on the same store may have
        // rotated the token, so a refused one is tried once more with the stored one.
        var presented = refreshToken
        var retried = false
        while true {
            do {
                answer = try await redeemer.redeem(
                    refreshToken: Secret(presented), scopes: scopes, claims: claims, account: redeemed,
                    correlationId: correlationId)
                break
            } catch {
                guard error.isRefreshTokenExpired else { return .failure(error) }
                if !retried {
                    await adoptNewerStoredRecord(generation: generation)
                    if generation == self.generation, let stored = record?.refreshToken, stored != refreshToken {
                        presented = stored
                        retried = true
                        continue
                    }
                }
                if generation == self.generation {
                    if !retried { log(.warning, "refresh token refused; signing out", correlationId: correlationId) }
                    _ = await signOut(identifier: identifier, reason: .sessionExpired)
                }
                return .failure(error)
            }
        }
        guard generation == self.generation, let identity = record.map({ Self.checkIdentity(answer, record: $0) })
        else {
            return .failure(RetrieveAccessTokenError(.noAccount, correlationId: correlationId))
        }
        // A refresh never changes whose account it is: an answer for someone else, or an ID token
        // that cannot be read, is refused and nothing of it is stored.
        if let problem = identity.problem {
            log(.error, "refresh answer refused", ["problem": problem], correlationId: correlationId)
            return .failure(
                RetrieveAccessTokenError(
                    details: .init(.accountMismatch, correlationId: correlationId, note: problem)))
        }
        noteServerDate(answer.serverDate)
        let cached = cachedToken(from: answer, requested: scopes)
        // When the snapshot showed the record until now, this refresh's token is all it lacks.
        let snapshotDelta: Set<String>? = publishedVersion == recordVersion ? [key] : nil
        record?.applyRefresh(
            refreshToken: answer.refreshToken?.reveal, idToken: answer.idToken?.reveal, claims: identity.claims,
            scopeKey: key, token: cached, authSession: answer.authSession?.reveal)
        guard let updated = record else {
            return .failure(RetrieveAccessTokenError(.noAccount, correlationId: correlationId))
        }
        // The rotated refresh token is stored before the new access token is handed out.
        await save(updated, changed: [key], snapshotDelta: snapshotDelta)
        log(.info, "token refreshed", correlationId: correlationId)
        events.publish(.tokenRefreshed(updated.account, scopes: cached.scopes, expiresOn: cached.expiresOn))
        return .success(TokenResult(accessToken: cached.token, expiresOn: cached.expiresOn, scopes: cached.scopes))
    }

    /// Keeps `rotated` in place of `redeemed`, the refresh token a refused refresh answer replaced
    /// at the provider, when the account still holds `redeemed`; nothing else of the answer is kept.
    func keepRotatedRefreshToken(_ rotated: Secret, replacing redeemed: Secret) async {
        guard var updated = record, updated.refreshToken == redeemed.reveal else { return }
        updated.refreshToken = rotated.reveal
        record = updated
        await save(updated)
        log(.info, "kept the refresh token of a refused refresh answer")
    }

    /// Follows what another client (or process) did to the store: when the account was signed out
    /// or another user signed in there, this client follows instead of writing the old account
    /// back; when the refresh token was rotated there, the store's copy is taken, keeping our
    /// cached access tokens the store does not have.
    func adoptNewerStoredRecord(generation: Int) async {
        // An unreadable store tells nothing; ours stays (and a failed write of ours is retried).
        guard !needsSave, let stored = try? await accountStore.readAccount(unchangedIfSame: true) else { return }
        guard generation == self.generation, let current = record else { return }
        var storedRecord: AccountRecord
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
        let original = storedRecord
        let sessionChanged = storedRecord.session == nil || storedRecord.session != current.session
        if storedRecord.session == nil { storedRecord.session = UUID().uuidString }
        guard storedRecord.identifier == current.identifier else {
            record = storedRecord
            self.generation += 1
            log(.info, "replaced by a sign-in from another client on the same store")
            events.publish(.signedOut(current.account, reason: .requested))
            await accountStore.adopt(original)
            return
        }
        guard storedRecord.refreshToken != current.refreshToken || sessionChanged else { return }
        var merged = storedRecord
        for (key, ours) in current.accessTokens {
            if let storedToken = merged.accessTokens[key], storedToken.expiresOn >= ours.expiresOn { continue }
            merged.setAccessToken(ours, forKey: key)
        }
        record = merged
        publishSnapshot()
        if sessionChanged { await accountStore.adopt(original) }
        log(.debug, "adopted credentials rotated by another client")
    }

    func noteServerDate(_ serverDate: Date?) {
        guard let serverDate else { return }
        serverClockOffset = serverDate.timeIntervalSince(clock.now())
    }
}
