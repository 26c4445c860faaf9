import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// "Forgot your password?" on the password screen: ``SignInPasswordRequiredState/resetPassword(selectsAuthMethod:)``,
/// the same call over V1 (a reset of its own for the username) and V2 (the password method's
/// `recover` link, inside the sign-in), on the emulator.
@Suite("Password reset from the password screen, over V1 and V2", .hangLimit)
struct InlineResetPasswordTests {
    static let newPassword = "N3w-Secure-Pass!"
    static let authority = "/contoso.onmicrosoft.com"
    static let protocols: [NativeAuthProtocol] = [.v1, .v2]

    let harness = EmulatorHarness()
    /// The client's clock: a poll's sleep returns at once.
    let clock = TestClock()

    func client(_ version: NativeAuthProtocol, transport: (any HTTPTransport)? = nil) -> NativeAuthClient {
        guard
            var configuration = try? NativeAuthConfiguration(
                clientId: harness.tenant.clientId, authority: harness.tenant.authority,
                capabilities: [.mfaRequired, .registrationRequired])
        else { preconditionFailure("emulator configuration") }
        configuration.logger = harness.logger
        configuration.clock = clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.protocolVersion = version
        return NativeAuthClient(
            configuration: configuration, transport: transport ?? harness.tenant, credentialStore: harness.store)
    }

    func passwordState(_ client: NativeAuthClient) async throws -> SignInPasswordRequiredState {
        guard case .passwordRequired(let state) = try await client.signIn(SignInParameters(username: "ada@example.com"))
        else { throw TestFailure("expected passwordRequired") }
        return state
    }

    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    /// The password screen as an app writes it, with no protocol in sight: a wrong password, then
    /// "Forgot your password?", the code, a new password, and signed in.
    func forgotPasswordScreen(_ client: NativeAuthClient) async throws -> [String] {
        var trace: [String] = []
        let state = try await passwordState(client)
        do {
            _ = try await state.submitPassword("not-the-password")
        } catch { trace.append("wrong password: \(error.isInvalidPassword), usable: \(error.isStateStillUsable)") }
        guard case .codeRequired(let code, _, let channel, let length) = try await state.resetPassword() else {
            throw TestFailure("expected codeRequired")
        }
        trace.append("code(\(channel), \(length.map(String.init) ?? "?"))")
        let newPassword = try await code.submitCode(harness.code(for: "ada@example.com"))
        let signIn = try await newPassword.submitPassword(Self.newPassword)
        guard case .completed(let account) = try await signIn.signIn(scopes: ["api://demo/read"]) else {
            throw TestFailure("expected completed")
        }
        trace.append("completed(\(account.account.username))")
        let spent = try await #require(throws: PasswordRequiredError.self) { try await state.submitPassword("x") }
        trace.append("password state spent: \(spent.isStateAlreadyUsed)")
        return trace
    }

