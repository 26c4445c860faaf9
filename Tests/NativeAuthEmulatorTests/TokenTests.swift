import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("Tokens, refresh and the protected resource", .hangLimit)
struct TokenTests {
    func refresh(_ harness: Harness, _ refreshToken: String, scope: String = Fixture.scopes) async throws -> Reply {
        try await harness.post(.token, ["grant_type": "refresh_token", "refresh_token": refreshToken, "scope": scope])
    }

    @Test func tokenResponseShapeAndClaims() async throws {
        let harness = Harness()
        let token = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        #expect(token.status == 200)
        #expect(
            token.keys.sorted() == [
                "access_token", "client_info", "expires_in", "ext_expires_in", "id_token", "refresh_token", "scope",
                "token_type",
            ])
        #expect(token.number("expires_in") == 3600 && token.number("ext_expires_in") == 3600)
        let tenantId = harness.tenant.tenantId
        let now = Int(epoch.timeIntervalSince1970)

        let id = try claims(token["id_token"])
        #expect(id["ver"] as? String == "2.0")
        #expect(id["iss"] as? String == "https://\(tenantId).ciamlogin.com/\(tenantId)/v2.0")
        #expect(id["aud"] as? String == harness.clientId)
        #expect(id["tid"] as? String == tenantId)
        #expect(id["preferred_username"] as? String == Fixture.ada)
        #expect(id["email"] as? String == Fixture.ada)
        #expect(id["name"] as? String == "Ada Lovelace")
        #expect(id["given_name"] as? String == "Ada")
        #expect(id["city"] as? String == "London")
        #expect((id["iat"] as? NSNumber)?.intValue == now)
        #expect((id["nbf"] as? NSNumber)?.intValue == now)
        #expect((id["exp"] as? NSNumber)?.intValue == now + 3600)
        let oid = try #require(id["oid"] as? String)
        #expect(UUID(uuidString: oid) != nil)
        #expect(!(id["sub"] as? String ?? "").isEmpty)

        let access = try claims(token["access_token"])
        #expect(access["scp"] as? String == "api://contoso/read")
        #expect(access["aud"] as? String == harness.clientId)
        #expect(access["oid"] as? String == oid)
        #expect(access["tid"] as? String == tenantId)
        #expect(access["sub"] as? String == id["sub"] as? String)
        #expect(access["preferred_username"] as? String == Fixture.ada)
        #expect((access["exp"] as? NSNumber)?.intValue == now + 3600)

        let info = try segment(Substring(token["client_info"]))
        #expect(info["uid"] as? String == oid)
        #expect(info["utid"] as? String == tenantId)

