import Foundation

/// `oauth2/v2.0/token`: every grant, and the tokens it mints.
extension TenantState {
    /// The scopes an OpenID Connect client adds to every request; they never appear in `scope`/`scp`.
    static let oidcScopes: Set<String> = ["openid", "profile", "offline_access"]

    mutating func token(_ call: Call) throws(APIError) -> JSONObject {
        let grantType = try required("grant_type", in: call)
        if grantType == "authorization_code" {
            if let code = call.form["code"], nativeAuthV2.codes[code] != nil { return try nativeAuthV2CodeGrant(call) }
            return try authorizationCodeGrant(call)
        }
        switch grantType {
        case "password", "oob", "mfa_oob", "continuation_token", "refresh_token": break
        default: throw .unsupportedGrantType(grantType)
        }
        let scopes = try scopes(in: call)
        if grantType == "refresh_token" {
            return try refresh(call, scopes: scopes)
        }
        let kinds: Set<Flow.Kind> =
            grantType == "continuation_token" ? [.signUp, .resetPassword, .registration] : [.signIn]
        let (token, flow) = try flow(
            for: call, kinds: kinds, invalidCode: Self.signInInvalidToken, expiredCode: Self.signInExpiredToken)
        switch grantType {
        case "password":
            try require(flow, at: [.passwordChallenged], code: Self.signInInvalidToken)
            let password = try required("password", in: call)
            guard let user = user(named: flow.username) else { throw .userNotFound }
            guard let expected = user.password, expected == password else { throw .badCredentials }
            return try afterFirstFactor(call, token: token, flow: flow)
        case "oob":
            try require(flow, at: [.oobChallenged], code: Self.signInInvalidToken)
            guard try required("oob", in: call) == flow.code else { throw .invalidCode }
            return try afterFirstFactor(call, token: token, flow: flow)
        case "mfa_oob":
            try require(flow, at: [.mfaChallenged], code: Self.signInInvalidToken)
            guard try required("oob", in: call) == flow.code else { throw .invalidCode }
            guard let user = user(named: flow.username) else { throw .userNotFound }
            discard(token)
            return issueTokens(for: user, scopes: scopes, now: call.now)
        default:
            try require(flow, at: [.completed], code: Self.signInInvalidToken)
            if let username = call.form["username"], !username.isEmpty,
                username.lowercased() != flow.username.lowercased()
            {
                throw .invalidParameter("username", "it is not the user the continuation token was issued for")
            }
            guard let user = user(named: flow.username) else { throw .userNotFound }
            if flow.kind == .registration {
                discard(token)
                return issueTokens(for: user, scopes: scopes, now: call.now)
            }
            return try afterFirstFactor(call, token: token, flow: flow)
        }
    }

    /// The `scope` list: present and made only of valid scope characters (RFC 6749 §3.3).
    func scopes(in call: Call) throws(APIError) -> [String] {
        let value = try required("scope", in: call)
        var scopes: [String] = []
        for scope in value.split(separator: " ").map(String.init) where !scopes.contains(scope) {
            let valid = scope.unicodeScalars.allSatisfy { scalar in
                scalar.value == 0x21 || (0x23...0x5B).contains(scalar.value) || (0x5D...0x7E).contains(scalar.value)
            }
            guard valid else { throw .invalidScope(scope) }
            scopes.append(scope)
        }
        guard !scopes.isEmpty else { throw .missingParameter("scope") }
        return scopes
    }

