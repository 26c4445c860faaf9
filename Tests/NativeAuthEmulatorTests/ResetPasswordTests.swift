import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("Password reset", .hangLimit)
struct ResetPasswordTests {
    static let newPassword = "Difference-Engine-1822"

    /// start → challenge → continue; returns the continue reply.
    func verify(_ harness: Harness) async throws -> Reply {
        let start = try await harness.post(.resetStart, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        try #require(start.status == 200, "\(start.text)")
        let challenge = try await harness.post(
            .resetChallenge, ["continuation_token": start["continuation_token"], "challenge_type": "oob redirect"])
        #expect(challenge["challenge_type"] == "oob")
        #expect(challenge["challenge_target_label"] == "a***a@co**o.com")
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.purpose == "resetPassword" && sent.to == Fixture.ada)
        let verified = try await harness.post(
            .resetContinue,
            ["continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": sent.code])
        #expect(verified.status == 200, "\(verified.text)")
        #expect(verified.number("expires_in") == 600)
        return verified
    }

    func poll(_ harness: Harness, _ token: String) async throws -> Reply {
        try await harness.post(.resetPollCompletion, ["continuation_token": token])
    }

    @Test func resetWithPollingThenSignIn() async throws {
        let harness = Harness()
        let verified = try await verify(harness)
        let submit = try await harness.post(
            .resetSubmit, ["continuation_token": verified["continuation_token"], "new_password": Self.newPassword])
        #expect(submit.status == 200, "\(submit.text)")
        #expect(submit.number("poll_interval") == 1)

        let first = try await poll(harness, submit["continuation_token"])
        #expect(first.text == #"{"status":"in_progress","continuation_token":"\#(first["continuation_token"])"}"#)
        let second = try await poll(harness, first["continuation_token"])
        #expect(second["status"] == "in_progress")
        #expect(harness.tenant.user(named: Fixture.ada)?.password == Fixture.adaPassword)
        let third = try await poll(harness, second["continuation_token"])
        #expect(third["status"] == "succeeded")
        let user = try #require(harness.tenant.user(named: Fixture.ada))
        #expect(user.password == Self.newPassword)
        #expect(user.passwordHistory == [Fixture.adaPassword])
        // Polled tokens are consumed.
        expectError(try await poll(harness, second["continuation_token"]), "invalid_request", code: 55200)

        let token = try await harness.post(
            .token,
            [
                "continuation_token": third["continuation_token"], "grant_type": "continuation_token",
                "username": Fixture.ada, "scope": Fixture.scopes,
            ])
        #expect(token.status == 200, "\(token.text)")
        #expect(try await harness.signIn(Fixture.ada, password: Self.newPassword).status == 200)
    }

    @Test func failedJobAllowsSubmittingAgain() async throws {
        let harness = Harness {
            $0.resetJobOutcome = .fail
            $0.resetPollsBeforeCompletion = 0
            $0.resetPollInterval = 3
        }
        let verified = try await verify(harness)
        let submit = try await harness.post(
            .resetSubmit, ["continuation_token": verified["continuation_token"], "new_password": Self.newPassword])
        #expect(submit.number("poll_interval") == 3)
        let failed = try await poll(harness, submit["continuation_token"])
        #expect(failed["status"] == "failed")
        #expect(harness.tenant.user(named: Fixture.ada)?.password == Fixture.adaPassword)
        // Polling a failed job is refused; submitting again is allowed.
        expectError(try await poll(harness, failed["continuation_token"]), "invalid_request", code: 55200)
        harness.tenant.configure { $0.resetJobOutcome = .succeed }
        let again = try await harness.post(
            .resetSubmit, ["continuation_token": failed["continuation_token"], "new_password": Self.newPassword])
        #expect(again.status == 200)
        #expect(try await poll(harness, again["continuation_token"])["status"] == "succeeded")
    }