        // The object id is stable across sign-ins.
        let again = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        #expect(try claims(again["id_token"])["oid"] as? String == oid)
    }

    @Test func scopesDecideWhichTokensComeBack() async throws {
        let harness = Harness()
        let challenge = try await harness.startSignIn(Fixture.ada)
        let token = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "password",
                "password": Fixture.adaPassword, "scope": "api://contoso/read api://contoso/write",
            ])
        #expect(token.status == 200)
        #expect(token["scope"] == "api://contoso/read api://contoso/write")
        #expect(!token.has("id_token") && !token.has("refresh_token"))
    }

    @Test func lifetimesAndServerClockOffsetFollowTheSettings() async throws {
        let harness = Harness {
            $0.accessTokenLifetime = 120
            $0.serverClockOffset = 300
        }
        let token = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        #expect(token.number("expires_in") == 120)
        let access = try claims(token["access_token"])
        let serverNow = Int(epoch.timeIntervalSince1970) + 300
        #expect((access["iat"] as? NSNumber)?.intValue == serverNow)
        #expect((access["exp"] as? NSNumber)?.intValue == serverNow + 120)
        #expect(token.response.header("Date") == "Fri, 15 Jan 2027 08:05:00 GMT")
    }

    @Test func refreshRotatesAndRevokesTheOldToken() async throws {
        let harness = Harness()
        let first = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        let refreshed = try await refresh(
            harness, first["refresh_token"], scope: "openid offline_access api://contoso/write")
        #expect(refreshed.status == 200, "\(refreshed.text)")
        #expect(refreshed["scope"] == "api://contoso/write")
        #expect(!refreshed["refresh_token"].isEmpty && refreshed["refresh_token"] != first["refresh_token"])
        #expect(refreshed["access_token"] != first["access_token"])
        #expect(refreshed.has("id_token"))
        expectError(
            try await refresh(harness, first["refresh_token"]), "invalid_grant", code: 70008, suberror: "bad_token")
        #expect(try await refresh(harness, refreshed["refresh_token"]).status == 200)
    }

    @Test func refreshWithoutRevocationOrRotation() async throws {
        let keep = Harness { $0.revokeRotatedRefreshTokens = false }
        let first = try await keep.signIn(Fixture.ada, password: Fixture.adaPassword)
        let second = try await refresh(keep, first["refresh_token"])
        #expect(second["refresh_token"] != first["refresh_token"])
        #expect(try await refresh(keep, first["refresh_token"]).status == 200)

        let noRotation = Harness { $0.rotateRefreshTokens = false }
        let original = try await noRotation.signIn(Fixture.ada, password: Fixture.adaPassword)
        let same = try await refresh(noRotation, original["refresh_token"])
        #expect(same["refresh_token"] == original["refresh_token"])
        #expect(try await refresh(noRotation, original["refresh_token"]).status == 200)
    }

    @Test func refreshErrors() async throws {
        let harness = Harness()
        let token = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        expectError(try await refresh(harness, "1.unknown"), "invalid_grant", code: 70008, suberror: "bad_token")
        expectError(
            try await harness.post(.token, ["grant_type": "refresh_token", "scope": "openid"]),
            "invalid_request", code: 90100)
        expectError(
            try await harness.post(.token, ["grant_type": "refresh_token", "refresh_token": token["refresh_token"]]),
            "invalid_request", code: 90100)
        harness.tenant.revokeRefreshTokens(for: "ADA@contoso.com")
        expectError(
            try await refresh(harness, token["refresh_token"]), "invalid_grant", code: 70008, suberror: "bad_token")

        let other = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        harness.clock.advance(by: 86_400 * 90)
        expectError(try await refresh(harness, other["refresh_token"]), "invalid_grant", code: 700082)
    }

    @Test func protectedResource() async throws {
        let harness = Harness()
        let token = try await harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        let me = try await harness.me(token["access_token"])
        #expect(me.status == 200)
        #expect(me["username"] == Fixture.ada)
        #expect(me["oid"] == (try claims(token["id_token"])["oid"] as? String))

        let missing = try await harness.me(nil)
        #expect(missing.status == 401)
        #expect(missing.response.header("WWW-Authenticate") == #"Bearer error="invalid_request""#)

        let bad = try await harness.me("not-a-token")
        #expect(bad.status == 401)
        #expect(bad.response.header("www-authenticate")?.contains(#"error="invalid_token""#) == true)

        harness.clock.advance(by: 3599)
        #expect(try await harness.me(token["access_token"]).status == 200)
        harness.clock.advance(by: 1)
        let expired = try await harness.me(token["access_token"])
        #expect(expired.status == 401)
        #expect(
            expired.response.header("WWW-Authenticate")
                == #"Bearer error="invalid_token", error_description="The access token is expired""#)
        // POST is not served there.
        let post = try await harness.tenant.send(
            HTTPRequest(method: "POST", url: harness.tenant.url(for: .resource), headers: [:]))
        #expect(post.statusCode == 404)
    }

    @Test func signInAfterSignUpCanStillRequireMFA() async throws {
        let harness = Harness { $0.mfaRequiredForAll = true }
        let start = try await harness.post(
            .signUpStart,
            [
                "username": "mfa.new@contoso.com", "challenge_type": "oob redirect",
                "capabilities": "registration_required",
            ])
        let challenge = try await harness.post(
            .signUpChallenge, ["continuation_token": start["continuation_token"], "challenge_type": "oob redirect"])
        let code = try #require(harness.tenant.lastCode(sentTo: "mfa.new@contoso.com"))
        let done = try await harness.post(
            .signUpContinue, ["continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": code])
        let token = try await harness.post(
            .token,
            ["continuation_token": done["continuation_token"], "grant_type": "continuation_token", "scope": "openid"])
        expectError(token, "invalid_grant", code: 50079, suberror: "registration_required")
    }
}
