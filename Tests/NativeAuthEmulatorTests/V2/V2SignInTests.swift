import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The V2 sign-in journey, step by step (Docs/NativeAuthV2Protocol.md, "Step 2" to "Methods").
@Suite("Native Auth V2: the sign-in journey", .hangLimit)
struct V2SignInTests {
    @Test("email code: challenge with one email method, verify with codeLength and resend, then continue")
    func emailCode() async throws {
        let harness = Harness { $0.codeLength = 6 }
        let tenantId = harness.tenant.tenantId
        let start = try await harness.v2SignInStart(Fixture.grace)
        #expect(start.status == 200, "\(start.text)")
        #expect(start["state"] == "interactionRequired" && start["action"] == "challenge")
        #expect(start.factor == "singleFactor")
        #expect(!start["continuationToken"].isEmpty)
        try #require(start.methods.count == 1)
        let method = start.methods[0]
        let id = try #require(method["id"] as? String)
        #expect(method["type"] as? String == "email")
        #expect(method["hint"] as? String == "g***e@co**o.com")
        #expect(method.link("challenge") == "/\(tenantId)/api/v2.0/auth/methods/email/\(id)/challenge")
        #expect(method.link("verify") == "/\(tenantId)/api/v2.0/auth/methods/email/\(id)/verify")
        #expect(harness.tenant.outbox.isEmpty)

        let challenge = try await harness.follow(
            method.link("challenge"), ["continuationToken": start["continuationToken"]])
        #expect(challenge.status == 200, "\(challenge.text)")
        #expect(challenge["state"] == "interactionRequired" && challenge["action"] == "verify")
        #expect(challenge["type"] == "email" && challenge["id"] == id && challenge["hint"] == "g***e@co**o.com")
        #expect(challenge.number("codeLength") == 6)
        #expect((challenge.json["payload"] as? [String: Any])?["codeLength"] as? Int == 6)
        #expect(challenge.factor == "singleFactor")
        #expect(challenge.link("verify") == method.link("verify"))
        #expect(challenge.link("resend") == method.link("challenge"))
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.to == Fixture.grace && sent.purpose == "signIn" && sent.code.count == 6)