    private mutating func refresh(_ call: Call, scopes: [String]) throws(APIError) -> JSONObject {
        let refreshToken = try required("refresh_token", in: call)
        guard var record = refreshTokens[refreshToken] else { throw .invalidRefreshToken("it is unknown") }
        guard !record.revoked else { throw .invalidRefreshToken("it has been revoked") }
        guard call.now < record.expiresAt else { throw .expiredRefreshToken }
        guard let user = user(named: record.username) else { throw .invalidRefreshToken("its user no longer exists") }
        // A browser sign-in's refresh token is the web client's: it authenticates as at the code.
        if record.signsIDTokens { try authenticateClient(call.form, endpoint: .token, call: call) }
        let proof = try refreshProof(call, record: record)
        if record.signsIDTokens, web.challengedRefreshes.remove(user.username.lowercased()) != nil {
            throw refreshChallenge(for: user, record: record, now: call.now)
        }
        var body = issueTokens(
            for: user, scopes: scopes, now: call.now, includeRefreshToken: settings.rotateRefreshTokens,
            signedIDToken: record.signsIDTokens ? SignedIDToken(nonce: nil) : nil, dpopKey: proof?.thumbprint,
            authentication: record.authentication)
        if settings.rotateRefreshTokens {
            if settings.revokeRotatedRefreshTokens {
                record.revoked = true
                refreshTokens[refreshToken] = record
            }
        } else if scopes.contains("offline_access") {
            body["refresh_token"] = .string(refreshToken)
        }
        return body
    }

    /// The proof of a refresh (RFC 9449 §5). The refreshes of a browser sign-in's refresh tokens
    /// read one (required with ``EmulatorSettings/DPoPMode/required``); those of the native API do
    /// not, as Entra's native API has no DPoP. A bound refresh token needs a proof made with its key
    /// whatever the setting: none is `invalid_dpop_proof`, another key's `invalid_grant` (the grant
    /// was issued to another key's holder, RFC 6749 §5.2).
    private mutating func refreshProof(_ call: Call, record: RefreshTokenRecord) throws(APIError) -> CheckedDPoPProof? {
        guard record.signsIDTokens || record.dpopKey != nil else { return nil }
        guard let bound = record.dpopKey else { return try tokenRequestProof(call, missing: requiredProofReason) }
        guard settings.dpop != .off else { throw .refreshTokenBoundWithDPoPOff }
        let proof = try tokenRequestProof(
            call, missing: "The refresh token is bound to a DPoP key: send a proof made with that key.")
        guard proof?.thumbprint == bound else { throw .refreshTokenBoundToAnotherKey }
        return proof
    }

    // MARK: - Minting

    /// The stable object id of a user: it depends only on the tenant and the username.
    func objectId(of user: EmulatedUser) -> String {
        Encoding.stableUUID("oid:\(environment.tenantId):\(user.username.lowercased())")
    }

    /// The `iss` claim of every token the tenant issues.
    var issuer: String {
        "https://\(environment.tenantId).ciamlogin.com/\(environment.tenantId)/v2.0"
    }

