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
    /// the configuration's `tokenRefreshMargin` (or half of the token's lifetime, when that is
    /// shorter), otherwise a new one from the refresh token.
    ///
    /// Concurrent calls for the same scopes share one refresh.
    ///
    /// - Parameters:
    ///   - scopes: the scopes the token must carry; empty means the scopes asked for at sign-in.
    ///   - forceRefresh: `true` to refresh even when a cached token is valid.
    /// - Throws: ``RetrieveAccessTokenError``; ``RetrieveAccessTokenError/isRefreshTokenExpired``
    ///   means the user must sign in again (the account was signed out);
    ///   ``RetrieveAccessTokenError/isInteractionRequired`` means the user must interact (the
    ///   account is kept).
    public func getAccessToken(scopes: [String] = [], forceRefresh: Bool = false) async throws(RetrieveAccessTokenError)
        -> TokenResult
    {
        if !forceRefresh, let cached = manager.cachedAccessToken(for: account.identifier, scopes: scopes) {
            return cached
        }
        return try await manager.accessToken(for: account.identifier, scopes: scopes, forceRefresh: forceRefresh)
    }

    /// Returns a new access token carrying a claims request, such as the authentication context
    /// a resource's claims challenge asked for. The cache is bypassed: a cached token does not
    /// carry the claims; the new token is cached for `scopes` as usual.
    ///
    /// - Parameters:
    ///   - scopes: the scopes the token must carry; empty means the scopes asked for at sign-in.
    ///   - forceRefresh: ignored when `claims` is given (a refresh always happens).
    ///   - claims: an OIDC claims request (a JSON object), sent as `claims` on the refresh.
    /// - Throws: ``RetrieveAccessTokenError``; ``RetrieveAccessTokenError/isInvalidClaims`` when
    ///   `claims` is not a JSON object (nothing is sent).
    public func getAccessToken(scopes: [String] = [], forceRefresh: Bool = false, claims: String?)
        async throws(RetrieveAccessTokenError) -> TokenResult
    {
        try await manager.accessToken(
            for: account.identifier, scopes: scopes, forceRefresh: forceRefresh, claims: claims)
    }

    /// Signs the account out: removes its credentials from the credential store and the cache.
    @discardableResult
    public func signOut() async -> SignOutResult {
        await manager.signOut(identifier: account.identifier)
    }

    /// The account's description; no token is shown.
    public var description: String { "UserAccountResult(\(account))" }
}
