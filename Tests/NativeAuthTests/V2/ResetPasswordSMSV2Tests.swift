import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Password reset over native authentication V2 with an SMS method
/// (``EmulatorSettings/nativeAuthV2RecoveryMethods``): a reset whose only recovery method is SMS
/// sends the code there, and ``ResetPasswordParameters/selectsAuthMethod`` lets the user choose
/// between the email and SMS methods.
@Suite("Password reset over V2 with SMS and method selection", .hangLimit)
struct ResetPasswordSMSV2Tests {
    static let username = "ida@example.com"
    static let phone = "+15550100"
    static let newPassword = "N3w-Secure-Pass!"
    static let authority = "/contoso.onmicrosoft.com"

    let harness: EmulatorHarness = {
        let harness = EmulatorHarness(
            users: EmulatorHarness.defaultUsers + [
                EmulatedUser(
                    username: ResetPasswordSMSV2Tests.username, password: EmulatorHarness.password,
                    mfaMethods: [
                        EmulatedAuthMethod(id: "ida-sms", channel: "sms", address: ResetPasswordSMSV2Tests.phone)
                    ])
            ])
        harness.tenant.configure { $0.resetPollsBeforeCompletion = 0 }
        return harness
    }()
    /// The client's clock: a poll's sleep returns at once.
    let clock = TestClock()

    var client: NativeAuthClient { V2Clients.client(harness, clock: clock) }
    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    func configure(_ methods: EmulatorSettings.RecoveryMethods) {
        harness.tenant.configure { $0.nativeAuthV2RecoveryMethods = methods }
    }

    func selection() async throws -> (ResetPasswordAuthMethodSelectionRequiredState, [AuthMethod]) {
        configure(.emailAndSMS)
        var parameters = ResetPasswordParameters(username: Self.username)
        parameters.selectsAuthMethod = true
        guard case .authMethodSelectionRequired(let state, let methods) = try await client.resetPassword(parameters)
        else { throw TestFailure("expected authMethodSelectionRequired") }
        return (state, methods)
    }

    /// Submits the code sent to `address`, the new password, and signs in; the password changed.
    func finish(_ code: ResetPasswordCodeRequiredState, address: String) async throws {
        let password = try await code.submitCode(harness.code(for: address))
        let signIn = try await password.submitPassword(Self.newPassword)
        guard case .completed(let account) = try await signIn.signIn() else { throw TestFailure("expected completed") }
        #expect(account.account.username == Self.username)
        #expect(harness.tenant.user(named: Self.username)?.password == Self.newPassword)
    }

    @Test func anSMSOnlyResetSendsTheCodeByText() async throws {
        configure(.sms)
        guard
            case .codeRequired(let code, let sentTo, let channel, let length) = try await client.resetPassword(
                ResetPasswordParameters(username: Self.username))
        else { throw TestFailure("expected codeRequired") }
        #expect(channel == .sms && length == 8)
        #expect(sentTo.contains("***") && !sentTo.contains(Self.phone), "the answer's masked hint")
        #expect(code.channelTargetType == .sms && code.sentTo == sentTo)
        #expect(harness.tenant.lastCode(sentTo: Self.username) == nil, "nothing went to the email address")
        try await finish(code, address: Self.phone)
        // authorize-challenge, resetpassword/start, the SMS challenge and verify, the PUT, one poll,
        // resume, token.
        #expect(paths.count == 8)
        #expect(paths[2].hasPrefix("POST \(Self.authority)/api/v2.0/auth/methods/sms/"))
        #expect(paths[2].hasSuffix("/challenge"))
        #expect(paths[3].hasSuffix("/verify"))
    }