    @Test func submitRefusesRecentAndWeakPasswords() async throws {
        let harness = Harness()
        harness.tenant.addUser(
            EmulatedUser(
                username: Fixture.ada, password: Fixture.adaPassword, passwordHistory: ["Older-Password-1"]))
        let verified = try await verify(harness)
        let ct = verified["continuation_token"]
        for (password, suberror) in [
            (Fixture.adaPassword, "password_recently_used"), ("Older-Password-1", "password_recently_used"),
            ("short", "password_too_short"), ("P@ssw0rd", "password_banned"), ("onlylowercase", "password_too_weak"),
        ] {
            let reply = try await harness.post(.resetSubmit, ["continuation_token": ct, "new_password": password])
            expectError(reply, "invalid_grant", code: 399246, suberror: suberror)
        }
        expectError(try await harness.post(.resetSubmit, ["continuation_token": ct]), "invalid_request", code: 90100)
        // The token survived every refusal.
        #expect(
            try await harness.post(.resetSubmit, ["continuation_token": ct, "new_password": Self.newPassword]).status
                == 200)
    }

    @Test func startErrors() async throws {
        let harness = Harness()
        expectError(
            try await harness.post(.resetStart, ["username": "nobody@contoso.com", "challenge_type": "oob redirect"]),
            "user_not_found", code: 50034)
        expectError(
            try await harness.post(.resetStart, ["username": Fixture.grace, "challenge_type": "oob redirect"]),
            "invalid_request", code: 500222)
        expectError(
            try await harness.post(.resetStart, ["username": Fixture.ada, "challenge_type": "oob"]),
            "invalid_request", code: 901007)
        expectRedirect(
            try await harness.post(.resetStart, ["username": Fixture.ada, "challenge_type": "password redirect"]))
        expectError(
            try await harness.post(
                .resetStart, ["username": Fixture.ada, "challenge_type": "oob redirect"], clientId: "other"),
            "invalid_client", code: 700016)
    }

    @Test func stepErrors() async throws {
        let harness = Harness()
        let start = try await harness.post(.resetStart, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        let ct = start["continuation_token"]
        expectError(
            try await harness.post(.resetSubmit, ["continuation_token": ct, "new_password": Self.newPassword]),
            "invalid_request", code: 55200)
        expectRedirect(
            try await harness.post(.resetChallenge, ["continuation_token": ct, "challenge_type": "password redirect"]))
        // The redirect ended the flow.
        expectError(
            try await harness.post(.resetChallenge, ["continuation_token": ct, "challenge_type": "oob redirect"]),
            "invalid_request", code: 55200)

        let restart = try await harness.post(.resetStart, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        let challenge = try await harness.post(
            .resetChallenge, ["continuation_token": restart["continuation_token"], "challenge_type": "oob redirect"])
        let next = challenge["continuation_token"]
        expectError(
            try await harness.post(.resetContinue, ["continuation_token": next, "grant_type": "oob", "oob": "0"]),
            "invalid_grant", code: 50181, suberror: "invalid_oob_value")
        expectError(
            try await harness.post(.resetContinue, ["continuation_token": next, "grant_type": "password", "oob": "0"]),
            "unsupported_grant_type", code: 70003)
        // A reset token cannot be spent on the token endpoint before the reset succeeded.
        expectError(
            try await harness.post(
                .token, ["continuation_token": next, "grant_type": "continuation_token", "scope": "openid"]),
            "invalid_request", code: 55000)
        harness.clock.advance(by: 601)
        expectError(
            try await harness.post(.resetContinue, ["continuation_token": next, "grant_type": "oob", "oob": "0"]),
            "expired_token", code: 552003)
    }

    @Test func lenientFieldsCanBeLeftOut() async throws {
        let harness = Harness { $0.includeOptionalFields = false }
        let start = try await harness.post(.resetStart, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        let challenge = try await harness.post(
            .resetChallenge, ["continuation_token": start["continuation_token"], "challenge_type": "oob redirect"])
        #expect(!challenge.has("code_length") && !challenge.has("interval"))
        #expect(challenge["challenge_type"] == "oob")
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.ada))
        let verified = try await harness.post(
            .resetContinue, ["continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": code])
        #expect(verified.keys == ["continuation_token"])
    }
}
