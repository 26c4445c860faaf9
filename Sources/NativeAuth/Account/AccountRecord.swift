import Foundation

/// What is stored for the signed-in account, in the SDK's own versioned format.
///
/// Format 1 kept the whole record, every cached access token included, in one store item.
/// Format 2 (current) is the account item of the per-token layout (see ``AccountStore``): the
/// same fields, a ``session`` that binds the account's other items to it, and only the access
/// token of the sign-in scopes inline; other scope sets' tokens live in items of their own.
///
/// Its fields are kept in one instance, copied only when a shared record is changed: a record is
/// one reference to copy and destroy, where a struct of a dozen fields had its copies and
/// destroys compiled into every function that moves one.
struct AccountRecord: Codable, Sendable, Equatable {
    static let currentVersion = 2

    private final class Fields: @unchecked Sendable {
        // Sendable: an instance is changed only while its record holds the sole reference.
        var version: Int
        var identifier: String
        var username: String
        var idToken: String
        var claims: Claims
        var refreshToken: String?
        var signInScopes: [String]
        var accessTokens: [String: CachedAccessToken]
        var session: String?
        var dpopKey: Data?
        var biometryState: Data?
        var biometrySystemVersion: String?
        var authSession: String?

        init(
            identifier: String, username: String, idToken: String, claims: Claims, refreshToken: String?,
            signInScopes: [String], accessTokens: [String: CachedAccessToken], version: Int, session: String?,
            dpopKey: Data?, biometryState: Data?, biometrySystemVersion: String?, authSession: String?
        ) {
            self.identifier = identifier
            self.username = username
            self.idToken = idToken
            self.claims = claims
            self.refreshToken = refreshToken
            self.signInScopes = signInScopes
            self.accessTokens = accessTokens
            self.version = version
            self.session = session
            self.dpopKey = dpopKey
            self.biometryState = biometryState
            self.biometrySystemVersion = biometrySystemVersion
            self.authSession = authSession
        }

        func copy() -> Fields {
            Fields(
                identifier: identifier, username: username, idToken: idToken, claims: claims,
                refreshToken: refreshToken, signInScopes: signInScopes, accessTokens: accessTokens, version: version,
                session: session, dpopKey: dpopKey, biometryState: biometryState,
                biometrySystemVersion: biometrySystemVersion, authSession: authSession)
        }
    }

    private var fields: Fields

    /// The fields, for a change: copied first when another record shares them.
    private var unique: Fields {
        mutating get {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            return fields
        }
    }

    var version: Int {
        get { fields.version }
        set { unique.version = newValue }
    }
    /// A stable identifier: `uid.utid` from client_info, or `oid.tid` from the ID token.
    var identifier: String {
        get { fields.identifier }
        set { unique.identifier = newValue }
    }
    var username: String {
        get { fields.username }
        set { unique.username = newValue }
    }
    /// The ID token; its claims are decoded once, when it is set.
    var idToken: String { fields.idToken }
    /// The claims of ``idToken``.
    var claims: Claims { fields.claims }
    var refreshToken: String? {
        get { fields.refreshToken }
        set { unique.refreshToken = newValue }
    }
    /// The scopes asked for at sign-in (without the OpenID defaults).
    var signInScopes: [String] {
        get { fields.signInScopes }
        set { unique.signInScopes = newValue }
    }
    /// Cached access tokens by scope key: in memory, those loaded so far; in a stored account
    /// item, those kept inline.
    var accessTokens: [String: CachedAccessToken] {
        get { fields.accessTokens }
        set { unique.accessTokens = newValue }
    }
    /// Random, new at every sign-in: the index and token items written for this sign-in carry it,
    /// so an item left over from an earlier account is never taken for one of this account's.
    /// `nil` in a format 1 record.
    var session: String? {
        get { fields.session }
        set { unique.session = newValue }
    }
    /// The stored form of the DPoP key the account's tokens are bound to (RFC 9449), as its
    /// ``DPoPKeyProvider`` made it; `nil` for bearer tokens. Every access token of the account is
    /// sent as `Authorization: DPoP` with a proof of this key.
    var dpopKey: Data? {
        get { fields.dpopKey }
        set { unique.dpopKey = newValue }
    }
    /// The enrolled biometry's state at the session's first confirmation of the person's presence
    /// (``UserPresenceConfirmation/biometryState``): a later confirmation reporting another state
    /// is refused. `nil` until then, and in every record written before there was one.
    var biometryState: Data? {
        get { fields.biometryState }
        set { unique.biometryState = newValue }
    }
    /// What produced ``biometryState`` (``UserPresenceConfirmation/systemVersion``), when the
    /// checker reported it: another version with another state is an OS update to confirm, not a
    /// change of the enrolled biometry to refuse.
    var biometrySystemVersion: String? {
        get { fields.biometrySystemVersion }
        set { unique.biometrySystemVersion = newValue }
    }
    /// The `auth_session` a first-party provider gave with the account's tokens (OAuth 2.0 for
    /// First-Party Applications §6.1), sent with the account's later requests to its authorization
    /// challenge endpoint (§5.3.1). A secret, like the refresh token. `nil` for every other
    /// account, and in every record written before there was one.
    var authSession: String? {
        get { fields.authSession }
        set { unique.authSession = newValue }
    }