        let verified = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": sent.code])
        #expect(verified.status == 200, "\(verified.text)")
        #expect(verified["state"] == "continue" && !verified.has("action"))
        #expect(verified.link("continue") == "/\(tenantId)/oauth2/v2.0/authorize-challenge")
        let token = verified["continuationToken"]
        #expect(!token.isEmpty && token != challenge["continuationToken"])
        let code = try await harness.resume(token)
        #expect(try await harness.redeem(code).status == 200)
    }

    @Test("resend sends a new code; the old code no longer verifies")
    func resend() async throws {
        let harness = Harness()
        let start = try await harness.v2SignInStart(Fixture.grace)
        let first = try await harness.follow(
            start.methods[0].link("challenge"), ["continuationToken": start["continuationToken"]])
        let oldCode = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let resent = try await harness.follow(first.link("resend"), ["continuationToken": first["continuationToken"]])
        #expect(resent["action"] == "verify", "\(resent.text)")
        #expect(harness.tenant.outbox.count == 2)
        let newCode = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        // The first verify answer's token was spent by the resend.
        let stale = try await harness.follow(
            first.link("verify"), ["continuationToken": first["continuationToken"], "otp": newCode])
        expectHALError(stale, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)
        if oldCode != newCode {
            let old = try await harness.follow(
                resent.link("verify"), ["continuationToken": resent["continuationToken"], "otp": oldCode])
            expectHALError(old, "invalidGrant", inner: "invalidOneTimeCode", aadsts: 50184)
        }
        let good = try await harness.follow(
            resent.link("verify"), ["continuationToken": resent["continuationToken"], "otp": newCode])
        #expect(good["state"] == "continue", "\(good.text)")
    }

    @Test("a wrong code is invalidGrant / invalidOneTimeCode and leaves the token usable")
    func wrongCode() async throws {
        let harness = Harness()
        let start = try await harness.v2SignInStart(Fixture.grace)
        let challenge = try await harness.follow(
            start.methods[0].link("challenge"), ["continuationToken": start["continuationToken"]])
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let wrong = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": "0" + code])
        expectHALError(wrong, "invalidGrant", inner: "invalidOneTimeCode", aadsts: 50184)
        #expect(wrong.halError["correlationId"] as? String == "corr-v2")
        let right = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": code])
        #expect(right["state"] == "continue", "\(right.text)")
    }

    @Test("password: a verify answer of type password; a wrong password is invalidUserNameOrPassword")
    func password() async throws {
        let harness = Harness()
        let start = try await harness.v2SignInStart(Fixture.ada)
        #expect(start["state"] == "interactionRequired" && start["action"] == "verify", "\(start.text)")
        #expect(start["type"] == "password" && !start["id"].isEmpty)
        #expect((start.json["payload"] as? [String: Any])?.isEmpty == true)
        #expect(!start.has("codeLength") && !start.has("hint") && start.link("resend").isEmpty)
        #expect(start.link("verify").hasSuffix("/api/v2.0/auth/methods/password/\(start["id"])/verify"))
        #expect(harness.tenant.outbox.isEmpty)
        let wrong = try await harness.follow(
            start.link("verify"), ["continuationToken": start["continuationToken"], "password": "nope"])
        expectHALError(wrong, "invalidGrant", inner: "invalidUserNameOrPassword", aadsts: 50126)
        let right = try await harness.follow(
            start.link("verify"), ["continuationToken": start["continuationToken"], "password": Fixture.adaPassword])
        #expect(right["state"] == "continue", "\(right.text)")
        let tokens = try await harness.redeem(try await harness.resume(right["continuationToken"]))
        #expect(try claims(tokens["id_token"])["preferred_username"] as? String == Fixture.ada)
    }

    @Test("MFA: after the password a multiFactor challenge lists the user's methods; the code goes to the one chosen")
    func mfa() async throws {
        let harness = Harness()
        let start = try await harness.v2SignInStart(Fixture.alan)
        let first = try await harness.follow(
            start.link("verify"), ["continuationToken": start["continuationToken"], "password": Fixture.alanPassword])
        #expect(first["state"] == "interactionRequired" && first["action"] == "challenge", "\(first.text)")
        #expect(first.factor == "multiFactor")
        let methods = first.methods
        #expect(methods.map { $0["id"] as? String } == ["sms-1", "email-1"])
        #expect(methods.map { $0["type"] as? String } == ["sms", "email"])
        #expect(methods[0]["hint"] as? String == "+********0123")
        #expect(methods[0].link("challenge").hasSuffix("/api/v2.0/auth/methods/sms/sms-1/challenge"))

        let challenge = try await harness.follow(
            methods[0].link("challenge"), ["continuationToken": first["continuationToken"]])
        #expect(challenge["action"] == "verify" && challenge["type"] == "sms" && challenge["id"] == "sms-1")
        #expect(challenge.factor == "multiFactor")
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.to == "+447700900123" && sent.purpose == "mfa")
        let done = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": sent.code])
        #expect(done["state"] == "continue", "\(done.text)")
        let tokens = try await harness.redeem(try await harness.resume(done["continuationToken"]))
        #expect(try claims(tokens["id_token"])["preferred_username"] as? String == Fixture.alan)
    }

    @Test("a browser-only user gets webFallbackRequired; one who must register a method, action: enroll")
    func webFallback() async throws {
        let harness = Harness()
        harness.tenant.addUser(EmulatedUser(username: "bo@contoso.com", requiresBrowser: true))
        let started = try await harness.startAuthorization()
        let browser = try await harness.follow(
            started["sign_in"], ["username": "bo@contoso.com", "continuationToken": started["continuation_token"]])
        #expect(browser.status == 200 && browser["state"] == "webFallbackRequired", "\(browser.text)")
        #expect(!browser.has("continuationToken") && !browser.has("action"))
        // The journey is over: its token is spent.
        let again = try await harness.follow(
            started["sign_in"], ["username": Fixture.grace, "continuationToken": started["continuation_token"]])
        expectHALError(again, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)

        let linus = try await harness.v2SignInStart(Fixture.linus)
        let registration = try await harness.follow(
            linus.link("verify"), ["continuationToken": linus["continuationToken"], "password": Fixture.linusPassword])
        #expect(registration["state"] == "interactionRequired", "\(registration.text)")
        #expect(registration["action"] == "enroll")
        #expect(registration.methods.map { $0["type"] as? String } == ["email", "sms"])
        #expect(registration.link("enroll").hasSuffix("/enroll"))
    }

    @Test("an unknown user is the HAL error with AADSTS50034; the token stays usable")
    func unknownUser() async throws {
        let harness = Harness()
        let started = try await harness.startAuthorization()
        let unknown = try await harness.follow(
            started["sign_in"], ["username": "nobody@contoso.com", "continuationToken": started["continuation_token"]])
        expectHALError(unknown, "userNotFound", aadsts: 50034)
        let known = try await harness.follow(
            started["sign_in"], ["username": Fixture.grace, "continuationToken": started["continuation_token"]])
        #expect(known["action"] == "challenge", "\(known.text)")
    }

    @Test("hrefs grafted onto the authority's path, as the MSAL clients do, reach the same endpoints")
    func grafted() async throws {
        let harness = Harness()
        let start = try await harness.v2SignInStart(Fixture.grace, grafted: true)
        let challenge = try await harness.follow(
            start.methods[0].link("challenge"), ["continuationToken": start["continuationToken"]], grafted: true)
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let done = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": code], grafted: true)
        #expect(done["state"] == "continue", "\(done.text)")
        let paths = harness.tenant.receivedRequests.map(\.url.path)
        #expect(paths.filter { $0.hasPrefix("/contoso.onmicrosoft.com/api/v2.0/") }.count == 3)
    }
}
