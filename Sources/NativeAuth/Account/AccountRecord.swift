import Foundation

/// What is stored for the signed-in account, in the SDK's own versioned format.
struct AccountRecord: Codable, Sendable, Equatable {
    static let currentVersion = 1

    var version: Int = AccountRecord.currentVersion
    /// A stable identifier: `uid.utid` from client_info, or `oid.tid` from the ID token.
    var identifier: String
    var username: String
    /// The ID token; its claims are decoded once, when it is set.
    private(set) var idToken: String
    /// The claims of ``idToken``.
    private(set) var claims: Claims
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

    init(
        identifier: String, username: String, idToken: String, claims: Claims? = nil, refreshToken: String?,
        signInScopes: [String], accessTokens: [String: CachedAccessToken]
    ) {
        self.identifier = identifier
        self.username = username
        self.idToken = idToken
        self.claims = claims ?? Claims(JWT.payload(of: idToken) ?? [:])
        self.refreshToken = refreshToken
        self.signInScopes = signInScopes
        self.accessTokens = accessTokens
    }

    /// Replaces the ID token; `claims`, when given, are its already decoded claims.
    mutating func replaceIDToken(_ token: String, claims: Claims? = nil) {
        idToken = token
        self.claims = claims ?? Claims(JWT.payload(of: token) ?? [:])
    }

    private enum CodingKeys: String, CodingKey {
        case version, identifier, username, idToken, refreshToken, signInScopes, accessTokens
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            identifier: try container.decode(String.self, forKey: .identifier),
            username: try container.decode(String.self, forKey: .username),
            idToken: try container.decode(String.self, forKey: .idToken),
            refreshToken: try container.decodeIfPresent(String.self, forKey: .refreshToken),
            signInScopes: try container.decode([String].self, forKey: .signInScopes),
            accessTokens: try container.decode([String: CachedAccessToken].self, forKey: .accessTokens))
        version = try container.decode(Int.self, forKey: .version)
    }

    /// The cache key of a scope set: sorted, de-duplicated, without the OpenID defaults.
    static func scopeKey(_ scopes: [String]) -> String {
        Set(scopes.flatMap { $0.split(separator: " ").map { String($0).lowercased() } })
            .subtracting(RequestBuilder.defaultScopes)
            .sorted()
            .joined(separator: " ")
    }
}