    /// Caches `token` under `scopeKey` in place: the cache is not copied when this record is its
    /// only holder.
    mutating func setAccessToken(_ token: CachedAccessToken, forKey scopeKey: String) {
        unique.accessTokens[scopeKey] = token
    }

    /// Keeps a confirmation's biometry state and the system version it came with, in one change.
    mutating func setBiometryState(_ state: Data, systemVersion: String?) {
        let fields = unique
        fields.biometryState = state
        fields.biometrySystemVersion = systemVersion
    }

    static func == (lhs: AccountRecord, rhs: AccountRecord) -> Bool {
        let l = lhs.fields
        let r = rhs.fields
        return l === r
            || (l.version == r.version && l.identifier == r.identifier && l.username == r.username
                && l.idToken == r.idToken && l.claims == r.claims && l.refreshToken == r.refreshToken
                && l.signInScopes == r.signInScopes && l.accessTokens == r.accessTokens && l.session == r.session
                && l.dpopKey == r.dpopKey && l.biometryState == r.biometryState
                && l.biometrySystemVersion == r.biometrySystemVersion && l.authSession == r.authSession)
    }

    /// Its fields are kept in one immutable instance, replaced when a field is set: a token is one
    /// reference to copy and destroy, in the caches and records that hold it.
    struct CachedAccessToken: Codable, Sendable, Equatable {
        private final class Fields: Sendable {
            let token: String
            let expiresOn: Date
            let scopes: [String]
            let issuedOn: Date?

            init(token: String, expiresOn: Date, scopes: [String], issuedOn: Date?) {
                self.token = token
                self.expiresOn = expiresOn
                self.scopes = scopes
                self.issuedOn = issuedOn
            }
        }

        private var fields: Fields

        init(token: String, expiresOn: Date, scopes: [String], issuedOn: Date? = nil) {
            fields = Fields(token: token, expiresOn: expiresOn, scopes: scopes, issuedOn: issuedOn)
        }

        var token: String {
            get { fields.token }
            set { self = .init(token: newValue, expiresOn: expiresOn, scopes: scopes, issuedOn: issuedOn) }
        }
        var expiresOn: Date {
            get { fields.expiresOn }
            set { self = .init(token: token, expiresOn: newValue, scopes: scopes, issuedOn: issuedOn) }
        }
        var scopes: [String] {
            get { fields.scopes }
            set { self = .init(token: token, expiresOn: expiresOn, scopes: newValue, issuedOn: issuedOn) }
        }
        /// When the token was received, on the client's clock: with ``expiresOn`` it gives the
        /// token's lifetime, which bounds the refresh margin. `nil` in every record written before
        /// it was kept: such a token is held to the whole margin, as it was then.
        var issuedOn: Date? {
            get { fields.issuedOn }
            set { self = .init(token: token, expiresOn: expiresOn, scopes: scopes, issuedOn: newValue) }
        }

        static func == (lhs: CachedAccessToken, rhs: CachedAccessToken) -> Bool {
            let l = lhs.fields
            let r = rhs.fields
            return l === r
                || (l.token == r.token && l.expiresOn == r.expiresOn && l.scopes == r.scopes
                    && l.issuedOn == r.issuedOn)
        }

