import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The V2 sign-up journey, step by step (Docs/NativeAuthV2Protocol.md, "Sign-up"; Docs/Emulator.md,
/// "Native Auth V2"), read with JSONSerialization.
@Suite("Native Auth V2: the sign-up journey", .hangLimit)
struct V2SignUpTests {
    static let newUser = "lin@contoso.com"
    static let password = "Difference-Engine-1822"

    /// authorize-challenge, then `signup/start`: the `collectAttributes` answer.
    func start(_ harness: Harness) async throws -> Reply {
        let start = try await harness.startAuthorization()
        return try await harness.follow(start["sign_up"], ["continuationToken": start["continuation_token"]])
    }

    /// POSTs `continuationToken` and an `attributes` object to `href`.
    func submit(_ harness: Harness, _ href: String, token: String, _ attributes: [String: Any]) async throws -> Reply {
        let object: [String: Any] = ["continuationToken": token, "attributes": attributes]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return try await harness.follow(href, raw: String(decoding: data, as: UTF8.self))
    }

    func descriptors(_ reply: Reply) -> [[String: Any]] { reply.json["attributes"] as? [[String: Any]] ?? [] }

    func details(_ reply: Reply) -> [[String: Any]] {
        (reply.halError["innerError"] as? [String: Any])?["details"] as? [[String: Any]] ?? []
    }

    @Test("collectAttributes, submitAttributes sends the code, verify, continue, then the code and tokens")
    func journey() async throws {
        let harness = Harness {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}")]
        }
        let tenantId = harness.tenant.tenantId
        let collect = try await start(harness)
        #expect(collect.status == 200, "\(collect.text)")
        #expect(collect["state"] == "interactionRequired" && collect["action"] == "collectAttributes")
        #expect(collect.link("submitAttributes") == "/\(tenantId)/api/v2.0/signup/submitattributes")
        let listed = descriptors(collect)
        #expect(listed.compactMap { $0["attributeId"] as? String } == ["email", "password", "postalCode"])
        #expect(listed.last?["inputType"] as? String == "text")
        #expect(listed.last?["regex"] as? String == "[0-9]{4}")
        #expect(listed.allSatisfy { $0["required"] as? Bool == true })
        #expect(harness.tenant.outbox.isEmpty)

        let verify = try await submit(
            harness, collect.link("submitAttributes"), token: collect["continuationToken"],
            ["email": Self.newUser, "password": Self.password, "postalCode": "1822"])
        #expect(verify.status == 200, "\(verify.text)")
        #expect(verify["action"] == "verify" && verify["type"] == "email")
        #expect(verify.number("codeLength") == 8)
        #expect(verify.link("verify").hasSuffix("/verify") && verify.link("resend").hasSuffix("/challenge"))
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.to == Self.newUser && sent.purpose == "signUp")

        let wrong = try await harness.follow(
            verify.link("verify"), ["continuationToken": verify["continuationToken"], "otp": "00000000"])
        expectHALError(wrong, "invalidGrant", inner: "invalidOneTimeCode", aadsts: 50184)
        let done = try await harness.follow(
            verify.link("verify"), ["continuationToken": verify["continuationToken"], "otp": sent.code])
        #expect(done["state"] == "continue", "\(done.text)")
        #expect(done.link("continue") == "/\(tenantId)/oauth2/v2.0/authorize-challenge")
        #expect(harness.tenant.user(named: Self.newUser)?.attributes["postalCode"] == "1822")
        let tokens = try await harness.redeem(try await harness.resume(done["continuationToken"]))
        #expect(tokens.status == 200 && !tokens["access_token"].isEmpty, "\(tokens.text)")
    }

    @Test("the password is asked after the code; a weak one is refused with its policy code as a detail")
    func passwordAfterTheCode() async throws {
        let harness = Harness()
        let collect = try await start(harness)
        let verify = try await submit(
            harness, collect.link("submitAttributes"), token: collect["continuationToken"], ["email": Self.newUser])
        let code = try #require(harness.tenant.lastCode(sentTo: Self.newUser))
        let more = try await harness.follow(
            verify.link("verify"), ["continuationToken": verify["continuationToken"], "otp": code])
        #expect(more["action"] == "collectAttributes", "\(more.text)")
        #expect(descriptors(more).compactMap { $0["attributeId"] as? String } == ["password"])
        let weak = try await submit(
            harness, more.link("submitAttributes"), token: more["continuationToken"], ["password": "alllowercase"])
        expectHALError(weak, "invalidRequest", inner: "attributeValidationError", aadsts: 399246)
        #expect(details(weak).first?["code"] as? String == "passwordTooWeak")
        #expect(details(weak).first?["attributeIds"] as? [String] == ["password"])
        let done = try await submit(
            harness, more.link("submitAttributes"), token: more["continuationToken"], ["password": Self.password])
        #expect(done["state"] == "continue", "\(done.text)")
    }

    @Test("an existing user is userAlreadyExists, with a detail naming email; nothing is sent")
    func existingUser() async throws {
        let harness = Harness()
        let collect = try await start(harness)
        let reply = try await submit(
            harness, collect.link("submitAttributes"), token: collect["continuationToken"], ["email": Fixture.ada])
        expectHALError(reply, "invalidRequest", inner: "userAlreadyExists", aadsts: 1_003_037)
        #expect(details(reply).first?["attributeIds"] as? [String] == ["email"])
        #expect(harness.tenant.outbox.isEmpty)
    }

    @Test("refused values are attributeValidationError with a detail per attribute")
    func refusedValues() async throws {
        let harness = Harness {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}")]
        }
        let collect = try await start(harness)
        let reply = try await submit(
            harness, collect.link("submitAttributes"), token: collect["continuationToken"],
            ["email": Self.newUser, "postalCode": "N1"])
        expectHALError(reply, "invalidRequest", inner: "attributeValidationError", aadsts: 3_000_002)
        #expect(details(reply).first?["attributeIds"] as? [String] == ["postalCode"])
        let notAnEmail = try await submit(
            harness, collect.link("submitAttributes"), token: collect["continuationToken"], ["email": "lin"])
        #expect(details(notAnEmail).first?["attributeIds"] as? [String] == ["email"])
    }

    @Test("with sign-up off, the start answer has no sign_up link and signup/start answers 404")
    func signUpOff() async throws {
        let harness = Harness { $0.signUpEnabled = false }
        let start = try await harness.startAuthorization()
        #expect(!start.has("sign_up"))
        let tenantId = harness.tenant.tenantId
        let reply = try await harness.follow(
            "/\(tenantId)/api/v2.0/signup/start", ["continuationToken": start["continuation_token"]])
        #expect(reply.status == 404)
    }
}
