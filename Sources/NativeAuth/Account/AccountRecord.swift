import Foundation

/// What is stored for the signed-in account, in the SDK's own versioned format.
struct AccountRecord: Codable, Sendable, Equatable {
    static let currentVersion = 1

    var version: Int = AccountRecord.currentVersion
    /// A stable identifier: `uid.utid` from client_info, or `oid.tid` from the ID token.
    var identifier: String
    var username: String
    var idToken: String
    var refreshToken: String?
    /// The scopes asked for at sign-in (without the OpenID defaults).
    var signInScopes: [String]
    /// Cached access tokens by scope key.
    var accessTokens: [String: CachedAccessToken]

    struct CachedAccessToken: Codable, Sendable, Equatable {
        var token: String
        var expiresOn: Date
        var scopes: [String]
    }

    var claims: Claims { Claims(JWT.payload(of: idToken) ?? [:]) }

    /// The cache key of a scope set: sorted, de-duplicated, without the OpenID defaults.
    static func scopeKey(_ scopes: [String]) -> String {
        Set(scopes.flatMap { $0.split(separator: " ").map { String($0).lowercased() } })
            .subtracting(RequestBuilder.defaultScopes)
            .sorted()
            .joined(separator: " ")
    }
}
