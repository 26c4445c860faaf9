import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Risk verification on the emulator (``EmulatorSettings/nativeAuthV2SMSRiskVerification``): the
/// first challenge of an SMS method answers `action: riskverify`, the SDK follows the link with
/// nothing the user types, and the code arrives as before; the app sees the same states.
@Suite("V2: risk verification of an SMS method on the emulator", .hangLimit)
struct RiskVerificationEmulatorTests {
    static let sam = "sam@example.com"
    static let phone = "+15550100"

    let harness: EmulatorHarness = {
        let harness = EmulatorHarness(
            users: EmulatorHarness.defaultUsers + [
                EmulatedUser(
                    username: RiskVerificationEmulatorTests.sam, password: EmulatorHarness.password,
                    mfaMethods: [
                        EmulatedAuthMethod(id: "sam-sms", channel: "sms", address: RiskVerificationEmulatorTests.phone)
                    ])
            ])
        harness.tenant.configure {
            $0.nativeAuthV2SMSRiskVerification = true
            $0.resetPollsBeforeCompletion = 0
        }
        return harness
    }()

    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    func smsSecondFactor() async throws -> MFARequiredState {
        let start = try await V2Clients.client(harness).signIn(
            SignInParameters(username: Self.sam, password: EmulatorHarness.password))
        guard case .awaitingMFA(let awaiting, let methods) = start else { throw TestFailure("expected awaitingMFA") }
        return try await awaiting.requestChallenge(authMethod: try #require(methods.first))
    }

    @Test func anSMSSecondFactorIsRiskVerifiedOnceThenSignsIn() async throws {
        let state = try await smsSecondFactor()
        #expect(state.channelTargetType == .sms)
        #expect(paths.suffix(2).map { $0.split(separator: "/").last ?? "" } == ["challenge", "riskverify"])
        #expect(paths.last?.contains("/api/v2.0/auth/methods/sms/sam-sms/riskverify") == true)
        // A resend of the same method: the phone is verified already, the code goes at once.
        let resent = try await state.resendCode()
        #expect(paths.last?.hasSuffix("/challenge") == true)
        #expect(paths.filter { $0.hasSuffix("/riskverify") }.count == 1)
        guard case .completed(let account) = try await resent.submitChallenge(harness.code(for: Self.phone)) else {
            throw TestFailure("expected completed")
        }
        #expect(account.account.username == Self.sam)
        // authorize-challenge, signin/start, the password's verify, the SMS challenge, riskverify,
        // the resend, the code's verify, resume, token.
        #expect(paths.count == 9, "\(paths)")
    }

    @Test func anSMSOnlyResetIsRiskVerifiedToo() async throws {
        harness.tenant.configure { $0.nativeAuthV2RecoveryMethods = .sms }
        guard
            case .codeRequired(let code, _, .sms, _) = try await V2Clients.client(harness, clock: TestClock())
                .resetPassword(
                    ResetPasswordParameters(username: Self.sam))
        else { throw TestFailure("expected an SMS code") }
        #expect(paths.contains { $0.hasSuffix("/sms/sam-sms/riskverify") })
        let password = try await code.submitCode(harness.code(for: Self.phone))
        let signIn = try await password.submitPassword("N3w-Secure-Pass!")
        guard case .completed = try await signIn.signIn() else { throw TestFailure("expected completed") }
    }

    @Test func anEmailMethodIsNeverRiskVerified() async throws {
        guard
            case .codeRequired = try await V2Clients.client(harness).resetPassword(
                ResetPasswordParameters(username: Self.sam))
        else { throw TestFailure("expected the email code") }
        #expect(!paths.contains { $0.hasSuffix("/riskverify") })
    }

    /// The link takes only the token of the answer that gave it, for the method it names.
    @Test func theLinkTakesOnlyItsOwnAnswersToken() async throws {
        let recorder = AnswerRecorder(harness.tenant)
        let start = try await V2Clients.client(harness, transport: recorder).signIn(
            SignInParameters(username: Self.sam, password: EmulatorHarness.password))
        guard case .awaitingMFA(let awaiting, let methods) = start else { throw TestFailure("expected awaitingMFA") }
        // The multiFactor challenge's token: no riskverify answer has been given in this flow.
        let offered = try #require(recorder.lastToken(answeredTo: "/verify"))
        #expect(try await post("api/v2.0/auth/methods/sms/sam-sms/riskverify", token: offered).statusCode == 400)
        #expect(harness.tenant.lastCode(sentTo: Self.phone) == nil, "no code was sent")
        // The flow goes on: its challenge asks for the verification, which sends the code.
        _ = try await awaiting.requestChallenge(authMethod: try #require(methods.first))
        #expect(harness.tenant.lastCode(sentTo: Self.phone) != nil)
    }

    @Test func offTheLinkIsNotServed() async throws {
        harness.tenant.configure { $0.nativeAuthV2SMSRiskVerification = false }
        let response = try await post("api/v2.0/auth/methods/sms/sam-sms/riskverify", token: "t")
        #expect(response.statusCode == 404)
        let before = paths.count
        _ = try await smsSecondFactor()
        #expect(!paths.dropFirst(before).contains { $0.hasSuffix("/riskverify") })
    }

    func post(_ path: String, token: String) async throws -> HTTPResponse {
        let url = harness.tenant.authority.appendingPathComponent(path)
        let body = try JSONSerialization.data(withJSONObject: ["continuationToken": token])
        return try await harness.tenant.send(
            HTTPRequest(method: "POST", url: url, headers: ["Content-Type": "application/json"], body: body))
    }
}

/// The `riskverify` link on the wire, request by request: it sends a code only for the answer that
/// gave it, once.
@Suite("V2: the emulator's riskverify link, on the wire", .hangLimit)
struct RiskVerificationWireTests {
    static let kim = "kim@example.com"
    static let phone = "+15550111"

    let harness: EmulatorHarness = {
        let harness = EmulatorHarness(
            users: [
                EmulatedUser(
                    username: RiskVerificationWireTests.kim, password: EmulatorHarness.password,
                    mfaMethods: [
                        EmulatedAuthMethod(id: "kim-sms", channel: "sms", address: RiskVerificationWireTests.phone),
                        EmulatedAuthMethod(id: "kim-email", channel: "email", address: "kim.backup@example.com"),
                    ])
            ])
        harness.tenant.configure { $0.nativeAuthV2SMSRiskVerification = true }
        return harness
    }()

    /// POSTs `object` as JSON to `href` (relative to the tenant's origin) and returns the answer.
    func post(_ href: String, _ object: [String: String]) async throws -> (status: Int, body: [String: Any]) {
        var components = try #require(URLComponents(url: harness.tenant.authority, resolvingAgainstBaseURL: false))
        components.path = href
        let response = try await harness.tenant.send(
            HTTPRequest(
                method: "POST", url: try #require(components.url), headers: ["Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: object)))
        return (response.statusCode, (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:])
    }

    /// The `multiFactor` challenge of Kim's sign-in: its token, and each method's `challenge` href.
    func secondFactor() async throws -> (token: String, challenge: [String: String]) {
        let start = try await harness.tenant.send(
            HTTPRequest(
                method: "POST", url: harness.tenant.url(for: .authorizeChallenge),
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("client_id=\(harness.tenant.clientId)".utf8)))
        let authorization = try #require(try JSONSerialization.jsonObject(with: start.body) as? [String: Any])
        let signIn = try await post(
            try #require(authorization["sign_in"] as? String),
            ["username": Self.kim, "continuationToken": try #require(authorization["continuation_token"] as? String)])
        let verify = try #require((signIn.body["_links"] as? [String: Any])?["verify"] as? [String: Any])
        let mfa = try await post(
            try #require(verify["href"] as? String),
            [
                "continuationToken": try #require(signIn.body["continuationToken"] as? String),
                "password": EmulatorHarness.password,
            ])
        let methods = try #require((mfa.body["_embedded"] as? [String: Any])?["methods"] as? [[String: Any]])
        var links: [String: String] = [:]
        for method in methods {
            let id = try #require(method["id"] as? String)
            links[id] = ((method["_links"] as? [String: Any])?["challenge"] as? [String: Any])?["href"] as? String
        }
        return (try #require(mfa.body["continuationToken"] as? String), links)
    }

    func riskVerifyLink(_ answer: [String: Any]) throws -> String {
        try #require(((answer["_links"] as? [String: Any])?["riskverify"] as? [String: Any])?["href"] as? String)
    }

    @Test func theLinkSendsTheCodeOnceForItsOwnAnswer() async throws {
        let (token, challenge) = try await secondFactor()
        let asked = try await post(try #require(challenge["kim-sms"]), ["continuationToken": token])
        #expect(asked.status == 200 && asked.body["action"] as? String == "riskverify")
        #expect(harness.tenant.lastCode(sentTo: Self.phone) == nil, "no code before the verification")
        let link = try riskVerifyLink(asked.body)
        let riskToken = try #require(asked.body["continuationToken"] as? String)
        let verified = try await post(link, ["continuationToken": riskToken])
        #expect(verified.status == 200 && verified.body["action"] as? String == "verify")
        let code = try #require(harness.tenant.lastCode(sentTo: Self.phone))
        // The same token again: spent.
        #expect(try await post(link, ["continuationToken": riskToken]).status == 400)
        // The newer token at the link: no verification is pending, nothing is sent.
        let newer = try #require(verified.body["continuationToken"] as? String)
        #expect(try await post(link, ["continuationToken": newer]).status == 400)
        #expect(harness.tenant.lastCode(sentTo: Self.phone) == code)
    }

    /// A verification left pending when the user picks another method is gone once that method's
    /// code is sent: the stale link cannot send an SMS code, nor switch the flow's method.
    @Test func aPendingVerificationEndsWhenAnotherMethodsCodeIsSent() async throws {
        let (token, challenge) = try await secondFactor()
        let asked = try await post(try #require(challenge["kim-sms"]), ["continuationToken": token])
        let link = try riskVerifyLink(asked.body)
        let email = try await post(
            try #require(challenge["kim-email"]),
            ["continuationToken": try #require(asked.body["continuationToken"] as? String)])
        #expect(email.body["action"] as? String == "verify")
        let newer = try #require(email.body["continuationToken"] as? String)
        #expect(try await post(link, ["continuationToken": newer]).status == 400)
        #expect(harness.tenant.lastCode(sentTo: Self.phone) == nil)
    }

    @Test func aLinkNamingAnotherMethodIsRefused() async throws {
        let (token, challenge) = try await secondFactor()
        let asked = try await post(try #require(challenge["kim-sms"]), ["continuationToken": token])
        let link = try riskVerifyLink(asked.body).replacingOccurrences(of: "kim-sms", with: "kim-other")
        let answer = try await post(
            link, ["continuationToken": try #require(asked.body["continuationToken"] as? String)])
        #expect(answer.status == 400)
        #expect(harness.tenant.lastCode(sentTo: Self.phone) == nil)
    }
}
