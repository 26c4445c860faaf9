import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("MFA", .hangLimit)
struct MFATests {
    /// Signs Alan in with his password, announcing `mfa_required`; returns the token reply.
    func firstFactor(_ harness: Harness, capabilities: String? = "mfa_required") async throws -> Reply {
        try await harness.signIn(Fixture.alan, password: Fixture.alanPassword, capabilities: capabilities)
    }

    @Test func mfaHappyPath() async throws {
        let harness = Harness()
        let required = try await firstFactor(harness)
        expectError(required, "invalid_grant", code: 50076, suberror: "mfa_required")
        #expect(!required["continuation_token"].isEmpty)

        let introspect = try await harness.post(.introspect, ["continuation_token": required["continuation_token"]])
        #expect(introspect.status == 200, "\(introspect.text)")
        let methods = try #require(introspect.json["methods"] as? [[String: Any]])
        #expect(methods.count == 2)
        #expect(methods[0]["id"] as? String == "sms-1")
        #expect(methods[0]["challenge_type"] as? String == "oob")
        #expect(methods[0]["challenge_channel"] as? String == "sms")
        #expect(methods[0]["login_hint"] as? String == "+********0123")
        #expect(methods[1]["login_hint"] as? String == "a***p@ex**e.org")

        let challenge = try await harness.post(
            .challenge,
            [
                "continuation_token": introspect["continuation_token"], "challenge_type": "oob redirect",
                "id": "email-1",
            ])
        #expect(challenge.status == 200, "\(challenge.text)")
        #expect(challenge["challenge_channel"] == "email")
        #expect(challenge["challenge_target_label"] == "a***p@ex**e.org")
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.to == "alan.backup@example.org" && sent.purpose == "mfa")

        // The first-factor grant is refused at this step; the MFA grant is mfa_oob.
        let wrongGrant = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": sent.code,
                "scope": Fixture.scopes,
            ])
        expectError(wrongGrant, "invalid_request", code: 55000)
        let wrongCode = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "mfa_oob", "oob": "12345678",
                "scope": Fixture.scopes,
            ])
        expectError(wrongCode, "invalid_grant", code: 50181, suberror: "invalid_oob_value")
        let token = try await harness.post(
            .token,
            [
                "continuation_token": challenge["continuation_token"], "grant_type": "mfa_oob", "oob": sent.code,
                "scope": Fixture.scopes,
            ])
        #expect(token.status == 200, "\(token.text)")
        #expect(!token["access_token"].isEmpty)
    }

    @Test func challengeWithoutIdUsesTheFirstMethodAndCanSwitch() async throws {
        let harness = Harness()
        let required = try await firstFactor(harness)
        let first = try await harness.post(
            .challenge, ["continuation_token": required["continuation_token"], "challenge_type": "oob redirect"])
        #expect(first["challenge_channel"] == "sms")
        #expect(harness.tenant.outbox.last?.to == "+447700900123")
        let second = try await harness.post(
            .challenge,
            ["continuation_token": first["continuation_token"], "challenge_type": "oob redirect", "id": "email-1"])
        #expect(second["challenge_channel"] == "email")
        // The code sent by sms is no longer valid.
        let smsCode = try #require(harness.tenant.lastCode(sentTo: "+447700900123"))
        let stale = try await harness.post(
            .token,
            [
                "continuation_token": second["continuation_token"], "grant_type": "mfa_oob", "oob": smsCode,
                "scope": "openid",
            ])
        expectError(stale, "invalid_grant", code: 50181, suberror: "invalid_oob_value")
    }

    @Test func withoutCapabilityTheServerRedirects() async throws {
        let harness = Harness()
        expectRedirect(try await firstFactor(harness, capabilities: nil))
        expectRedirect(try await firstFactor(harness, capabilities: "registration_required"))
    }

    @Test func blockedMethodIsAccessDenied() async throws {
        let harness = Harness { $0.blockedMethodIds = ["sms-1"] }
        let required = try await firstFactor(harness)
        let blocked = try await harness.post(
            .challenge,
            ["continuation_token": required["continuation_token"], "challenge_type": "oob redirect", "id": "sms-1"])
        expectError(blocked, "access_denied", code: 550024, suberror: "provider_blocked_by_rep")
        // The token survives; another method works.
        let other = try await harness.post(
            .challenge,
            ["continuation_token": required["continuation_token"], "challenge_type": "oob redirect", "id": "email-1"])
        #expect(other.status == 200)
    }

    @Test func introspectAndChallengeErrors() async throws {
        let harness = Harness()
        let required = try await firstFactor(harness)
        expectError(
            try await harness.post(
                .challenge,
                ["continuation_token": required["continuation_token"], "challenge_type": "oob redirect", "id": "nope"]),
            "invalid_request", code: 90100)
        expectError(
            try await harness.post(.introspect, ["continuation_token": "bogus"]), "invalid_request", code: 55000)
        expectError(try await harness.post(.introspect, [:]), "invalid_request", code: 90100)
        // Introspect before any MFA step.
        let initiate = try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        expectError(
            try await harness.post(.introspect, ["continuation_token": initiate["continuation_token"]]),
            "invalid_request", code: 55000)
        harness.clock.advance(by: 601)
        expectError(
            try await harness.post(.introspect, ["continuation_token": required["continuation_token"]]),
            "expired_token", code: 552003)
    }

    @Test func mfaRequiredForAllMakesUsersWithoutMethodsRegister() async throws {
        let harness = Harness { $0.mfaRequiredForAll = true }
        let reply = try await harness.signIn(
            Fixture.ada, password: Fixture.adaPassword, capabilities: "mfa_required registration_required")
        expectError(reply, "invalid_grant", code: 50079, suberror: "registration_required")
        let alan = try await firstFactor(harness)
        expectError(alan, "invalid_grant", code: 50076, suberror: "mfa_required")
    }
}

