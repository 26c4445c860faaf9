import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("Sign-up", .hangLimit)
struct SignUpTests {
    static let newUser = "new.user@contoso.com"
    static let goodPassword = "Brand-New-Pass-42"

    /// start → challenge (oob) → continue (oob); returns the continue reply.
    func verifyEmail(
        _ harness: Harness, challengeTypes: String = "oob password redirect",
        extra: [(String, String)] = []
    ) async throws -> Reply {
        let start = try await harness.postPairs(
            .signUpStart, [("username", Self.newUser), ("challenge_type", challengeTypes)] + extra)
        try #require(start.status == 200, "\(start.text)")
        #expect(start.keys == ["continuation_token"])
        let challenge = try await harness.post(
            .signUpChallenge, ["continuation_token": start["continuation_token"], "challenge_type": challengeTypes])
        #expect(challenge["challenge_type"] == "oob")
        #expect(challenge["challenge_target_label"] == "n***r@co**o.com")
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.purpose == "signUp" && sent.to == Self.newUser)
        return try await harness.post(
            .signUpContinue,
            ["continuation_token": challenge["continuation_token"], "grant_type": "oob", "oob": sent.code])
    }

    @Test func fullSignUpWithCredentialAndAttributesRequired() async throws {
        let harness = Harness {
            $0.requiredSignUpAttributes = [
                EmulatedRequiredAttribute(name: "displayName"),
                EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}"),
                EmulatedRequiredAttribute(name: "newsletter", type: "boolean", required: false),
            ]
        }
        let verified = try await verifyEmail(harness)
        expectError(verified, "credential_required", code: 55103)
        #expect(!verified["continuation_token"].isEmpty)

        let passwordChallenge = try await harness.post(
            .signUpChallenge,
            ["continuation_token": verified["continuation_token"], "challenge_type": "oob password redirect"])
        #expect(
            passwordChallenge.text
                == #"{"continuation_token":"\#(passwordChallenge["continuation_token"])","challenge_type":"password"}"#)

        let weak = try await harness.post(
            .signUpContinue,
            [
                "continuation_token": passwordChallenge["continuation_token"], "grant_type": "password",
                "password": "abc",
            ])
        expectError(weak, "invalid_grant", code: 399246, suberror: "password_too_short")
        let withPassword = try await harness.post(
            .signUpContinue,
            [
                "continuation_token": passwordChallenge["continuation_token"], "grant_type": "password",
                "password": Self.goodPassword,
            ])
        expectError(withPassword, "attributes_required", code: 55106)
        let required = try #require(withPassword.json["required_attributes"] as? [[String: Any]])
        #expect(required.count == 2)
        #expect(required[0]["name"] as? String == "displayName")
        #expect(required[0]["type"] as? String == "string")
        #expect(required[0]["required"] as? Bool == true)
        #expect(required[0]["options"] == nil)
        #expect((required[1]["options"] as? [String: Any])?["regex"] as? String == "[0-9]{4}")

        let invalid = try await harness.post(
            .signUpContinue,
            [
                "continuation_token": withPassword["continuation_token"], "grant_type": "attributes",
                "attributes": #"{"displayName":"New User","postalCode":"12a4","newsletter":"maybe"}"#,
            ])
        expectError(invalid, "invalid_grant", code: 3_000_002, suberror: "attribute_validation_failed")
        let names = (invalid.json["invalid_attributes"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["postalCode", "newsletter"])

        let partial = try await harness.post(
            .signUpContinue,
            [
                "continuation_token": withPassword["continuation_token"], "grant_type": "attributes",
                "attributes": #"{"displayName":"New User","newsletter":true}"#,
            ])
        expectError(partial, "attributes_required", code: 55106)
        #expect((partial.json["required_attributes"] as? [[String: Any]])?.count == 1)

        let done = try await harness.post(
            .signUpContinue,
            [
                "continuation_token": partial["continuation_token"], "grant_type": "attributes",
                "attributes": #"{"postalCode":"0150"}"#,
            ])
        #expect(done.status == 200, "\(done.text)")
        #expect(done.keys.sorted() == ["continuation_token", "expires_in"])
        #expect(done.number("expires_in") == 600)
        let user = try #require(harness.tenant.user(named: Self.newUser))
        #expect(user.password == Self.goodPassword)
        #expect(user.attributes == ["displayName": "New User", "newsletter": "true", "postalCode": "0150"])

        let token = try await harness.post(
            .token,
            [
                "continuation_token": done["continuation_token"], "grant_type": "continuation_token",
                "username": Self.newUser, "scope": Fixture.scopes,
            ])
        #expect(token.status == 200, "\(token.text)")
        #expect(try claims(token["id_token"])["name"] as? String == "New User")
    }

    @Test func passwordAtStartSkipsCredentialRequired() async throws {
        let harness = Harness()
        let done = try await verifyEmail(
            harness, extra: [("password", Self.goodPassword), ("attributes", #"{"displayName":"N"}"#)])
        #expect(done.status == 200, "\(done.text)")
        #expect(harness.tenant.user(named: Self.newUser)?.attributes == ["displayName": "N"])
    }

    @Test func passwordlessSignUpWhenClientOffersOnlyOob() async throws {
        let harness = Harness()
        let done = try await verifyEmail(harness, challengeTypes: "oob redirect")
        #expect(done.status == 200, "\(done.text)")
        let user = try #require(harness.tenant.user(named: Self.newUser))
        #expect(user.password == nil)
        // Sign-in after sign-up with a mismatching username is refused.
        let wrongUser = try await harness.post(
            .token,
            [
                "continuation_token": done["continuation_token"], "grant_type": "continuation_token",
                "username": Fixture.ada, "scope": "openid",
            ])
        expectError(wrongUser, "invalid_request", code: 90100)
    }

    @Test func startErrors() async throws {
        let harness = Harness()
        expectError(
            try await harness.post(.signUpStart, ["username": Fixture.ada, "challenge_type": "oob redirect"]),
            "user_already_exists", code: 1_003_037)
        expectError(
            try await harness.post(.signUpStart, ["username": "not-an-email", "challenge_type": "oob redirect"]),
            "invalid_request", code: 90100)
        expectError(
            try await harness.post(.signUpStart, ["username": Self.newUser, "challenge_type": "oob"]),
            "invalid_request", code: 901007)
        expectError(
            try await harness.post(
                .signUpStart, ["username": Self.newUser, "challenge_type": "oob redirect", "attributes": "{broken"]),
            "invalid_request", code: 90100)
        expectError(
            try await harness.post(
                .signUpStart, ["username": Self.newUser, "challenge_type": "oob redirect", "attributes": "[1]"]),
            "invalid_request", code: 90100)
        let nested = try await harness.post(
            .signUpStart,
            ["username": Self.newUser, "challenge_type": "oob redirect", "attributes": #"{"city":{"a":1}}"#])
        expectError(nested, "invalid_grant", code: 3_000_002, suberror: "attribute_validation_failed")
        expectRedirect(
            try await harness.post(.signUpStart, ["username": Self.newUser, "challenge_type": "password redirect"]))
    }

    @Test(
        arguments: [
            ("short1A!", nil),
            ("Sh0rt!", "password_too_short"),
            (String(repeating: "Aa1!", count: 65) + "x", "password_too_long"),
            ("Password1!", "password_banned"),
            ("alllowercaseletters", "password_too_weak"),
            ("Tab\tInside-1", "password_is_invalid"),
        ] as [(String, String?)])
    func passwordPolicyAtStart(password: String, suberror: String?) async throws {
        let harness = Harness()
        let reply = try await harness.post(
            .signUpStart, ["username": Self.newUser, "challenge_type": "oob password redirect", "password": password])
        if let suberror {
            expectError(reply, "invalid_grant", code: 399246, suberror: suberror)
        } else {
            #expect(reply.status == 200, "\(reply.text)")
        }
    }

    @Test func continueErrors() async throws {
        let harness = Harness()
        let start = try await harness.post(
            .signUpStart, ["username": Self.newUser, "challenge_type": "oob password redirect"])
        let ct = start["continuation_token"]
        // Continue before a code was sent.
        expectError(
            try await harness.post(.signUpContinue, ["continuation_token": ct, "grant_type": "oob", "oob": "1"]),
            "invalid_request", code: 55200)
        let challenge = try await harness.post(
            .signUpChallenge, ["continuation_token": ct, "challenge_type": "oob password redirect"])
        let next = challenge["continuation_token"]
        expectError(
            try await harness.post(.signUpContinue, ["continuation_token": next, "grant_type": "oob", "oob": "1"]),
            "invalid_grant", code: 50181, suberror: "invalid_oob_value")
        expectError(
            try await harness.post(.signUpContinue, ["continuation_token": next, "grant_type": "oob"]),
            "invalid_request", code: 90100)
        expectError(
            try await harness.post(.signUpContinue, ["continuation_token": next, "grant_type": "telepathy"]),
            "unsupported_grant_type", code: 70003)
        expectError(
            try await harness.post(.signUpContinue, ["continuation_token": "bogus", "grant_type": "oob", "oob": "1"]),
            "invalid_request", code: 55200)
        expectError(
            try await harness.post(.signUpChallenge, ["continuation_token": next, "challenge_type": "oob"]),
            "invalid_request", code: 901007)
        // Someone else signs up with the same address meanwhile.
        harness.tenant.addUser(EmulatedUser(username: Self.newUser))
        let code = try #require(harness.tenant.lastCode(sentTo: Self.newUser))
        let verified = try await harness.post(
            .signUpContinue, ["continuation_token": next, "grant_type": "oob", "oob": code])
        expectError(verified, "credential_required", code: 55103)
        let done = try await harness.post(
            .signUpContinue,
            [
                "continuation_token": verified["continuation_token"], "grant_type": "password",
                "password": Self.goodPassword,
            ])
        expectError(done, "user_already_exists", code: 1_003_037)
        harness.clock.advance(by: 600)
        expectError(
            try await harness.post(
                .signUpContinue,
                ["continuation_token": verified["continuation_token"], "grant_type": "password", "password": "x"]),
            "expired_token", code: 552003)
    }
}
