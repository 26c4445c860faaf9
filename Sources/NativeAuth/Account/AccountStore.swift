import Foundation

/// Reads and writes one client's account in its credential store, in the per-token layout of
/// ``AccountStoreLayout``, and migrates a format 1 record to it at the first write.
///
/// Owned by an ``AccountManager`` and run on its actor (every async method runs on the caller's
/// executor), so its state needs no lock of its own.
///
/// Write order, so that a crash between any two writes loses no usable credential and never
/// leaves the account unreadable:
/// - a refresh writes the index first when its scope set is new (so a sign-out finds the token
///   item), then the account item when it changed (a rotated refresh token is stored before
///   anything that depends on it), then the token item;
/// - a migration first rewrites the account item with every token still inline (the rotated
///   refresh token is safe at once), then the index, the token items, and last the account item
///   without the tokens that now have items;
/// - a sign-out removes the account item first (the account is gone for every reader), then the
///   token items, and the index last, so a retry still finds what is left.
///
/// A token item that is missing, damaged or of another session reads as no cached token.
final class AccountStore {
    let store: any CredentialStore
    /// The account item's key; the other items' keys derive from it.
    let key: String
    private let log: Log

    /// The account item's bytes as this client last wrote or read them.
    private var lastStored: Data?
    /// Item key by scope key, as last read or written, for ``indexSession``.
    private var index: [String: String] = [:]
    /// The session ``index`` belongs to; `nil` until the index could be read.
    private var indexSession: String?
    /// Scope keys whose token item was read (or found missing or damaged) since the index was.
    private var probed: Set<String> = []
    /// Items of an earlier account still to be removed.
    private var leftovers: Set<String> = []
    /// The account item still holds tokens that belong in token items (a format 1 record).
    private var needsLayout = false
    /// Scope keys whose token item could not be written yet.
    private var unsaved: Set<String> = []

    init(store: any CredentialStore, key: String, log: Log) {
        self.store = store
        self.key = key
        self.log = log
    }

    /// What the store holds for this client.
    /// Indirect: a value is one reference to its case's fields, so copying it, and the code
    /// that copies and destroys it, stay small.
    indirect enum StoredAccount {
        case absent
        /// Damaged, or written in a newer format: reported, and read as no account.
        case unusable
        case record(AccountRecord)
        /// The very bytes this client last wrote or read: nothing changed there.
        case unchanged
    }

    // MARK: Reading

    /// Reads and decodes the account item. A damaged or newer-format item is reported and read
    /// as no account (it stays in the store until a sign-in replaces it); an unreadable store
    /// throws.
    nonisolated(nonsending) func readAccount(unchangedIfSame: Bool = false)
        async throws(CredentialStoreError) -> StoredAccount
    {
        let data: Data?
        do {
            data = try await store.data(forKey: key)
        } catch {
            if error is CredentialStoreDamagedError || error is CredentialStoreVersionError {
                log(.error, "stored account cannot be read; ignored", errorType(error))
                lastStored = nil
                return .unusable
            }
            log(.error, "credential store unreadable", errorType(error))
            throw CredentialStoreError(error, isReadFailure: true)
        }
        guard let data else {
            lastStored = nil
            return .absent
        }
        if unchangedIfSame, data == lastStored { return .unchanged }
        do {
            let decoded = try AccountRecord(storedJSON: data)
            guard decoded.version <= AccountRecord.currentVersion else {
                log(.error, "stored account has a newer format; ignored", ["version": "\(decoded.version)"])
                lastStored = nil
                return .unusable
            }
            lastStored = data
            return .record(decoded)
        } catch {
            log(.error, "stored account is damaged; ignored", ["bytes": "\(data.count)"])
            lastStored = nil
            return .unusable
        }
    }

    /// Takes `record` as the account now in the store: reads its index (when it has one) and
    /// notes whether it still needs rewriting in this layout. Reads no token item.
    nonisolated(nonsending) func adopt(_ record: AccountRecord) async {
        index = [:]
        indexSession = nil
        probed = []
        unsaved = []
        let signInKey = AccountRecord.scopeKey(record.signInScopes)
        needsLayout =
            record.version < AccountRecord.currentVersion || record.session == nil
            || record.accessTokens.keys.contains { $0 != signInKey }
        guard let session = record.session else { return }
        let stored = await readIndex()
        if let stored, stored.session != session {
            leftovers.formUnion(stored.tokens.values)
        } else if let stored {
            index = stored.tokens
        }
        if stored != nil || !indexReadFailed { indexSession = session }
    }

    private var indexReadFailed = false