@Suite("Method registration", .hangLimit)
struct RegistrationTests {
    func registrationRequired(_ harness: Harness) async throws -> Reply {
        let reply = try await harness.signIn(
            Fixture.linus, password: Fixture.linusPassword, capabilities: "registration_required mfa_required")
        expectError(reply, "invalid_grant", code: 50079, suberror: "registration_required")
        return reply
    }

    @Test func withoutCapabilityTheServerRedirects() async throws {
        let harness = Harness()
        expectRedirect(
            try await harness.signIn(Fixture.linus, password: Fixture.linusPassword, capabilities: "mfa_required"))
    }

    @Test func registerByCode() async throws {
        let harness = Harness()
        let required = try await registrationRequired(harness)
        let introspect = try await harness.post(
            .registerIntrospect, ["continuation_token": required["continuation_token"]])
        #expect(introspect.status == 200, "\(introspect.text)")
        let methods = try #require(introspect.json["methods"] as? [[String: Any]])
        #expect(methods.count == 1)
        #expect(methods[0]["id"] as? String == "email")
        #expect(methods[0]["challenge_channel"] as? String == "email")
        #expect(methods[0]["login_hint"] as? String == "l***s@co**o.com")

        let challenge = try await harness.post(
            .registerChallenge,
            [
                "continuation_token": introspect["continuation_token"], "challenge_type": "oob",
                "challenge_target": "linus.other@example.org", "challenge_channel": "email",
            ])
        #expect(challenge.status == 200, "\(challenge.text)")
        #expect(challenge["challenge_type"] == "oob")
        #expect(challenge["binding_method"] == "prompt")
        #expect(challenge["challenge_target"] == "linus.other@example.org")
        #expect(challenge["challenge_channel"] == "email")
        #expect(challenge.number("code_length") == 8)
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.purpose == "registration" && sent.to == "linus.other@example.org")

        expectError(
            try await harness.post(
                .registerContinue,
                ["continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": "99999999"]),
            "invalid_grant", code: 50181, suberror: "invalid_oob_value")
        let done = try await harness.post(
            .registerContinue,
            ["continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": sent.code])
        #expect(done.status == 200, "\(done.text)")
        #expect(done.keys == ["continuation_token"])