    /// A token success body for `user`, recording the refresh token it holds (if any).
    ///
    /// The access token is not recorded: it is a self-describing JWT, and the protected resource
    /// checks its claims (see `protectedResource(_:)`). The ID token is unsigned, unless
    /// `signedIDToken` asks for a signed one (browser sign-ins and their refreshes). With `dpopKey`,
    /// the JWK thumbprint of a DPoP proof's key, the tokens are bound to that key (RFC 9449 §5, §6):
    /// `token_type` is `DPoP`, the access token's `cnf` claim holds `jkt` (§6.1), and the refresh
    /// token is recorded as bound (the emulator's client is a public client). With
    /// `authentication`, both tokens carry its `auth_time` and `acr`, and so will those of the
    /// refresh token's refreshes (RFC 9470 §6.1).
    mutating func issueTokens(
        for user: EmulatedUser, scopes: [String], now: Date, includeRefreshToken: Bool = true,
        signedIDToken: SignedIDToken? = nil, dpopKey: String? = nil, authentication: AuthenticationEvent? = nil
    ) -> JSONObject {
        let resourceScopes = scopes.filter { !Self.oidcScopes.contains($0) }
        let issuedAt = Int(now.timeIntervalSince1970.rounded(.down))
        let lifetime = Int(settings.accessTokenLifetime.rounded(.down))
        let oid = objectId(of: user)
        let tenantId = environment.tenantId
        let subject = Encoding.base64URL(
            Data(Encoding.stableUUID("sub:\(oid):\(environment.clientId)").utf8)
        )
        var accessClaims: JSONObject = [
            "aud": .string(environment.clientId),
            "iss": .string(issuer),
            "iat": .integer(issuedAt),
            "nbf": .integer(issuedAt),
            "exp": .integer(issuedAt + lifetime),
            "scp": .string(resourceScopes.joined(separator: " ")),
            "oid": .string(oid),
            "tid": .string(tenantId),
            "sub": .string(subject),
            "preferred_username": .string(user.username),
            "uti": .string(Encoding.randomToken(byteCount: 16, from: random)),
            "ver": "2.0",
        ]
        if let dpopKey { accessClaims["cnf"] = .object(["jkt": .string(dpopKey)]) }
        if let authentication {
            accessClaims["auth_time"] = .integer(authentication.seconds)
            accessClaims["acr"] = .string(authentication.acr)
        }
        let accessToken = Self.jwt(accessClaims)

        var body: JSONObject = [
            "token_type": dpopKey == nil ? "Bearer" : "DPoP",
            "scope": .string(resourceScopes.joined(separator: " ")),
            "expires_in": .integer(lifetime),
            "ext_expires_in": .integer(lifetime),
            "access_token": .string(accessToken),
        ]
        if includeRefreshToken, scopes.contains("offline_access") {
            let refreshToken = "1." + Encoding.randomToken(byteCount: 48, from: random)
            refreshTokens[refreshToken] = RefreshTokenRecord(
                username: user.username, expiresAt: now.addingTimeInterval(settings.refreshTokenLifetime),
                signsIDTokens: signedIDToken != nil, dpopKey: dpopKey, authentication: authentication)
            body["refresh_token"] = .string(refreshToken)
        }
        if scopes.contains("openid") {
            body["id_token"] = .string(
                idToken(
                    for: user, oid: oid, subject: subject, issuedAt: issuedAt, lifetime: lifetime,
                    signed: signedIDToken, authentication: authentication))
        }
        let clientInfo: JSONObject = ["uid": .string(oid), "utid": .string(tenantId)]
        body["client_info"] = .string(Encoding.base64URL(clientInfo.data))
        return body
    }

    private func idToken(
        for user: EmulatedUser, oid: String, subject: String, issuedAt: Int, lifetime: Int, signed: SignedIDToken?,
        authentication: AuthenticationEvent?
    ) -> String {
        let tenantId = environment.tenantId
        var claims: JSONObject = [
            "ver": "2.0",
            "iss": .string(issuer),
            "sub": .string(subject),
            "aud": .string(environment.clientId),
            "exp": .integer(issuedAt + lifetime),
            "iat": .integer(issuedAt),
            "nbf": .integer(issuedAt),
            "name": .string(user.attributes["displayName"] ?? user.username),
            "preferred_username": .string(user.username),
            "email": .string(user.username),
            "oid": .string(oid),
            "tid": .string(tenantId),
        ]
        if let nonce = signed?.nonce { claims["nonce"] = .string(nonce) }
        if let authentication {
            claims["auth_time"] = .integer(authentication.seconds)
            claims["acr"] = .string(authentication.acr)
        }
        for (name, value) in user.attributes.sorted(by: { $0.key < $1.key }) {
            let claim = Self.claimNames[name] ?? name
            guard claims[claim] == nil else { continue }
            claims[claim] = .string(value)
        }
        guard signed != nil else { return Self.jwt(claims) }
        return EmulatorSigningKey.test.signedJWT(claims) ?? Self.jwt(claims)
    }

    /// Directory attribute names and the id-token claims they become.
    static let claimNames = ["displayName": "name", "givenName": "given_name", "surname": "family_name"]

    /// An unsigned JWT: `{"alg":"none","typ":"JWT"}`, the claims, and an empty signature.
    static func jwt(_ claims: JSONObject) -> String {
        let header: JSONObject = ["alg": "none", "typ": "JWT"]
        return Encoding.base64URL(header.data) + "." + Encoding.base64URL(claims.data) + "."
    }
}