    /// The stored index, `nil` when there is none, it is damaged, or the store cannot be read.
    nonisolated(nonsending) private func readIndex() async -> AccountStoreLayout.Index? {
        indexReadFailed = false
        let data: Data?
        do {
            data = try await store.data(forKey: AccountStoreLayout.indexKey(key))
        } catch {
            indexReadFailed = true
            log(.warning, "token index unreadable", errorType(error))
            return nil
        }
        guard let data else { return nil }
        guard let index = AccountStoreLayout.index(from: data, accountKey: key) else {
            log(.warning, "token index damaged; ignored", ["bytes": "\(data.count)"])
            return nil
        }
        return index
    }

    /// The stored access token of `scopeKey` in the sign-in `session` when it has not been read
    /// yet: `nil` when there is none, or it is damaged, of another session, or cannot be read (a refresh follows).
    nonisolated(nonsending) func token(for scopeKey: String, session: String?) async
        -> AccountRecord.CachedAccessToken?
    {
        guard let session, !probed.contains(scopeKey) else { return nil }
        if indexSession == session, index[scopeKey] == nil {
            probed.insert(scopeKey)
            return nil
        }
        let itemKey = index[scopeKey] ?? AccountStoreLayout.tokenKey(key, scopeKey: scopeKey)
        let data: Data?
        do {
            data = try await store.data(forKey: itemKey)
        } catch {
            log(.warning, "cached token unreadable; refreshing", errorType(error))
            return nil
        }
        probed.insert(scopeKey)
        guard let data else { return nil }
        guard let token = AccountStoreLayout.token(from: data, session: session, scopeKey: scopeKey) else {
            log(.warning, "cached token damaged or stale; refreshing", ["bytes": "\(data.count)"])
            return nil
        }
        return token
    }

    // MARK: Writing

    /// Stores `record` after a change of the account or of the tokens of `changed` (scope keys).
    /// Writes only what changed: the account item when its bytes differ, the index when a scope
    /// set is new, and the token items of `changed` (and of earlier failed writes).
    /// - Throws: the store's error; what was not written is written at the next save.
    nonisolated(nonsending) func save(
        _ record: AccountRecord, changed: Set<String> = []
    ) async throws {
        guard let session = record.session else { return }
        let signInKey = AccountRecord.scopeKey(record.signInScopes)
        var pending = unsaved.union(changed)
        if needsLayout { for scopeKey in record.accessTokens.keys { pending.insert(scopeKey) } }
        for scopeKey in pending where scopeKey == signInKey || record.accessTokens[scopeKey] == nil {
            pending.remove(scopeKey)
        }
        unsaved = pending
        let inline = record.accessTokens[signInKey].map { [signInKey: $0] } ?? [:]
        // Two straight sequences of writes (an await under a condition had the compiler copy the
        // writes after it).
        guard needsLayout else {
            let listed = try await writeIndex(adding: pending, session: session)
            try await writeAccount(record, inline: inline)
            try await writeTokens(of: record, pending, session: session)
            // The tokens not listed stay in memory until a later save can read the index.
            guard listed else { throw IndexUnreadable() }
            return
        }
        // A format 1 record: everything inline first, so the newest refresh token is stored
        // before anything else.
        try await writeAccount(record, inline: nil)
        let listed = try await writeIndex(adding: pending, session: session)
        try await writeTokens(of: record, pending, session: session)
        // The tokens not listed stay in memory and inline until a later save can read the index.
        guard listed else { throw IndexUnreadable() }
        // Last: the tokens now in items leave the account item.
        try await writeAccount(record, inline: inline)
        needsLayout = false
    }

    /// Writes the token items of `scopeKeys` that the index lists.
    nonisolated(nonsending) private func writeTokens(
        of record: AccountRecord, _ scopeKeys: Set<String>, session: String
    )
        async throws
    {
        for scopeKey in ascending(Array(scopeKeys)) {
            // A token item is written only once the index lists it, so that a sign-out finds it.
            guard let token = record.accessTokens[scopeKey], indexSession == session, let itemKey = index[scopeKey]
            else { continue }
            let item = AccountStoreLayout.TokenItem(session: session, scopeKey: scopeKey, token: token)
            guard let data = AccountStoreLayout.encode(item) else { throw NotFiniteDate() }
            try await store.setData(data, forKey: itemKey)
            unsaved.remove(scopeKey)
            probed.insert(scopeKey)
        }
    }

    private struct NotFiniteDate: Error {}

    /// The stored index could not be read, so it was not rewritten: rewriting it blind would
    /// drop the items it lists, which a sign-out then could not find.
    private struct IndexUnreadable: Error {}

    /// Writes the account item with `inline` as its access tokens (all of them when `nil`),
    /// unless the store already holds exactly those bytes.
    nonisolated(nonsending) private func writeAccount(
        _ record: AccountRecord, inline: [String: AccountRecord.CachedAccessToken]?
    ) async throws {
        var record = record
        record.version = AccountRecord.currentVersion
        let data: Data
        if let encoded = record.encodedJSON(inline: inline) {
            data = encoded
        } else {
            if let inline { record.accessTokens = inline }
            data = try AccountStoreLayout.encoder.encode(record)
        }
        guard data != lastStored else { return }
        try await store.setData(data, forKey: key)
        lastStored = data
    }

