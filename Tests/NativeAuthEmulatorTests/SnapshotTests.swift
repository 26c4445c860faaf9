import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

extension Harness {
    /// A harness around an existing tenant and its clock.
    init(tenant: EmulatedTenant, clock: ManualClock) {
        self.tenant = tenant
        self.clock = clock
    }

    /// A new, empty tenant with the same subdomain and client id as this one, on the same clock
    /// (but another random source), restored from `snapshot`.
    func restoredTenant(from snapshot: Data, seed: UInt64 = 7) throws -> Harness {
        let tenant = EmulatedTenant(
            tenantSubdomain: self.tenant.tenantSubdomain, clientId: clientId, clock: clock,
            random: SeededRandomSource(seed: seed))
        try tenant.restore(from: snapshot)
        return Harness(tenant: tenant, clock: clock)
    }
}

@Suite("Snapshots", .hangLimit)
struct SnapshotTests {
    static let newUser = "new.user@contoso.com"
    static let newPassword = "Brand-New-Pass-42"
    static let everyone = [Fixture.ada, Fixture.grace, Fixture.alan, Fixture.linus, newUser]

    /// Signs up ``newUser`` with a password and a display name.
    func signUp(_ harness: Harness) async throws {
        let start = try await harness.postPairs(
            .signUpStart,
            [
                ("username", Self.newUser), ("challenge_type", "oob password redirect"),
                ("password", Self.newPassword), ("attributes", #"{"displayName":"New User"}"#),
            ])
        try #require(start.status == 200, "\(start.text)")
        let challenge = try await harness.post(
            .signUpChallenge,
            ["continuation_token": start["continuation_token"], "challenge_type": "oob password redirect"])
        let code = try #require(harness.tenant.lastCode(sentTo: Self.newUser))
        let done = try await harness.post(
            .signUpContinue, ["continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": code])
        try #require(done.status == 200, "\(done.text)")
    }

    func refresh(_ harness: Harness, _ refreshToken: String) async throws -> Reply {
        try await harness.post(
            .token, ["grant_type": "refresh_token", "refresh_token": refreshToken, "scope": Fixture.scopes])
    }

    /// The error `restore(from:)` throws for `data`, or `nil` when it restores.
    func restoreError(_ tenant: EmulatedTenant, _ data: Data) -> EmulatorSnapshotError? {
        do {
            try tenant.restore(from: data)
            return nil
        } catch {
            return error
        }
    }

    func object(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func data(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: object)
    }

    /// The state that survives a restart, made on tenant A.
    struct Made {
        let tenant: Harness
        /// Ada's refresh token after one rotation (usable), and the one it replaced (revoked).
        let adaRefresh: String
        let rotatedOut: String
        /// Ada's access token from the refresh.
        let adaAccess: String
        /// The new user's refresh token, revoked by an administrator.
        let revokedByAdmin: String
    }

    func makeState() async throws -> Made {
        let harness = Harness()
        harness.tenant.addUser(
            EmulatedUser(
                username: Fixture.ada, password: Fixture.adaPassword,
                attributes: ["displayName": "Ada Lovelace", "givenName": "Ada", "city": "London"],
                passwordHistory: ["Older-Password-1"]))
        try await signUp(harness)
        let ada = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        try #require(ada.status == 200, "\(ada.text)")
        let rotated = try await refresh(harness, ada["refresh_token"])
        try #require(rotated.status == 200, "\(rotated.text)")
        let newUser = try await harness.signIn(Self.newUser, password: Self.newPassword)
        try #require(newUser.status == 200, "\(newUser.text)")
        harness.tenant.revokeRefreshTokens(for: Self.newUser)
        return Made(
            tenant: harness, adaRefresh: rotated["refresh_token"], rotatedOut: ada["refresh_token"],
            adaAccess: rotated["access_token"], revokedByAdmin: newUser["refresh_token"])
    }

    @Test func usersAndTheirCredentialsSurviveARestore() async throws {
        let made = try await makeState()
        let a = made.tenant
        let b = try a.restoredTenant(from: a.tenant.snapshot())
        for name in Self.everyone {
            let user = try #require(b.tenant.user(named: name), "\(name) is missing")
            #expect(user == a.tenant.user(named: name))
        }
        #expect(b.tenant.user(named: Self.newUser)?.attributes == ["displayName": "New User"])

        // The user signed up on A signs in on B with their password, and only with it.
        #expect(try await b.signIn(Self.newUser, password: Self.newPassword).status == 200)
        let wrong = try await b.signIn(Self.newUser, password: "Not-The-Password-1")
        #expect(wrong.status == 400 && wrong.error == "invalid_grant", "\(wrong.text)")

        // The password history still blocks reuse.
        let verified = try await ResetPasswordTests().verify(b)
        for old in [Fixture.adaPassword, "Older-Password-1"] {
            let reply = try await b.post(
                .resetSubmit, ["continuation_token": verified["continuation_token"], "new_password": old])
            expectError(reply, "invalid_grant", code: 399246, suberror: "password_recently_used")
        }

        // A user who must register a method still must.
        let linus = try await b.signIn(
            Fixture.linus, password: Fixture.linusPassword, capabilities: "registration_required mfa_required")
        expectError(linus, "invalid_grant", code: 50079, suberror: "registration_required")
    }

    @Test func mfaMethodsSurviveARestore() async throws {
        let a = Harness()
        let b = try a.restoredTenant(from: a.tenant.snapshot())
        let required = try await b.signIn(Fixture.alan, password: Fixture.alanPassword, capabilities: "mfa_required")
        expectError(required, "invalid_grant", code: 50076, suberror: "mfa_required")
        let introspect = try await b.post(.introspect, ["continuation_token": required["continuation_token"]])
        let methods = try #require(introspect.json["methods"] as? [[String: Any]], "\(introspect.text)")
        #expect(methods.compactMap { $0["id"] as? String } == ["sms-1", "email-1"])
        #expect(methods.compactMap { $0["challenge_channel"] as? String } == ["sms", "email"])

        let challenge = try await b.post(
            .challenge,
            [
                "continuation_token": introspect["continuation_token"], "challenge_type": "oob redirect",
                "id": "email-1",
            ])
        #expect(challenge["challenge_channel"] == "email", "\(challenge.text)")
        let code = try #require(b.tenant.lastCode(sentTo: "alan.backup@example.org"))
        let token = try await b.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "mfa_oob", "oob": code,
                "scope": Fixture.scopes,
            ])
        #expect(token.status == 200, "\(token.text)")
    }

    @Test func refreshTokensSurviveWithTheirRules() async throws {
        let made = try await makeState()
        let b = try made.tenant.restoredTenant(from: made.tenant.tenant.snapshot())

        // Revoked on A, by rotation or by an administrator: still revoked on B.
        expectError(try await refresh(b, made.rotatedOut), "invalid_grant", code: 70008, suberror: "bad_token")
        expectError(try await refresh(b, made.revokedByAdmin), "invalid_grant", code: 70008, suberror: "bad_token")

        // The live one works on B, and rotation revokes it there.
        let rotated = try await refresh(b, made.adaRefresh)
        #expect(rotated.status == 200, "\(rotated.text)")
        #expect(try claims(rotated["id_token"])["preferred_username"] as? String == Fixture.ada)
        #expect(!rotated["refresh_token"].isEmpty && rotated["refresh_token"] != made.adaRefresh)
        expectError(try await refresh(b, made.adaRefresh), "invalid_grant", code: 70008, suberror: "bad_token")
        #expect(try await refresh(b, rotated["refresh_token"]).status == 200)

        // An administrator can revoke it on B.
        let again = try await b.signIn(Fixture.ada, password: Fixture.adaPassword)
        b.tenant.revokeRefreshTokens(for: Fixture.ada)
        expectError(try await refresh(b, again["refresh_token"]), "invalid_grant", code: 70008, suberror: "bad_token")
    }

    @Test func refreshTokensKeepTheirExpiryAndExpiredOnesAreLeftOut() async throws {
        let a = Harness()
        let first = try await a.signIn(Fixture.ada, password: Fixture.adaPassword)
        a.clock.advance(by: 86_400)
        let second = try await a.signIn(Fixture.ada, password: Fixture.adaPassword)
        let snapshot = a.tenant.snapshot()
        let tokens = try #require(try object(snapshot)["refreshTokens"] as? [[String: Any]])
        let expiries = Dictionary(
            uniqueKeysWithValues: tokens.map {
                ($0["token"] as? String ?? "", ($0["expiresAt"] as? NSNumber)?.intValue)
            })
        let start = Int(epoch.timeIntervalSince1970)
        #expect(expiries[first["refresh_token"]] == start + 86_400 * 90)
        #expect(expiries[second["refresh_token"]] == start + 86_400 * 91)

        let b = try a.restoredTenant(from: snapshot)
        b.clock.advance(by: 86_400 * 89)
        expectError(try await refresh(b, first["refresh_token"]), "invalid_grant", code: 700082)
        #expect(try await refresh(b, second["refresh_token"]).status == 200)

        // The expired token is no longer in a snapshot; the rotated-out one is, revoked.
        let later = try #require(try object(b.tenant.snapshot())["refreshTokens"] as? [[String: Any]])
        #expect(later.count == 2)
        #expect(!later.contains { $0["token"] as? String == first["refresh_token"] })
        let rotatedOut = try #require(later.first { $0["token"] as? String == second["refresh_token"] })
        #expect(rotatedOut["revoked"] as? Bool == true)
        #expect(rotatedOut["username"] as? String == Fixture.ada)
    }

    @Test func accessTokensAreValidatedByTheirClaims() async throws {
        let made = try await makeState()
        let a = made.tenant
        let b = try a.restoredTenant(from: a.tenant.snapshot())

        // An access token issued by A is accepted by B, until it expires.
        let me = try await b.me(made.adaAccess)
        #expect(me.status == 200, "\(me.text)")
        #expect(me["username"] == Fixture.ada)
        // Revoking refresh tokens does not touch access tokens.
        b.tenant.revokeRefreshTokens(for: Fixture.ada)
        #expect(try await b.me(made.adaAccess).status == 200)
        b.clock.advance(by: 3600)
        let expired = try await b.me(made.adaAccess)
        #expect(expired.status == 401)
        #expect(expired.response.header("WWW-Authenticate")?.contains("The access token is expired") == true)
    }

    @Test func accessTokensOfOtherTenantsOrAlteredAreRefused() async throws {
        let harness = Harness()
        let token = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        let access = token["access_token"]
        #expect(try await harness.me(access).status == 200)

        func expectInvalid(_ candidate: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let reply = try await harness.me(candidate)
            #expect(reply.status == 401, "\(reply.text)", sourceLocation: sourceLocation)
            #expect(
                reply.response.header("WWW-Authenticate")
                    == #"Bearer error="invalid_token", error_description="The access token is invalid""#,
                sourceLocation: sourceLocation)
        }

        // Issued by a tenant with another subdomain, or for another client.
        for other in [
            EmulatedTenant(tenantSubdomain: "fabrikam", clock: harness.clock),
            EmulatedTenant(clientId: "another-client", clock: harness.clock),
        ] {
            other.addUser(EmulatedUser(username: Fixture.ada, password: Fixture.adaPassword))
            let foreign = try await Harness(tenant: other, clock: harness.clock)
                .signIn(Fixture.ada, password: Fixture.adaPassword)
            try #require(foreign.status == 200, "\(foreign.text)")
            try await expectInvalid(foreign["access_token"])
        }

        // Altered claims, a signature, a header that is not alg none.
        let parts = access.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let payload = try segment(Substring(parts[1]))
        func altered(_ change: (inout [String: Any]) -> Void) throws -> String {
            var changed = payload
            change(&changed)
            return parts[0] + "." + base64URL(try data(changed)) + "."
        }
        try await expectInvalid(try altered { $0["preferred_username"] = "nobody@contoso.com" })
        try await expectInvalid(try altered { $0["preferred_username"] = Fixture.grace })
        try await expectInvalid(try altered { $0["aud"] = "another-client" })
        try await expectInvalid(try altered { $0["iss"] = "https://login.example.com/v2.0" })
        try await expectInvalid(try altered { $0["tid"] = UUID().uuidString.lowercased() })
        try await expectInvalid(try altered { $0["exp"] = "never" })
        try await expectInvalid(try altered { $0["exp"] = nil })
        try await expectInvalid(access + "c2lnbmF0dXJl")
        try await expectInvalid(base64URL(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) + "." + parts[1] + ".")
        try await expectInvalid(parts[0] + ".!!!.")
        try await expectInvalid(parts[0] + "." + parts[1])
        // Unchanged claims written again are still the tenant's token: validation is by claims.
        #expect(try await harness.me(try altered { _ in }).status == 200)
        // The user matches case-insensitively, as sign-in does.
        #expect(try await harness.me(try altered { $0["preferred_username"] = "ADA@contoso.com" }).status == 200)

        // A removed user's access tokens stop working.
        harness.tenant.removeUser(named: Fixture.ada)
        try await expectInvalid(access)
    }

    @Test func roundTripIsStable() async throws {
        let made = try await makeState()
        let a = made.tenant
        let first = a.tenant.snapshot()
        let b = try a.restoredTenant(from: first)
        let second = b.tenant.snapshot()
        #expect(second == first)
        let c = try b.restoredTenant(from: second, seed: 99)
        #expect(c.tenant.snapshot() == first)
        // Restoring a tenant's own snapshot into it changes nothing.
        try a.tenant.restore(from: first)
        #expect(a.tenant.snapshot() == first)
        // Taking a snapshot changes nothing either.
        #expect(a.tenant.snapshot() == first)

        // The documented shape.
        let json = try object(first)
        #expect(json["format"] as? Int == 2)
        #expect(json["tenantSubdomain"] as? String == "contoso")
        #expect(json["clientId"] as? String == a.clientId)
        let users = try #require(json["users"] as? [[String: Any]])
        #expect(users.compactMap { $0["username"] as? String } == Self.everyone.sorted())
        let grace = try #require(users.first { $0["username"] as? String == Fixture.grace })
        #expect(grace["password"] is NSNull)
        #expect(
            Set(grace.keys) == [
                "username", "password", "attributes", "mfaMethods", "requiresMethodRegistration", "passwordHistory",
                "requiresBrowser",
            ])
        let alan = try #require(users.first { $0["username"] as? String == Fixture.alan })
        let methods = try #require(alan["mfaMethods"] as? [[String: String]])
        #expect(methods.first == ["id": "sms-1", "channel": "sms", "address": "+447700900123"])
        let tokens = try #require(json["refreshTokens"] as? [[String: Any]])
        #expect(tokens.count == 3)
        #expect(tokens.compactMap { $0["token"] as? String } == tokens.compactMap { $0["token"] as? String }.sorted())
        #expect(tokens.filter { $0["revoked"] as? Bool == true }.count == 2)
        // No in-flight state, codes or access tokens.
        #expect(!String(decoding: first, as: UTF8.self).contains(made.adaAccess))
        #expect(Set(json.keys) == ["format", "tenantSubdomain", "clientId", "users", "refreshTokens"])
    }

    @Test func unknownFieldsAreIgnoredAndMissingOnesDefault() async throws {
        let a = Harness()
        _ = try await a.signIn(Fixture.ada, password: Fixture.adaPassword)
        let original = a.tenant.snapshot()
        var json = try object(original)
        json["comment"] = "written by a later version"
        json["sessions"] = [["id": 1]]
        var users = try #require(json["users"] as? [[String: Any]])
        users[0]["favouriteColour"] = "teal"
        json["users"] = users
        var tokens = try #require(json["refreshTokens"] as? [[String: Any]])
        tokens[0]["scopes"] = ["openid", "offline_access"]
        json["refreshTokens"] = tokens
        let b = try a.restoredTenant(from: try data(json))
        #expect(b.tenant.snapshot() == original)

        // A minimal hand-written snapshot: no tenant, defaults for everything optional, a
        // fractional expiry.
        let minimal = Data(
            #"""
            {"format":1,
             "users":[{"username":"min@contoso.com"},
                      {"username":"max@contoso.com","password":"Max-Password-1","mfaMethods":[],
                       "attributes":{"city":"Paris"},"passwordHistory":["Old-Password-1"],
                       "requiresMethodRegistration":true}],
             "refreshTokens":[{"token":"1.hand-made","username":"min@contoso.com","expiresAt":1800000100.5},
                              {"token":"1.spare","username":"max@contoso.com","expiresAt":1800000100.5}]}
            """#.utf8)
        try b.tenant.restore(from: minimal)
        #expect(b.tenant.user(named: "min@contoso.com") == EmulatedUser(username: "min@contoso.com"))
        #expect(
            b.tenant.user(named: "MAX@contoso.com")
                == EmulatedUser(
                    username: "max@contoso.com", password: "Max-Password-1", attributes: ["city": "Paris"],
                    requiresMethodRegistration: true, passwordHistory: ["Old-Password-1"]))
        #expect(b.tenant.user(named: Fixture.ada) == nil)
        let again = b.tenant.snapshot()
        #expect(String(decoding: again, as: UTF8.self).contains(#""expiresAt":1800000100.5"#))
        let c = try b.restoredTenant(from: again)
        #expect(c.tenant.snapshot() == again)
        #expect(try await refresh(c, "1.hand-made").status == 200)
        c.clock.advance(by: 100)
        #expect(String(decoding: c.tenant.snapshot(), as: UTF8.self).contains("1.spare"))
        c.clock.advance(by: 1)
        #expect(!String(decoding: c.tenant.snapshot(), as: UTF8.self).contains("1.spare"))
        expectError(try await refresh(c, "1.spare"), "invalid_grant", code: 700082)
    }

    @Test func restoreReplacesUsersAndTokensOnly() async throws {
        let a = Harness()
        let snapshot = a.tenant.snapshot()
        let b = Harness(users: false) {
            $0.codeLength = 6
            $0.rotateRefreshTokens = false
        }
        b.tenant.addUser(EmulatedUser(username: "extra@contoso.com", password: "Extra-Password-1"))
        b.tenant.addUser(EmulatedUser(username: "code@contoso.com"))
        let extra = try await b.signIn("extra@contoso.com", password: "Extra-Password-1")
        let pending = try await b.startSignIn("extra@contoso.com")
        _ = try await b.startSignIn("code@contoso.com")
        let outboxBefore = b.tenant.outbox
        try #require(outboxBefore.count == 1)
        try b.tenant.restore(from: snapshot)
        #expect(b.tenant.user(named: "extra@contoso.com") == nil)
        #expect(b.tenant.user(named: Fixture.ada) == a.tenant.user(named: Fixture.ada))
        expectError(try await refresh(b, extra["refresh_token"]), "invalid_grant", code: 70008, suberror: "bad_token")
        // Settings and the outbox stay; a flow under way for a user no longer there fails.
        #expect(b.tenant.settings.codeLength == 6 && !b.tenant.settings.rotateRefreshTokens)
        #expect(b.tenant.outbox == outboxBefore)
        let token = try await b.post(
            .token,
            [
                "continuation_token": pending["continuation_token"], "grant_type": "password",
                "password": "Extra-Password-1", "scope": Fixture.scopes,
            ])
        #expect(token.status == 400 && token.error == "user_not_found", "\(token.text)")
        // Grace, from the snapshot, gets a code of the length the settings still say.
        _ = try await b.startSignIn(Fixture.grace)
        #expect(b.tenant.lastCode(sentTo: Fixture.grace)?.count == 6)
        #expect(b.tenant.outbox.count == 2)
    }

    @Test func badSnapshotsThrowAndLeaveTheTenantUnchanged() async throws {
        let made = try await makeState()
        let b = try made.tenant.restoredTenant(from: made.tenant.tenant.snapshot())
        let before = b.tenant.snapshot()
        let good = try object(before)

        func variant(_ change: (inout [String: Any]) throws -> Void) throws -> Data {
            var json = good
            try change(&json)
            return try data(json)
        }
        func user(_ fields: [String: Any]) throws -> Data {
            try variant { $0["users"] = [fields] }
        }
        func token(_ fields: [String: Any]) throws -> Data {
            try variant { $0["refreshTokens"] = [fields] }
        }
        let cases: [(data: Data, kind: EmulatorSnapshotError.Kind, mentions: String)] = [
            (Data(), .malformed, "not JSON"),
            (Data("not json".utf8), .malformed, "not JSON"),
            (Data([0xFF, 0xFE, 0x7B]), .malformed, "UTF-8"),
            (before.prefix(before.count / 2), .malformed, "not JSON"),
            (Data("[]".utf8), .malformed, "not a JSON object"),
            (Data(#"{"users":[],"refreshTokens":[]}"#.utf8), .malformed, "no format"),
            (try variant { $0["format"] = "1" }, .malformed, "format"),
            (try variant { $0["format"] = 1.5 }, .malformed, "format"),
            (try variant { $0["format"] = 0 }, .malformed, "format 0"),
            (try variant { $0["format"] = 3 }, .newerFormat, "format 3"),
            (Data(#"{"format":7,"everything":"different"}"#.utf8), .newerFormat, "format 7"),
            (try variant { $0["users"] = nil }, .malformed, "users"),
            (try variant { $0["refreshTokens"] = [:] as [String: Any] }, .malformed, "refreshTokens"),
            (try variant { $0["users"] = ["ada@contoso.com"] }, .malformed, "users[0]"),
            (try user(["password": "x"]), .malformed, "users[0].username"),
            (try user(["username": ""]), .malformed, "users[0].username"),
            (try user(["username": "u@contoso.com", "password": 12]), .malformed, "users[0].password"),
            (try user(["username": "u@contoso.com", "attributes": ["age": 3]]), .malformed, "attributes.age"),
            (
                try user(["username": "u@contoso.com", "mfaMethods": [["id": "m", "address": "a@b.c"]]]), .malformed,
                "users[0].mfaMethods[0].channel"
            ),
            (try user(["username": "u@contoso.com", "passwordHistory": [1]]), .malformed, "passwordHistory[0]"),
            (
                try user(["username": "u@contoso.com", "requiresMethodRegistration": "yes"]), .malformed,
                "requiresMethodRegistration"
            ),
            (try user(["username": "u@contoso.com", "requiresBrowser": 1]), .malformed, "requiresBrowser"),
            (
                try variant { $0["users"] = [["username": "u@contoso.com"], ["username": "U@CONTOSO.COM"]] },
                .malformed, "two users"
            ),
            (try token(["token": "1.x", "username": Fixture.ada]), .malformed, "refreshTokens[0].expiresAt"),
            (
                try token(["token": "1.x", "username": Fixture.ada, "expiresAt": "tomorrow"]), .malformed,
                "expiresAt"
            ),
            (try token(["token": "1.x", "expiresAt": 1]), .malformed, "refreshTokens[0].username"),
            (
                try token(["token": "1.x", "username": Fixture.ada, "expiresAt": 1, "revoked": 0]), .malformed,
                "revoked"
            ),
            (
                try token(["token": "1.x", "username": Fixture.ada, "expiresAt": 1, "signsIDTokens": "no"]),
                .malformed, "signsIDTokens"
            ),
            (
                try variant {
                    $0["refreshTokens"] = [
                        ["token": "1.x", "username": Fixture.ada, "expiresAt": 1],
                        ["token": "1.x", "username": Fixture.grace, "expiresAt": 2],
                    ]
                }, .malformed, "twice"
            ),
            (try variant { $0["tenantSubdomain"] = "fabrikam" }, .otherTenant, "fabrikam"),
            (try variant { $0["clientId"] = "another-client" }, .otherTenant, "another-client"),
        ]
        for (index, bad) in cases.enumerated() {
            let error = restoreError(b.tenant, bad.data)
            #expect(error?.kind == bad.kind, "case \(index): \(String(describing: error))")
            #expect(error?.reason.contains(bad.mentions) == true, "case \(index): \(String(describing: error))")
            #expect(error?.localizedDescription == error?.reason, "case \(index)")
            #expect(b.tenant.snapshot() == before, "case \(index) changed the tenant")
        }
        // Still the same tenant, working.
        #expect(try await b.signIn(Self.newUser, password: Self.newPassword).status == 200)
        #expect(try await refresh(b, made.adaRefresh).status == 200)
    }

    @Test func snapshotsAndRestoresAreSafeAlongsideRequests() async throws {
        let harness = Harness()
        let snapshot = harness.tenant.snapshot()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        let reply = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
                        #expect(reply.status == 200, "\(reply.text)")
                    } else {
                        try harness.tenant.restore(from: harness.tenant.snapshot())
                        try harness.tenant.restore(from: snapshot)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(harness.tenant.user(named: Fixture.ada) != nil)
        let restored = try harness.restoredTenant(from: harness.tenant.snapshot())
        #expect(restored.tenant.snapshot() == harness.tenant.snapshot())
    }
}

/// Base64url without padding, as JWT segments use it.
func base64URL(_ data: Data) -> String {
    data.base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