    @Test func theResendOfAnSMSCodeGoesToThePhone() async throws {
        configure(.sms)
        guard
            case .codeRequired(let code, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: Self.username))
        else { throw TestFailure("expected codeRequired") }
        let fresh = try await code.resendCode()
        #expect(fresh.channelTargetType == .sms)
        #expect(harness.tenant.outbox.filter { $0.to == Self.phone }.count == 2)
        try await finish(fresh, address: Self.phone)
    }

    @Test func withoutSelectionTheEmailMethodStaysFirst() async throws {
        configure(.emailAndSMS)
        guard
            case .codeRequired(let code, _, .email, _) = try await client.resetPassword(
                ResetPasswordParameters(username: Self.username))
        else { throw TestFailure("expected an email code") }
        #expect(harness.tenant.lastCode(sentTo: Self.phone) == nil)
        try await finish(code, address: Self.username)
    }

    @Test func theUserChoosesTheSMSMethod() async throws {
        let (state, methods) = try await selection()
        #expect(methods.map(\.channelTargetType) == [.email, .sms], "the server's order")
        #expect(methods.allSatisfy { $0.challengeType == "oob" && $0.loginHint.contains("***") })
        #expect(state.authMethods == methods)
        #expect(paths.count == 2, "nothing is sent before the choice")
        guard case .codeRequired(let code, _, .sms, 8) = try await state.selectAuthMethod(methods[1]) else {
            throw TestFailure("expected an SMS code")
        }
        try await finish(code, address: Self.phone)
        // authorize-challenge, resetpassword/start, the chosen method's challenge and verify, the
        // PUT, one poll, resume, token.
        #expect(paths.count == 8)
        #expect(paths[2].contains("/api/v2.0/auth/methods/sms/"))
        let spent = try await #require(throws: ResetPasswordStartError.self) {
            try await state.selectAuthMethod(methods[1])
        }
        #expect(spent.isStateAlreadyUsed)
    }

    @Test func theUserChoosesTheEmailMethod() async throws {
        let (state, methods) = try await selection()
        guard case .codeRequired(let code, _, .email, _) = try await state.selectAuthMethod(methods[0]) else {
            throw TestFailure("expected an email code")
        }
        try await finish(code, address: Self.username)
    }

    @Test func aMethodTheServerDidNotOfferSendsNothingAndKeepsTheState() async throws {
        let (state, methods) = try await selection()
        let sent = harness.tenant.receivedRequests.count
        let error = try await #require(throws: ResetPasswordStartError.self) {
            try await state.selectAuthMethod(AuthMethod(id: "other", channelTargetType: .sms, loginHint: "+1***"))
        }
        #expect(error.isStateStillUsable)
        #expect(harness.tenant.receivedRequests.count == sent)
        guard case .codeRequired = try await state.selectAuthMethod(methods[1]) else {
            throw TestFailure("expected codeRequired")
        }
    }

    @Test func aSingleMethodIsNeverOfferedForChoice() async throws {
        configure(.sms)
        var parameters = ResetPasswordParameters(username: Self.username)
        parameters.selectsAuthMethod = true
        guard case .codeRequired(_, _, .sms, _) = try await client.resetPassword(parameters) else {
            throw TestFailure("expected an SMS code at once")
        }
        // A user without an SMS method is offered the email method only.
        parameters.username = "ada@example.com"
        configure(.emailAndSMS)
        guard case .codeRequired(_, _, .email, _) = try await client.resetPassword(parameters) else {
            throw TestFailure("expected an email code at once")
        }
    }

    @Test func theStateShowsNoSecret() async throws {
        let (state, methods) = try await selection()
        let shown = state.description + String(reflecting: state) + "\(Mirror(reflecting: state).children.map(\.value))"
        #expect(shown.contains(methods[0].id))
        #expect(!shown.contains("continuationToken") && !shown.contains("href") && !shown.contains("/api/v2.0/"))
        #expect(!shown.contains(Self.phone))
    }

    @Test @MainActor func theDelegateFormReportsTheChoiceAndTheCode() async throws {
        configure(.emailAndSMS)
        var parameters = ResetPasswordParameters(username: Self.username)
        parameters.selectsAuthMethod = true
        let recorder = FlowDelegateRecorder()
        let client = client
        let chosen = try await recorder.next { client.resetPassword(parameters: parameters, delegate: recorder) }
        #expect(chosen.method == "onResetPasswordAuthMethodSelectionRequired" && chosen.onMainQueue)
        guard case .state(.resetAuthMethodSelection(let state)) = chosen.outcome else {
            throw TestFailure("expected the selection state")
        }
        let sent = try await recorder.next { state.selectAuthMethod(state.authMethods[1], delegate: recorder) }
        guard case .state(.resetCode(let code)) = sent.outcome else { throw TestFailure("expected the code state") }
        #expect(sent.method == "onResetPasswordCodeRequired" && code.channelTargetType == .sms)
    }

    /// "Forgot your password?" with the choice: the password state's `recover` link, then the
    /// methods to choose from, and the SMS method chosen sends the code by text.
    @Test func theInlineResetOffersTheChoiceToo() async throws {
        configure(.emailAndSMS)
        guard
            case .passwordRequired(let password) = try await client.signIn(SignInParameters(username: Self.username))
        else { throw TestFailure("expected passwordRequired") }
        let before = harness.tenant.receivedRequests.count
        guard
            case .authMethodSelectionRequired(let state, let methods) = try await password.resetPassword(
                selectsAuthMethod: true)
        else { throw TestFailure("expected authMethodSelectionRequired") }
        #expect(methods.map(\.channelTargetType) == [.email, .sms])
        #expect(paths.dropFirst(before).count == 1, "the recover link only: nothing is challenged before the choice")
        #expect(paths.last?.hasSuffix("/recover") == true)
        let sms = try #require(methods.first { $0.channelTargetType == .sms })
        guard case .codeRequired(let code, _, .sms, _) = try await state.selectAuthMethod(sms) else {
            throw TestFailure("expected an SMS code")
        }
        try await finish(code, address: Self.phone)
    }

    @Test func withoutTheChoiceTheInlineResetSendsTheEmailCode() async throws {
        configure(.emailAndSMS)
        guard
            case .passwordRequired(let password) = try await client.signIn(SignInParameters(username: Self.username))
        else { throw TestFailure("expected passwordRequired") }
        guard case .codeRequired(_, _, .email, _) = try await password.resetPassword() else {
            throw TestFailure("expected the email code")
        }
    }

    /// MSAL for iOS refuses a reset offering no email or SMS method; here the browser is asked
    /// for, and no `challenge` link (of another method, or the answer's own) is followed.
    @Test(arguments: [false, true])
    func aResetOfferingNoEmailOrSMSMethodAsksForTheBrowser(selects: Bool) async throws {
        let transport = RewritingTransport(harness.tenant, after: "/resetpassword/start") { object in
            guard var embedded = object["_embedded"] as? [String: Any],
                var methods = embedded["methods"] as? [[String: Any]], var method = methods.first
            else { return }
            method["type"] = "voice"
            methods = [method]
            embedded["methods"] = methods
            object["_embedded"] = embedded
            var links = object["_links"] as? [String: Any] ?? [:]
            links["challenge"] = method["_links"].flatMap { ($0 as? [String: Any])?["challenge"] }
            object["_links"] = links
        }
        let client = V2Clients.client(harness, transport: transport, clock: clock)
        var parameters = ResetPasswordParameters(username: Self.username)
        parameters.selectsAuthMethod = selects
        let error = try await #require(throws: ResetPasswordStartError.self) {
            try await client.resetPassword(parameters)
        }
        #expect(error.isBrowserRequired)
        #expect(transport.requests.count == 2, "authorize-challenge and resetpassword/start only")
        #expect(harness.tenant.lastCode(sentTo: Self.username) == nil)
    }

    @Test func overV1TheParameterChangesNothing() async throws {
        configure(.emailAndSMS)
        var parameters = ResetPasswordParameters(username: Self.username)
        parameters.selectsAuthMethod = true
        guard case .codeRequired(_, _, .email, _) = try await harness.makeClient().resetPassword(parameters) else {
            throw TestFailure("expected the V1 email code")
        }
    }
}