    /// Writes the index with `adding` listed, keeping what another client on the store listed
    /// for the same session; items of an earlier account are removed once it is written. Writes
    /// nothing when the index is of `session` and lists `adding`, and no such items remain.
    /// - Returns: `false`, writing nothing, when the stored index cannot be read.
    nonisolated(nonsending) private func writeIndex(adding: Set<String>, session: String)
        async throws -> Bool
    {
        guard indexSession != session || adding.contains(where: { index[$0] == nil }) || !leftovers.isEmpty else {
            return true
        }
        let stored = await readIndex()
        guard !indexReadFailed else { return false }
        let tokens = listing(adding, session: session, stored: stored)
        let written = AccountStoreLayout.Index(session: session, tokens: tokens)
        try await store.setData(AccountStoreLayout.encode(written), forKey: AccountStoreLayout.indexKey(key))
        index = tokens
        if indexSession != session { probed = [] }
        indexSession = session
        leftovers.subtract(tokens.values)
        await removeLeftoverItems()
        return true
    }

    /// The index to write: what is known of `session` and what `stored` lists of it, with
    /// `adding`; the items `stored` lists of another session become leftovers. Its own function:
    /// inlined, it was copied into the resumption after the index read.
    private func listing(_ adding: Set<String>, session: String, stored: AccountStoreLayout.Index?)
        -> [String: String]
    {
        var tokens = indexSession == session ? index : [:]
        if let stored {
            if stored.session == session {
                for (scopeKey, itemKey) in stored.tokens where tokens[scopeKey] == nil { tokens[scopeKey] = itemKey }
            } else {
                leftovers.formUnion(stored.tokens.values)
            }
        }
        for scopeKey in adding where tokens[scopeKey] == nil {
            tokens[scopeKey] = AccountStoreLayout.tokenKey(key, scopeKey: scopeKey)
        }
        return tokens
    }

    /// Stores a new sign-in's account item, replacing whatever the store held, and removes the
    /// earlier account's token items and index.
    /// - Throws: when the account item cannot be written (the cleanup is tried regardless).
    nonisolated(nonsending) func replace(with record: AccountRecord) async throws {
        var earlier = leftovers.union(index.values)
        let stored = await readIndex()
        if let stored { earlier.formUnion(stored.tokens.values) }
        let hadIndex = stored != nil || !earlier.isEmpty
        index = [:]
        indexSession = record.session
        probed = []
        unsaved = []
        needsLayout = false
        leftovers = earlier
        var failure: (any Error)?
        do {
            let signInKey = AccountRecord.scopeKey(record.signInScopes)
            try await writeAccount(record, inline: record.accessTokens[signInKey].map { [signInKey: $0] } ?? [:])
        } catch {
            failure = error
        }
        if hadIndex { await removeLeftovers() }
        if let failure { throw failure }
    }

    /// Removes every item of the account: the account item first, then its token items and the
    /// index.
    /// - Throws: when any of them cannot be removed; a later call retries what is left.
    nonisolated(nonsending) func removeAll() async throws {
        try await store.removeData(forKey: key)
        lastStored = nil
        leftovers.formUnion(index.values)
        if let stored = await readIndex() { leftovers.formUnion(stored.tokens.values) }
        index = [:]
        indexSession = nil
        probed = []
        unsaved = []
        needsLayout = false
        guard await removeLeftovers() else { throw RemovalFailure() }
    }

    private struct RemovalFailure: Error {}

    /// Removes the leftover token items it can; those it cannot stay listed for a retry.
    nonisolated(nonsending) private func removeLeftoverItems() async {
        for item in leftovers {
            do {
                try await store.removeData(forKey: item)
                leftovers.remove(item)
            } catch {
                log(.error, "cached token could not be removed", errorType(error))
            }
        }
    }

    /// Removes the leftover token items, then the index once they are all gone and it was read;
    /// `true` when everything was removed. An index that could not be read stays, so that a
    /// retry finds the items it lists.
    @discardableResult
    nonisolated(nonsending) private func removeLeftovers() async -> Bool {
        await removeLeftoverItems()
        guard leftovers.isEmpty, !indexReadFailed else { return false }
        do {
            try await store.removeData(forKey: AccountStoreLayout.indexKey(key))
            return true
        } catch {
            return false
        }
    }
}

extension AccountStore: CustomReflectable {
    /// The item key only: what was last stored holds the account's tokens.
    var customMirror: Mirror { Mirror(self, children: ["key": key]) }
}

/// A log line's metadata naming an error's type only (its description may hold a secret). One
/// function for the account's log lines, rather than a dictionary built at each.
@inline(never)
func errorType(_ error: any Error) -> [String: String] { ["error": String(describing: type(of: error))] }