        let token = try await harness.post(
            .token,
            [
                "continuation_token": done["continuation_token"], "grant_type": "continuation_token",
                "username": Fixture.linus, "scope": Fixture.scopes,
            ])
        #expect(token.status == 200, "\(token.text)")
        let user = try #require(harness.tenant.user(named: Fixture.linus))
        #expect(!user.requiresMethodRegistration)
        #expect(
            user.mfaMethods == [EmulatedAuthMethod(id: "email-1", channel: "email", address: "linus.other@example.org")]
        )
    }

    @Test func registeringTheVerifiedUsernameIsPreverified() async throws {
        let harness = Harness()
        let required = try await registrationRequired(harness)
        let challenge = try await harness.post(
            .registerChallenge,
            [
                "continuation_token": required["continuation_token"], "challenge_type": "oob",
                "challenge_target": Fixture.linus, "challenge_channel": "email",
            ])
        #expect(
            challenge.text
                == #"{"continuation_token":"\#(challenge["continuation_token"])","challenge_type":"preverified"}"#)
        #expect(harness.tenant.outbox.isEmpty)
        // The oob grant does not fit a preverified contact.
        expectError(
            try await harness.post(
                .registerContinue,
                ["continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": "1"]),
            "invalid_request", code: 55200)
        let done = try await harness.post(
            .registerContinue,
            ["continuation_token": challenge["continuation_token"], "grant_type": "continuation_token"])
        #expect(done.status == 200)
        let token = try await harness.post(
            .token,
            [
                "continuation_token": done["continuation_token"], "grant_type": "continuation_token",
                "scope": Fixture.scopes,
            ])
        #expect(token.status == 200)
        #expect(harness.tenant.user(named: Fixture.linus)?.mfaMethods.first?.address == Fixture.linus)
    }

    @Test func registrationErrors() async throws {
        let harness = Harness { $0.blockedMethodIds = ["blocked@example.org"] }
        let required = try await registrationRequired(harness)
        let ct = required["continuation_token"]
        func challenge(_ target: String, channel: String = "email") async throws -> Reply {
            try await harness.post(
                .registerChallenge,
                [
                    "continuation_token": ct, "challenge_type": "oob", "challenge_target": target,
                    "challenge_channel": channel,
                ])
        }
        expectError(try await challenge("not-an-address"), "invalid_request", code: 901001)
        expectError(try await challenge("12ab", channel: "sms"), "invalid_request", code: 901001)
        expectError(try await challenge("x@y.z", channel: "pigeon"), "invalid_request", code: 901001)
        expectError(
            try await challenge("blocked@example.org"), "access_denied", code: 550024,
            suberror: "provider_blocked_by_rep")
        expectError(
            try await harness.post(.registerChallenge, ["continuation_token": ct, "challenge_type": "oob"]),
            "invalid_request", code: 90100)
        expectError(
            try await harness.post(.registerContinue, ["continuation_token": ct, "grant_type": "oob", "oob": "1"]),
            "invalid_request", code: 55200)
        expectError(
            try await harness.post(.registerContinue, ["continuation_token": ct, "grant_type": "password"]),
            "unsupported_grant_type", code: 70003)
        expectError(
            try await harness.post(.registerIntrospect, ["continuation_token": "bogus"]), "invalid_request", code: 55200
        )
        // A phone number in international form is a valid contact.
        let sms = try await challenge("+15551234567", channel: "sms")
        #expect(sms.status == 200 && sms["challenge_channel"] == "sms")
        // Sign-in tokens do not work here, and registration tokens expire with 55112.
        let initiate = try await harness.post(.initiate, ["username": Fixture.ada, "challenge_type": "oob redirect"])
        expectError(
            try await harness.post(.registerIntrospect, ["continuation_token": initiate["continuation_token"]]),
            "invalid_request", code: 55200)
        harness.clock.advance(by: 700)
        expectError(
            try await harness.post(.registerIntrospect, ["continuation_token": sms["continuation_token"]]),
            "expired_token", code: 55112)
    }
}