    @Test(arguments: Self.protocols)
    func theSameScreenOverBothProtocols(_ version: NativeAuthProtocol) async throws {
        let trace = try await forgotPasswordScreen(client(version))
        #expect(
            trace == [
                "wrong password: true, usable: true", "code(email, 8)", "completed(ada@example.com)",
                "password state spent: true",
            ])
        #expect(harness.tenant.user(named: "ada@example.com")?.password == Self.newPassword)
        // Every request of the sign-in and of its reset carries the sign-in's correlation id.
        let ids = Set(harness.tenant.receivedRequests.compactMap { $0.header("client-request-id") })
        #expect(ids.count == 1)
    }

    @Test("over V2 the recover link continues the sign-in: two requests, the sign-in's token")
    func overV2TheRecoverLinkContinuesTheSignIn() async throws {
        let recorder = AnswerRecorder(harness.tenant)
        let state = try await passwordState(client(.v2, transport: recorder))
        // A wrong password first: the token it leaves is the one `recover` sends.
        _ = try? await state.submitPassword("not-the-password")
        let before = harness.tenant.receivedRequests.count
        let signInToken = try #require(recorder.lastToken(answeredTo: "/signin/start"))
        guard case .codeRequired = try await state.resetPassword() else { throw TestFailure("expected codeRequired") }
        let sent = Array(harness.tenant.receivedRequests.dropFirst(before))
        #expect(sent.count == 2, "recover, then the email method's challenge")
        let recover = try #require(sent.first)
        let id = try #require(recover.url.path.split(separator: "/").dropLast().last)
        #expect(recover.url.path == "\(Self.authority)/api/v2.0/auth/methods/password/\(id)/recover")
        #expect(recover.header("Content-Type") == "application/json")
        let body = try #require(
            try JSONSerialization.jsonObject(with: recover.body ?? Data()) as? [String: String])
        #expect(body == ["continuationToken": signInToken])
        #expect(sent[1].url.path.hasSuffix("/challenge") && sent[1].url.path.contains("/methods/email/"))
        #expect(!paths.contains { $0.hasSuffix("/resetpassword/start") })
    }

    @Test("over V1 a reset of its own: resetpassword start and challenge, the sign-in's correlation id")
    func overV1AResetOfItsOwn() async throws {
        let state = try await passwordState(client(.v1))
        let before = harness.tenant.receivedRequests.count
        guard case .codeRequired(_, _, .email, _) = try await state.resetPassword() else {
            throw TestFailure("expected codeRequired")
        }
        #expect(
            Array(paths.dropFirst(before)) == [
                "POST \(Self.authority)/resetpassword/v1.0/start",
                "POST \(Self.authority)/resetpassword/v1.0/challenge",
            ])
        let ids = Set(harness.tenant.receivedRequests.compactMap { $0.header("client-request-id") })
        #expect(ids == [state.correlationId.uuidString.lowercased()] || ids == [state.correlationId.uuidString])
    }

    @Test("over V2 without a recover link: a reset of its own, which sends nothing of the sign-in")
    func withoutARecoverLinkAResetOfItsOwn() async throws {
        harness.tenant.configure { $0.nativeAuthV2PasswordRecovery = false }
        let recorder = AnswerRecorder(harness.tenant)
        let state = try await passwordState(client(.v2, transport: recorder))
        let before = harness.tenant.receivedRequests.count
        let signInToken = try #require(recorder.lastToken(answeredTo: "/signin/start"))
        #expect(!paths.contains { $0.hasSuffix("/recover") })
        guard case .codeRequired(let code, _, _, _) = try await state.resetPassword() else {
            throw TestFailure("expected codeRequired")
        }
        let sent = Array(harness.tenant.receivedRequests.dropFirst(before))
        #expect(
            sent.map(\.url.path).map { $0.replacingOccurrences(of: Self.authority, with: "") }.prefix(2) == [
                "/oauth2/v2.0/authorize-challenge", "/api/v2.0/resetpassword/start",
            ])
        #expect(sent.count == 3)
        #expect(!sent.contains { String(decoding: $0.body ?? Data(), as: UTF8.self).contains(signInToken) })
        let password = try await code.submitCode(harness.code(for: "ada@example.com"))
        _ = try await password.submitPassword(Self.newPassword)
        #expect(harness.tenant.user(named: "ada@example.com")?.password == Self.newPassword)
    }

    @Test(arguments: Self.protocols)
    func singleFlightThenSpent(_ version: NativeAuthProtocol) async throws {
        let gate = GatedTransport(harness.tenant)
        let state = try await passwordState(client(version, transport: gate))
        gate.close()
        let first = Task { try await state.resetPassword() }
        await gate.waitUntilHeld(1)
        let busy = try await #require(throws: ResetPasswordStartError.self) { try await state.resetPassword() }
        #expect(busy.isStateBusy)
        let password = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword(EmulatorHarness.password)
        }
        #expect(password.isStateBusy)
        #expect(gate.heldCount == 1)
        gate.open()
        guard case .codeRequired = try await first.value else { throw TestFailure("expected codeRequired") }
        let sent = harness.tenant.receivedRequests.count
        let again = try await #require(throws: ResetPasswordStartError.self) { try await state.resetPassword() }
        #expect(again.isStateAlreadyUsed && !again.isStateStillUsable)
        #expect(harness.tenant.receivedRequests.count == sent)
    }

    @Test(arguments: Self.protocols)
    func aNetworkFailureLeavesThePasswordScreenUsable(_ version: NativeAuthProtocol) async throws {
        let state = try await passwordState(client(version))
        harness.tenant.force(.networkFailure, on: version == .v2 ? .v2PasswordRecover : .resetStart)
        let failed = try await #require(throws: ResetPasswordStartError.self) { try await state.resetPassword() }
        #expect(failed.isNetworkError && failed.isStateStillUsable)
        // The user remembers the password after all: the same state signs in.
        guard case .completed = try await state.submitPassword(EmulatorHarness.password) else {
            throw TestFailure("expected completed")
        }
    }

    @Test("over V2 an expired sign-in spends the state: isFlowExpired")
    func anExpiredSignInSpendsTheState() async throws {
        let state = try await passwordState(client(.v2))
        harness.clock.advance(by: 3_600)
        let expired = try await #require(throws: ResetPasswordStartError.self) { try await state.resetPassword() }
        #expect(expired.isFlowExpired && !expired.isStateStillUsable)
        let spent = try await #require(throws: PasswordRequiredError.self) { try await state.submitPassword("x") }
        #expect(spent.isStateAlreadyUsed)
    }

    @Test("the delegate form reports once, on the main actor, to the client's reset delegate")
    @MainActor
    func delegateForm() async throws {
        let state = try await passwordState(client(.v2))
        let recorder = FlowDelegateRecorder()
        let call = try await recorder.next { state.resetPassword(delegate: recorder) }
        #expect(call.method == "onResetPasswordCodeRequired" && call.onMainQueue)
        guard case .state(.resetCode) = call.outcome else { throw TestFailure("expected the code state") }
        let refused = try await recorder.next { state.resetPassword(delegate: recorder) }
        #expect(refused.method == "onResetPasswordStartError")
        #expect(refused.outcome.failure?.isStateAlreadyUsed == true)
        #expect(recorder.calls.count == 2)
    }

}

/// A transport that records each answer of the tenant, to read the tokens it handed out.
final class AnswerRecorder: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let answers = LockedValue<[(path: String, body: Data)]>([])

    init(_ inner: any HTTPTransport) { self.inner = inner }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        answers.withLock { $0.append((request.url.path, response.body)) }
        return response
    }

    /// The `continuationToken` of the last answer to a path ending `suffix`.
    func lastToken(answeredTo suffix: String) -> String? {
        guard let body = answers.current.last(where: { $0.path.hasSuffix(suffix) })?.body,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return nil }
        return object["continuationToken"] as? String
    }
}
