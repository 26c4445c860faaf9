public import Foundation

/// A signed-in user: the username and the claims of the ID token.
public struct Account: Sendable, Equatable, CustomStringConvertible {
    /// The username the user signed in with (or `preferred_username` from the ID token).
    public let username: String
    /// A stable identifier for the account in this tenant.
    public let identifier: String
    /// The claims of the ID token.
    public let claims: Claims

    /// The username and identifier; claims and tokens are left out.
    public var description: String { "Account(username: \(username), identifier: \(identifier))" }
}

/// An access token and what it is good for.
public struct TokenResult: Sendable, Equatable, CustomStringConvertible {
    /// The access token, to send as `Authorization: Bearer …`.
    public let accessToken: String
    /// When the token expires, on the SDK's clock.
    public let expiresOn: Date
    /// The scopes the token was granted for.
    public let scopes: [String]

    /// Expiry and scopes; the token itself is never shown.
    public var description: String {
        "TokenResult(accessToken: <redacted>, expiresOn: \(expiresOn), scopes: \(scopes))"
    }
}

/// What ``UserAccountResult/signOut()`` did.
public struct SignOutResult: Sendable, Equatable {
    /// Whether the account's credentials were removed from the credential store.
    public let removedFromStore: Bool
    /// Whether the account was signed in when sign-out was asked for.
    public let wasSignedIn: Bool
}
