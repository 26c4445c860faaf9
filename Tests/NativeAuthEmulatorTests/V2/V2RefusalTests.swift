import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// What the V2 HAL endpoints refuse: spent, expired and misplaced continuation tokens, methods a
/// step did not offer, and hostile bodies, each with a clean error answer.
@Suite("Native Auth V2: refusals", .hangLimit)
struct V2RefusalTests {
    @Test("every continuation token is single-use: the step that moves the flow spends it")
    func singleUse() async throws {
        let harness = Harness()
        let started = try await harness.startAuthorization()
        let fields = ["username": Fixture.grace, "continuationToken": started["continuation_token"]]
        let start = try await harness.follow(started["sign_in"], fields)
        #expect(start["action"] == "challenge")
        let replay = try await harness.follow(started["sign_in"], fields)
        expectHALError(replay, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)

        let challengeHref = start.methods[0].link("challenge")
        let challenge = try await harness.follow(challengeHref, ["continuationToken": start["continuationToken"]])
        #expect(challenge["action"] == "verify")
        let replayed = try await harness.follow(challengeHref, ["continuationToken": start["continuationToken"]])
        expectHALError(replayed, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)
        #expect(harness.tenant.outbox.count == 1)

        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let verify = ["continuationToken": challenge["continuationToken"], "otp": code]
        #expect(try await harness.follow(challenge.link("verify"), verify)["state"] == "continue")
        let twice = try await harness.follow(challenge.link("verify"), verify)
        expectHALError(twice, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)
    }

    @Test("tokens expire with continuationTokenLifetime on the tenant's clock")
    func expiry() async throws {
        let harness = Harness { $0.continuationTokenLifetime = 60 }
        let start = try await harness.v2SignInStart(Fixture.grace)
        harness.clock.advance(by: 59)
        let challenge = try await harness.follow(
            start.methods[0].link("challenge"), ["continuationToken": start["continuationToken"]])
        #expect(challenge["action"] == "verify", "\(challenge.text)")
        harness.clock.advance(by: 60)
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let late = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": code])
        expectHALError(late, "expiredToken", inner: "invalidContinuationToken", aadsts: 552003)
        let unknown = try await harness.follow(challenge.link("verify"), ["continuationToken": "nope", "otp": code])
        expectHALError(unknown, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)
    }

    @Test("a step the flow is not at, or a method it did not offer, is refused and spends nothing")
    func wrongStepOrMethod() async throws {
        let harness = Harness()
        let start = try await harness.v2SignInStart(Fixture.grace)
        let token = start["continuationToken"]
        let method = start.methods[0]
        // verify before any code was sent
        let early = try await harness.follow(method.link("verify"), ["continuationToken": token, "otp": "1"])
        expectHALError(early, "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000)
        // another method id, another type
        let tenantId = harness.tenant.tenantId
        let otherId = try await harness.follow(
            "/\(tenantId)/api/v2.0/auth/methods/email/someone-else/challenge", ["continuationToken": token])
        expectHALError(otherId, "invalidRequest", aadsts: 90100)
        let id = try #require(method["id"] as? String)
        let otherType = try await harness.follow(
            "/\(tenantId)/api/v2.0/auth/methods/sms/\(id)/challenge", ["continuationToken": token])
        expectHALError(otherType, "invalidRequest", aadsts: 90100)
        // a password verify on a code method
        let challenge = try await harness.follow(method.link("challenge"), ["continuationToken": token])
        let noOTP = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "password": "x"])
        expectHALError(noOTP, "invalidRequest", aadsts: 90100)
        #expect(harness.tenant.outbox.count == 1)
        let code = try #require(harness.tenant.lastCode(sentTo: Fixture.grace))
        let right = try await harness.follow(
            challenge.link("verify"), ["continuationToken": challenge["continuationToken"], "otp": code])
        #expect(right["state"] == "continue")
    }

    @Test(
        "hostile bodies get invalidRequest, never a crash",
        arguments: [
            ("", "application/json"),
            ("not json", "application/json"),
            ("[1,2]", "application/json"),
            ("\"text\"", "application/json"),
            (#"{"username":7,"continuationToken":true}"#, "application/json"),
            (#"{"username":null}"#, "application/json"),
            (#"{"username":"a","continuationToken":"b",}"#, "application/json"),
            (String(repeating: "[", count: 10_000), "application/json"),
            (String(repeating: #"{"a":"#, count: 500), "application/json"),
            (#"{"username":"\ud800"}"#, "application/json"),
            ("username=a&continuationToken=b", "application/x-www-form-urlencoded"),
            (#"{"username":"a"}"#, "text/plain"),
        ])
    func hostileBodies(body: String, contentType: String) async throws {
        let harness = Harness()
        let href = "/\(harness.tenant.tenantId)/api/v2.0/signin/start"
        let reply = try await harness.follow(href, raw: body, contentType: contentType)
        #expect(reply.status == 400, "\(reply.text)")
        #expect(reply.halError["code"] as? String == "invalidRequest", "\(reply.text)")
    }

    @Test("no Content-Type, and bytes that are not UTF-8, are refused; application/hal+json is taken")
    func contentTypes() async throws {
        let harness = Harness()
        let started = try await harness.startAuthorization()
        let json = #"{"username":"\#(Fixture.grace)","continuationToken":"\#(started["continuation_token"])"}"#
        let none = try await harness.follow(started["sign_in"], raw: json, contentType: nil)
        expectHALError(none, "invalidRequest", aadsts: 90100)
        let url = try #require(URL(string: harness.origin + started["sign_in"]))
        let bytes = try await Reply(
            harness.tenant.send(
                HTTPRequest(
                    method: "POST", url: url, headers: ["Content-Type": "application/json"],
                    body: Data([0x7B, 0xFF, 0xFE, 0x7D]))))
        expectHALError(bytes, "invalidRequest", aadsts: 90100)
        let hal = try await harness.follow(started["sign_in"], raw: json, contentType: "application/hal+json")
        #expect(hal["action"] == "challenge", "\(hal.text)")
    }
}
