import AuthSupport
import Foundation

/// The token cache as last written to the store, read without entering the account's actor: a
/// cached `getAccessToken` is a lock and a hash lookup. Unusable until the store is read, while
/// the record in memory is newer than the store's copy, and after a sign-out.
final class TokenCacheSnapshot: Sendable {
    private struct State: Sendable {
        var usable = false
        var identifier = ""
        var signInKey = ""
        var tokens: [String: AccountRecord.CachedAccessToken] = [:]
        /// The token for the sign-in scopes (`tokens[signInKey]`), which a call without scopes
        /// (the most common one) gets without hashing anything.
        var signInToken: AccountRecord.CachedAccessToken?
        /// Scope keys of the scope lists callers asked for, so a repeated call computes none.
        var keys: [[String]: String] = [:]
        /// The token found for a scope list since the last publication: a repeated call hashes
        /// its list once.
        var resolved: [[String]: AccountRecord.CachedAccessToken] = [:]
    }

    private let state = Locked(State())

    /// Stops serving tokens until the next ``publish(_:)``.
    func invalidate() { state.withLock { $0.usable = false } }

    /// Serves the tokens of `record` (loaded so far); `nil` serves none. `changed`, when given,
    /// names every token of `record` that differs from what was last published (the caller
    /// vouches for it): only those are copied, so a refresh does not copy the whole cache.
    func publish(_ record: AccountRecord?, changed: Set<String>? = nil) {
        state.withLock { state in
            guard let record else {
                state.usable = false
                return
            }
            if let changed, state.identifier == record.identifier {
                for key in changed { state.tokens[key] = record.accessTokens[key] }
            } else {
                state.identifier = record.identifier
                state.signInKey = AccountRecord.scopeKey(record.signInScopes)
                state.tokens = record.accessTokens
            }
            state.signInToken = state.tokens[state.signInKey]
            state.resolved.removeAll(keepingCapacity: true)
            state.usable = true
        }
    }

    /// The cached token of `identifier` for `scopes`, valid at `now` beyond `margin` (at most half
    /// of its lifetime: ``AccountRecord/CachedAccessToken/isValid(at:margin:)``); `nil` otherwise.
    func token(for identifier: String, scopes: [String], at now: Date, margin: TimeInterval) -> TokenResult? {
        let found: (AccountRecord.CachedAccessToken?, Bool) = state.withLock { state in
            guard state.usable, state.identifier == identifier else { return (nil, true) }
            if scopes.isEmpty { return (state.signInToken, true) }
            if let token = state.resolved[scopes] { return (token, true) }
            guard let key = state.keys[scopes] else { return (nil, false) }
            let token = state.tokens[key]
            if let token, state.resolved.count < 1024 { state.resolved[scopes] = token }
            return (token, true)
        }
        if let token = found.0 {
            return token.isValid(at: now, margin: margin)
                ? TokenResult(accessToken: token.token, expiresOn: token.expiresOn, scopes: token.scopes) : nil
        }
        guard !found.1 else { return nil }
        // First call with this scope list: compute its key once, outside the lock.
        let key = AccountRecord.scopeKey(scopes)
        let token: AccountRecord.CachedAccessToken? = state.withLock { state in
            if state.keys.count >= 1024 { state.keys.removeAll(keepingCapacity: true) }
            state.keys[scopes] = key
            guard state.usable, state.identifier == identifier else { return nil }
            return state.tokens[key]
        }
        guard let token, token.isValid(at: now, margin: margin) else { return nil }
        return TokenResult(accessToken: token.token, expiresOn: token.expiresOn, scopes: token.scopes)
    }
}
