import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The V2 password-reset journey, step by step (Docs/NativeAuthV2.md, "Using V2"; Docs/Emulator.md,
/// "Native Auth V2").
@Suite("Native Auth V2: the password-reset journey", .hangLimit)
struct V2ResetPasswordTests {
    static let newPassword = "Difference-Engine-1822"

    /// Sends `fields` as JSON with `method` to `href`, resolved on the tenant's origin.
    func send(_ harness: Harness, _ method: String, _ href: String, _ fields: [String: String]) async throws -> Reply {
        let url = try #require(URL(string: harness.origin + href))
        let request = HTTPRequest(
            method: method, url: url, headers: ["Content-Type": "application/json", "client-request-id": "corr-v2"],
            body: try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]))
        return try await Reply(harness.tenant.send(request))
    }

    /// authorize-challenge, then `resetpassword/start` for `username`.
    func start(_ harness: Harness, _ username: String) async throws -> Reply {
        let started = try await harness.startAuthorization()
        #expect(started["reset_password"] == "/\(harness.tenant.tenantId)/api/v2.0/resetpassword/start")
        return try await harness.follow(
            started["reset_password"], ["username": username, "continuationToken": started["continuation_token"]])
    }

    /// Start, challenge and verify for Ada: the `action: update` answer.
    func verified(_ harness: Harness) async throws -> Reply {
        let start = try await start(harness, Fixture.ada)
        let challenge = try await harness.follow(
            start.methods[0].link("challenge"), ["continuationToken": start["continuationToken"]])
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.ada))
        return try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": code])
    }

    @Test("start, challenge, verify, PUT update, two polls, continue; then resume and the code grant")
    func wholeJourney() async throws {
        let harness = Harness()
        let tenantId = harness.tenant.tenantId
        let start = try await start(harness, Fixture.ada)
        #expect(start.status == 200, "\(start.text)")
        #expect(start["state"] == "interactionRequired" && start["action"] == "challenge")
        #expect(start.factor == "singleFactor")
        try #require(start.methods.count == 1)
        let method = start.methods[0]
        let id = try #require(method["id"] as? String)
        #expect(method["type"] as? String == "email" && method["hint"] as? String == "a***a@co**o.com")
        #expect(method.link("challenge") == "/\(tenantId)/api/v2.0/auth/methods/email/\(id)/challenge")
        #expect(harness.tenant.outbox.isEmpty)

        let challenge = try await harness.follow(
            method.link("challenge"), ["continuationToken": start["continuationToken"]])
        #expect(challenge["action"] == "verify" && challenge.number("codeLength") == 8, "\(challenge.text)")
        #expect(!challenge.link("resend").isEmpty)
        let sent = try #require(harness.tenant.outbox.last)
        #expect(sent.to == Fixture.ada && sent.purpose == "resetPassword")

        let verified = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": sent.code])
        #expect(verified["state"] == "interactionRequired" && verified["action"] == "update", "\(verified.text)")
        #expect(verified["type"] == "password" && !verified["id"].isEmpty)
        #expect((verified.json["payload"] as? [String: Any])?.isEmpty == true)
        let update = verified.link("update")
        #expect(update == "/\(tenantId)/api/v2.0/auth/methods/password/\(verified["id"])")

        let updated = try await send(
            harness, "PUT", update,
            ["continuationToken": verified["continuationToken"], "newPassword": Self.newPassword])
        #expect(updated["action"] == "poll" && updated.number("pollInterval") == 1_000, "\(updated.text)")
        #expect(updated.link("poll") == update + "/pollUpdate")
        var token = updated["continuationToken"]
        for _ in 0..<2 {
            let polled = try await harness.follow(updated.link("poll"), ["continuationToken": token])
            #expect(polled["action"] == "poll", "\(polled.text)")
            #expect(polled["continuationToken"] != token)
            token = polled["continuationToken"]
        }
        // Still the old password until the update finishes.
        #expect(try await harness.signIn(Fixture.ada, password: Fixture.adaPassword).status == 200)
        let done = try await harness.follow(updated.link("poll"), ["continuationToken": token])
        #expect(done["state"] == "continue" && done.link("continue").hasSuffix("/oauth2/v2.0/authorize-challenge"))
        let tokens = try await harness.redeem(try await harness.resume(done["continuationToken"]))
        #expect(try claims(tokens["id_token"])["preferred_username"] as? String == Fixture.ada)
        #expect(try await harness.signIn(Fixture.ada, password: Self.newPassword).status == 200)
        expectError(
            try await harness.signIn(Fixture.ada, password: Fixture.adaPassword), "invalid_grant", code: 50126)
    }

    @Test("a weak password is invalidRequest with innerError passwordTooWeak; the token stays usable")
    func policy() async throws {
        let harness = Harness()
        let verified = try await verified(harness)
        let token = verified["continuationToken"]
        let weak = try await send(
            harness, "PUT", verified.link("update"), ["continuationToken": token, "newPassword": "alllowercase"])
        expectHALError(weak, "invalidRequest", inner: "passwordTooWeak", aadsts: 120002)
        let short = try await send(
            harness, "PUT", verified.link("update"), ["continuationToken": token, "newPassword": "a"])
        expectHALError(short, "invalidRequest", inner: "passwordTooShort", aadsts: 120002)
        let reused = try await send(
            harness, "PUT", verified.link("update"), ["continuationToken": token, "newPassword": Fixture.adaPassword])
        expectHALError(reused, "invalidRequest", inner: "passwordRecentlyUsed", aadsts: 120002)
        let good = try await send(
            harness, "PUT", verified.link("update"), ["continuationToken": token, "newPassword": Self.newPassword])
        #expect(good["action"] == "poll", "\(good.text)")
    }

    @Test("update answers PUT only; a POST to its href is 404 and changes nothing")
    func putOnly() async throws {
        let harness = Harness()
        let verified = try await verified(harness)
        let posted = try await harness.follow(
            verified.link("update"),
            ["continuationToken": verified["continuationToken"], "newPassword": Self.newPassword])
        #expect(posted.status == 404, "\(posted.text)")
        let put = try await send(
            harness, "PUT", verified.link("update"),
            ["continuationToken": verified["continuationToken"], "newPassword": Self.newPassword])
        #expect(put["action"] == "poll", "\(put.text)")
    }

    @Test("a wrong code is invalidOneTimeCode; the reset's token cannot verify a sign-in, nor skip to update")
    func wrongCodeAndStages() async throws {
        let harness = Harness()
        let start = try await start(harness, Fixture.ada)
        let early = try await send(
            harness, "PUT", "/\(harness.tenant.tenantId)/api/v2.0/auth/methods/password/x",
            ["continuationToken": start["continuationToken"], "newPassword": Self.newPassword])
        expectHALError(early, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)
        let challenge = try await harness.follow(
            start.methods[0].link("challenge"), ["continuationToken": start["continuationToken"]])
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.ada))
        let wrong = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": "0" + code])
        expectHALError(wrong, "invalidGrant", inner: "invalidOneTimeCode", aadsts: 50184)
        let right = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": code])
        #expect(right["action"] == "update", "\(right.text)")
    }

    @Test("resend sends a new code to the same address")
    func resend() async throws {
        let harness = Harness()
        let start = try await start(harness, Fixture.ada)
        let first = try await harness.follow(
            start.methods[0].link("challenge"), ["continuationToken": start["continuationToken"]])
        let again = try await harness.follow(first.link("resend"), ["continuationToken": first["continuationToken"]])
        #expect(again["action"] == "verify", "\(again.text)")
        #expect(harness.tenant.outbox.filter { $0.to == Fixture.ada && $0.purpose == "resetPassword" }.count == 2)
    }

    @Test(
        "an unknown user is userNotFound (AADSTS50034); a browser-only user webFallbackRequired; no password, userDoesNotHavePassword"
    )
    func refusals() async throws {
        let harness = Harness()
        harness.tenant.addUser(EmulatedUser(username: "bo@contoso.com", password: "Pass-word-1", requiresBrowser: true))
        expectHALError(try await start(harness, "nobody@contoso.com"), "userNotFound", aadsts: 50034)
        let browser = try await start(harness, "bo@contoso.com")
        #expect(browser["state"] == "webFallbackRequired" && !browser.has("continuationToken"), "\(browser.text)")
        expectHALError(
            try await start(harness, Fixture.grace), "invalidRequest", inner: "userDoesNotHavePassword", aadsts: 500222)
    }
}
