import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("Sign-in", .hangLimit)
struct SignInTests {
    @Test func passwordSignInIssuesTokens() async throws {
        let harness = Harness()
        let initiate = try await harness.post(
            .initiate, ["username": Fixture.ada, "challenge_type": "oob password redirect"])
        #expect(initiate.status == 200)
        #expect(initiate.keys == ["continuation_token"])

        let challenge = try await harness.post(
            .challenge,
            ["continuation_token": initiate["continuation_token"], "challenge_type": "oob password redirect"])
        #expect(challenge.status == 200)
        #expect(
            challenge.text
                == #"{"continuation_token":"\#(challenge["continuation_token"])","challenge_type":"password"}"#)
        #expect(challenge["continuation_token"] != initiate["continuation_token"])
        #expect(harness.tenant.outbox.isEmpty)

        let token = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "password",
                "password": Fixture.adaPassword, "scope": Fixture.scopes, "client_info": "true",
            ])
        #expect(token.status == 200, "\(token.text)")
        #expect(token["token_type"] == "Bearer")
        #expect(token["scope"] == "api://contoso/read")
        #expect(!token["access_token"].isEmpty && !token["refresh_token"].isEmpty && !token["id_token"].isEmpty)
    }

    @Test func codeSignInForPasswordlessUser() async throws {
        let harness = Harness()
        let challenge = try await harness.startSignIn(Fixture.grace)
        #expect(challenge["challenge_type"] == "oob")
        #expect(challenge["binding_method"] == "prompt")
        #expect(challenge["challenge_channel"] == "email")
        #expect(challenge["challenge_target_label"] == "g***e@co**o.com")
        #expect(challenge.number("code_length") == 8)
        #expect(challenge.number("interval") == 300)
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.to == Fixture.grace && sent.purpose == "signIn" && sent.sentAt == epoch && sent.code.count == 8)
        #expect(sent.code.allSatisfy { $0.isNumber })

        let token = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": sent.code,
                "scope": Fixture.scopes,
            ])
        #expect(token.status == 200, "\(token.text)")
        #expect(!token["access_token"].isEmpty)
    }

    @Test func passwordUserGetsCodeWhenClientOffersOnlyOob() async throws {
        let harness = Harness()
        let challenge = try await harness.startSignIn(Fixture.ada, challengeTypes: "oob redirect")
        #expect(challenge["challenge_type"] == "oob")
        #expect(harness.tenant.lastCode(sentTo: Fixture.ada) != nil)
        // A password is not accepted on a code challenge.
        let token = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "password",
                "password": Fixture.adaPassword, "scope": Fixture.scopes,
            ])
        expectError(token, "invalid_request", code: 55000)
    }

    @Test func resendInvalidatesThePreviousCode() async throws {
        let harness = Harness()
        let first = try await harness.startSignIn(Fixture.grace)
        let firstCode = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let resend = try await harness.post(
            .challenge, ["continuation_token": first["continuation_token"], "challenge_type": "oob password redirect"])
        #expect(resend.status == 200)
        let secondCode = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        #expect(harness.tenant.outbox.count == 2)
        #expect(firstCode != secondCode)
        // The first token was consumed by the resend.
        let stale = try await harness.post(
            .token,
            [
                "continuation_token": first["continuation_token"], "grant_type": "oob", "oob": firstCode,
                "scope": "openid",
            ])
        expectError(stale, "invalid_request", code: 55000)
        // The old code no longer works on the new token; the new code does.
        let old = try await harness.post(
            .token,
            [
                "continuation_token": resend["continuation_token"], "grant_type": "oob", "oob": firstCode,
                "scope": "openid",
            ])
        expectError(old, "invalid_grant", code: 50181, suberror: "invalid_oob_value")
        let good = try await harness.post(
            .token,
            [
                "continuation_token": resend["continuation_token"], "grant_type": "oob", "oob": secondCode,
                "scope": "openid",
            ])
        #expect(good.status == 200)
    }

    @Test func wrongCodeKeepsTheTokenUsable() async throws {
        let harness = Harness()
        let challenge = try await harness.startSignIn(Fixture.grace)
        let ct = challenge["continuation_token"]
        let wrong = try await harness.post(
            .token, ["continuation_token": ct, "grant_type": "oob", "oob": "00000000", "scope": "openid"])
        expectError(wrong, "invalid_grant", code: 50181, suberror: "invalid_oob_value")
        #expect(!wrong.has("continuation_token"))
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let right = try await harness.post(
            .token, ["continuation_token": ct, "grant_type": "oob", "oob": code, "scope": "openid"])
        #expect(right.status == 200)
        // Consumed now.
        let again = try await harness.post(
            .token, ["continuation_token": ct, "grant_type": "oob", "oob": code, "scope": "openid"])
        expectError(again, "invalid_request", code: 55000)
    }

    @Test func wrongPasswordIsInvalidGrantAndRetryable() async throws {
        let harness = Harness()
        let challenge = try await harness.startSignIn(Fixture.ada)
        let ct = challenge["continuation_token"]
        let wrong = try await harness.post(
            .token, ["continuation_token": ct, "grant_type": "password", "password": "nope", "scope": "openid"])
        expectError(wrong, "invalid_grant", code: 50126)
        let right = try await harness.post(
            .token,
            ["continuation_token": ct, "grant_type": "password", "password": Fixture.adaPassword, "scope": "openid"])
        #expect(right.status == 200)
        #expect(!right.has("refresh_token"))
        #expect(right.has("id_token"))
    }

    @Test func initiateErrors() async throws {
        let harness = Harness()
        expectError(
            try await harness.post(.initiate, ["username": "nobody@contoso.com", "challenge_type": "oob redirect"]),
            "user_not_found", code: 50034)
        expectError(
            try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "oob password"]),
            "invalid_request", code: 901007)
        expectError(
            try await harness.post(.initiate, ["challenge_type": "oob redirect"]), "invalid_request", code: 90100)
        expectError(
            try await harness.post(.initiate, ["username": Fixture.ada]), "invalid_request", code: 90100)
        expectError(
            try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "otp redirect"]),
            "unsupported_challenge_type", code: 550015)
    }

    @Test func noUsableChallengeTypeRedirects() async throws {
        let harness = Harness()
        expectRedirect(
            try await harness.post(.initiate, ["username": Fixture.grace, "challenge_type": "password redirect"]))
        expectRedirect(try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "redirect"]))
        // Offered at initiate, withdrawn at challenge: redirect, and the flow ends.
        let initiate = try await harness.post(
            .initiate, ["username": Fixture.ada, "challenge_type": "password redirect"])
        let challenge = try await harness.post(
            .challenge, ["continuation_token": initiate["continuation_token"], "challenge_type": "redirect"])
        expectRedirect(challenge)
        let after = try await harness.post(
            .challenge, ["continuation_token": initiate["continuation_token"], "challenge_type": "password redirect"])
        expectError(after, "invalid_request", code: 55000)
    }

    @Test func challengeErrors() async throws {
        let harness = Harness()
        expectError(
            try await harness.post(.challenge, ["continuation_token": "bogus", "challenge_type": "oob redirect"]),
            "invalid_request", code: 55000)
        expectError(
            try await harness.post(.challenge, ["challenge_type": "oob redirect"]), "invalid_request", code: 90100)
        let initiate = try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        expectError(
            try await harness.post(
                .challenge, ["continuation_token": initiate["continuation_token"], "challenge_type": "oob"]),
            "invalid_request", code: 901007)
        // A sign-up token is not a sign-in token.
        let signUp = try await harness.post(
            .signUpStart, ["username": "new@contoso.com", "challenge_type": "oob redirect"])
        expectError(
            try await harness.post(
                .challenge, ["continuation_token": signUp["continuation_token"], "challenge_type": "oob redirect"]),
            "invalid_request", code: 55000)
    }

    @Test func continuationTokensExpireOnTheClock() async throws {
        let harness = Harness()
        let initiate = try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        harness.clock.advance(by: 599)
        let challenge = try await harness.post(
            .challenge, ["continuation_token": initiate["continuation_token"], "challenge_type": "oob redirect"])
        #expect(challenge.status == 200)
        harness.clock.advance(by: 600)
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.ada))
        let late = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": code,
                "scope": "openid",
            ])
        expectError(late, "expired_token", code: 552003)
        // Still expired (not "unknown") when retried.
        let again = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": code,
                "scope": "openid",
            ])
        expectError(again, "expired_token", code: 552003)
    }

    @Test func tokenGrantErrors() async throws {
        let harness = Harness()
        let challenge = try await harness.startSignIn(Fixture.ada)
        let ct = challenge["continuation_token"]
        expectError(
            try await harness.post(.token, ["continuation_token": ct, "grant_type": "magic", "scope": "openid"]),
            "unsupported_grant_type", code: 70003)
        expectError(
            try await harness.post(.token, ["continuation_token": ct, "scope": "openid"]), "invalid_request",
            code: 90100)
        expectError(
            try await harness.post(.token, ["continuation_token": ct, "grant_type": "password", "password": "x"]),
            "invalid_request", code: 90100)
        expectError(
            try await harness.post(
                .token,
                ["continuation_token": ct, "grant_type": "password", "password": "x", "scope": "openid \"bad\""]),
            "invalid_scope", code: 70011)
        expectError(
            try await harness.post(.token, ["continuation_token": ct, "grant_type": "password", "scope": "openid"]),
            "invalid_request", code: 90100)
        // mfa_oob is not a first-factor grant.
        expectError(
            try await harness.post(
                .token, ["continuation_token": ct, "grant_type": "mfa_oob", "oob": "1", "scope": "openid"]),
            "invalid_request", code: 55000)
        // A user removed mid-flow.
        harness.tenant.removeUser(named: Fixture.ada)
        expectError(
            try await harness.post(
                .token,
                [
                    "continuation_token": ct, "grant_type": "password", "password": Fixture.adaPassword,
                    "scope": "openid",
                ]),
            "user_not_found", code: 50034)
    }

    @Test func usernamesAreCaseInsensitive() async throws {
        let harness = Harness()
        let token = try await harness.signIn("ADA@Contoso.com", password: Fixture.adaPassword)
        #expect(token.status == 200)
        let idToken = try claims(token["id_token"])
        #expect(idToken["preferred_username"] as? String == Fixture.ada)
    }
}
