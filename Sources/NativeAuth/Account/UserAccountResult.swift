import Foundation

/// A signed-in account: its claims and ID token, fresh access tokens on demand, and sign-out.
public final class UserAccountResult: Sendable, CustomStringConvertible {
    /// The user.
    public let account: Account
    /// The raw ID token (a secret: keep it out of logs).
    public let idToken: String
    let manager: AccountManager

    init(record: AccountRecord, manager: AccountManager) {
        account = record.account
        idToken = record.idToken
        self.manager = manager
    }

    /// Returns an access token for `scopes`: the cached one while it stays valid for longer than
    /// the configuration's `tokenRefreshMargin`, otherwise a new one from the refresh token.
    ///
    /// Concurrent calls for the same scopes share one refresh.
    ///
    /// - Parameters:
    ///   - scopes: the scopes the token must carry; empty means the scopes asked for at sign-in.
    ///   - forceRefresh: `true` to refresh even when a cached token is valid.
    /// - Throws: ``RetrieveAccessTokenError``; ``RetrieveAccessTokenError/isRefreshTokenExpired``
    ///   means the user must sign in again (the account was signed out).
    public func getAccessToken(scopes: [String] = [], forceRefresh: Bool = false) async throws(RetrieveAccessTokenError)
        -> TokenResult
    {
        try await manager.accessToken(for: account.identifier, scopes: scopes, forceRefresh: forceRefresh)
    }

    /// Signs the account out: removes its credentials from the credential store and the cache.
    @discardableResult
    public func signOut() async -> SignOutResult {
        await manager.signOut(identifier: account.identifier)
    }

    /// The account's description; no token is shown.
    public var description: String { "UserAccountResult(\(account))" }
}
