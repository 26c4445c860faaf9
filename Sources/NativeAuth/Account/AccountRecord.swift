import Foundation

/// What is stored for the signed-in account, in the SDK's own versioned format.
///
/// Format 1 kept the whole record, every cached access token included, in one store item.
/// Format 2 (current) is the account item of the per-token layout (see ``AccountStore``): the
/// same fields, a ``session`` that binds the account's other items to it, and only the access
/// token of the sign-in scopes inline; other scope sets' tokens live in items of their own.
struct AccountRecord: Codable, Sendable, Equatable {
    static let currentVersion = 2

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
    /// Cached access tokens by scope key: in memory, those loaded so far; in a stored account
    /// item, those kept inline.
    var accessTokens: [String: CachedAccessToken]
    /// Random, new at every sign-in: the index and token items written for this sign-in carry it,
    /// so an item left over from an earlier account is never taken for one of this account's.
    /// `nil` in a format 1 record.
    var session: String?
    /// The stored form of the DPoP key the account's tokens are bound to (RFC 9449), as its
    /// ``DPoPKeyProvider`` made it; `nil` for bearer tokens. Every access token of the account is
    /// sent as `Authorization: DPoP` with a proof of this key.
    var dpopKey: Data?
    /// The enrolled biometry's state at the session's first confirmation of the person's presence
    /// (``UserPresenceConfirmation/biometryState``): a later confirmation reporting another state
    /// is refused. `nil` until then, and in every record written before there was one.
    var biometryState: Data?
    /// What produced ``biometryState`` (``UserPresenceConfirmation/systemVersion``), when the
    /// checker reported it: another version with another state is an OS update to confirm, not a
    /// change of the enrolled biometry to refuse.
    var biometrySystemVersion: String?
    /// The `auth_session` a first-party provider gave with the account's tokens (OAuth 2.0 for
    /// First-Party Applications §6.1), sent with the account's later requests to its authorization
    /// challenge endpoint (§5.3.1). A secret, like the refresh token. `nil` for every other
    /// account, and in every record written before there was one.
    var authSession: String?

    struct CachedAccessToken: Codable, Sendable, Equatable {
        var token: String
        var expiresOn: Date
        var scopes: [String]
        /// When the token was received, on the client's clock: with ``expiresOn`` it gives the
        /// token's lifetime, which bounds the refresh margin. `nil` in every record written before
        /// it was kept: such a token is held to the whole margin, as it was then.
        var issuedOn: Date? = nil

        /// The margin a token of this lifetime is held to: `margin`, but at most half of the
        /// lifetime (expiry − receipt), so that a token shorter than twice the margin is still
        /// handed out for half of its life rather than refreshed at every use.
        func effectiveMargin(_ margin: TimeInterval) -> TimeInterval {
            guard let issuedOn else { return margin }
            let lifetime = expiresOn.timeIntervalSince(issuedOn)
            guard lifetime.isFinite else { return margin }
            return min(margin, max(0, lifetime) / 2)
        }

        /// Whether the token may still be handed out at `now`: it expires after `now` plus the
        /// margin it is held to (``effectiveMargin(_:)``).
        func isValid(at now: Date, margin: TimeInterval) -> Bool {
            expiresOn > now.addingTimeInterval(effectiveMargin(margin))
        }
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

    /// Takes a refresh answer's credentials: the rotated refresh token, the new ID token and a new
    /// `auth_session` (§5.3.1: the client keeps the newest) when the answer has them, and the
    /// access token of `scopeKey`.
    mutating func applyRefresh(
        refreshToken: String?, idToken: String?, claims: Claims?, scopeKey: String, token: CachedAccessToken,
        authSession: String? = nil
    ) {
        if let refreshToken { self.refreshToken = refreshToken }
        if let authSession { self.authSession = authSession }
        if let idToken { replaceIDToken(idToken, claims: claims) }
        accessTokens[scopeKey] = token
    }

    private enum CodingKeys: String, CodingKey {
        case version, identifier, username, idToken, refreshToken, signInScopes, accessTokens, session, biometryState
        case dpopKey, authSession, biometrySystemVersion
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
        session = try container.decodeIfPresent(String.self, forKey: .session)
        dpopKey = try container.decodeIfPresent(Data.self, forKey: .dpopKey)
        biometryState = try container.decodeIfPresent(Data.self, forKey: .biometryState)
        biometrySystemVersion = try container.decodeIfPresent(String.self, forKey: .biometrySystemVersion)
        authSession = try container.decodeIfPresent(String.self, forKey: .authSession)
    }

    /// The cache key of a scope set: sorted, de-duplicated, without the OpenID defaults.
    static func scopeKey(_ scopes: [String]) -> String {
        ascending(
            Array(
                Set(scopes.flatMap { $0.split(separator: " ").map { String($0).lowercased() } })
                    .subtracting(RequestBuilder.defaultScopes))
        ).joined(separator: " ")
    }
}

/// Reflection shows who is signed in and what is cached, never a token, the stored DPoP key, the
/// `auth_session` or the biometry state: an allowlist, so a field added later is hidden until it
/// is listed here.
extension AccountRecord: CustomReflectable {
    var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "identifier": identifier, "username": username, "signInScopes": signInScopes,
                "cachedScopeKeys": accessTokens.keys.sorted(), "isDPoPBound": dpopKey != nil,
            ])
    }
}

extension AccountRecord.CachedAccessToken: CustomReflectable {
    /// The token's scopes and expiry, never the token.
    var customMirror: Mirror { Mirror(self, children: ["expiresOn": expiresOn, "scopes": scopes]) }
}