        private enum CodingKeys: String, CodingKey {
            case token, expiresOn, scopes, issuedOn
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                token: try container.decode(String.self, forKey: .token),
                expiresOn: try container.decode(Date.self, forKey: .expiresOn),
                scopes: try container.decode([String].self, forKey: .scopes),
                issuedOn: try container.decodeIfPresent(Date.self, forKey: .issuedOn))
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(token, forKey: .token)
            try container.encode(expiresOn, forKey: .expiresOn)
            try container.encode(scopes, forKey: .scopes)
            try container.encodeIfPresent(issuedOn, forKey: .issuedOn)
        }

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

    /// A record of the given fields; those after `accessTokens` are rarely given but by a decoder,
    /// which passes them here rather than setting each on the new record.
    init(
        identifier: String, username: String, idToken: String, claims: Claims? = nil, refreshToken: String?,
        signInScopes: [String], accessTokens: [String: CachedAccessToken], version: Int = currentVersion,
        session: String? = nil, dpopKey: Data? = nil, biometryState: Data? = nil,
        biometrySystemVersion: String? = nil, authSession: String? = nil
    ) {
        fields = Fields(
            identifier: identifier, username: username, idToken: idToken,
            claims: claims ?? Claims(JWT.payload(of: idToken) ?? [:]), refreshToken: refreshToken,
            signInScopes: signInScopes, accessTokens: accessTokens, version: version, session: session,
            dpopKey: dpopKey, biometryState: biometryState, biometrySystemVersion: biometrySystemVersion,
            authSession: authSession)
    }

    /// Replaces the ID token; `claims`, when given, are its already decoded claims.
    mutating func replaceIDToken(_ token: String, claims: Claims? = nil) {
        let fields = unique
        fields.idToken = token
        fields.claims = claims ?? Claims(JWT.payload(of: token) ?? [:])
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
        setAccessToken(token, forKey: scopeKey)
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
            accessTokens: try container.decode([String: CachedAccessToken].self, forKey: .accessTokens),
            version: try container.decode(Int.self, forKey: .version),
            session: try container.decodeIfPresent(String.self, forKey: .session),
            dpopKey: try container.decodeIfPresent(Data.self, forKey: .dpopKey),
            biometryState: try container.decodeIfPresent(Data.self, forKey: .biometryState),
            biometrySystemVersion: try container.decodeIfPresent(String.self, forKey: .biometrySystemVersion),
            authSession: try container.decodeIfPresent(String.self, forKey: .authSession))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(identifier, forKey: .identifier)
        try container.encode(username, forKey: .username)
        try container.encode(idToken, forKey: .idToken)
        try container.encodeIfPresent(refreshToken, forKey: .refreshToken)
        try container.encode(signInScopes, forKey: .signInScopes)
        try container.encode(accessTokens, forKey: .accessTokens)
        try container.encodeIfPresent(session, forKey: .session)
        try container.encodeIfPresent(dpopKey, forKey: .dpopKey)
        try container.encodeIfPresent(biometryState, forKey: .biometryState)
        try container.encodeIfPresent(biometrySystemVersion, forKey: .biometrySystemVersion)
        try container.encodeIfPresent(authSession, forKey: .authSession)
    }

    /// The cache key of a scope set: sorted, de-duplicated, without the OpenID defaults.
    static func scopeKey(_ scopes: [String]) -> String {
        var names = Set<String>()
        for scope in scopes {
            for name in scope.split(separator: " ") {
                let name = String(name).lowercased()
                if !RequestBuilder.defaultScopes.contains(name) { names.insert(name) }
            }
        }
        return ascending(Array(names)).joined(separator: " ")
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
                "cachedScopeKeys": accessTokens.sortedKeys, "isDPoPBound": dpopKey != nil,
            ])
    }
}

extension AccountRecord.CachedAccessToken: CustomReflectable {
    /// The token's scopes and expiry, never the token.
    var customMirror: Mirror { Mirror(self, children: ["expiresOn": expiresOn, "scopes": scopes]) }
}
