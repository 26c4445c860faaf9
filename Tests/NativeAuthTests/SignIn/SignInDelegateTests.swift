import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Records every delegate call, checking each arrives on the main thread.
@MainActor
final class RecordingDelegate: SignInStartDelegate, SignInVerifyCodeDelegate, SignInResendCodeDelegate,
    SignInPasswordRequiredDelegate
{
    var calls: [String] = []
    var startError: SignInStartError?
    var verifyError: VerifyCodeError?
    var verifyErrorState: SignInCodeRequiredState?
    var passwordError: PasswordRequiredError?
    var resendError: ResendCodeError?
    var codeState: SignInCodeRequiredState?
    var passwordState: SignInPasswordRequiredState?
    var account: UserAccountResult?
    var offMainThread = false
    private var waiter: Latch<Void>?

    private func record(_ name: String) {
        if !MainQueueCheck.isOnMainQueue { offMainThread = true }
        calls.append(name)
        waiter?.fulfill(())
        waiter = nil
    }

    /// Runs `action` and waits for the next delegate call; with none within `TestBounds.wait`,
    /// records an issue at the caller's line and throws.
    func next(sourceLocation: SourceLocation = #_sourceLocation, _ action: () -> Void) async throws {
        let latch = Latch<Void>()
        waiter = latch
        action()
        try await latch.require("a delegate call after \(calls)", sourceLocation: sourceLocation)
    }

    func onSignInStartError(error: SignInStartError) {
        startError = error
        record("startError")
    }
    func onSignInCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        record("codeRequired")
    }
    func onSignInPasswordRequired(newState: SignInPasswordRequiredState) {
        passwordState = newState
        record("passwordRequired")
    }
    func onSignInCompleted(result: UserAccountResult) {
        account = result
        record("completed")
    }
    func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?) {
        verifyError = error
        verifyErrorState = newState
        record("verifyError")
    }
    func onSignInResendCodeError(error: ResendCodeError, newState: SignInCodeRequiredState?) {
        resendError = error
        record("resendError")
    }
    func onSignInResendCodeCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        record("resendCodeRequired")
    }
    func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?) {
        passwordError = error
        record("passwordError")
    }
}

/// Implements only the required error callback.
@MainActor
final class MinimalStartDelegate: SignInStartDelegate {
    var errors: [SignInStartError] = []
    private var waiter: Latch<Void>?

    /// Runs `action` and waits for the error callback; with none within `TestBounds.wait`,
    /// records an issue at the caller's line and throws.
    func next(sourceLocation: SourceLocation = #_sourceLocation, _ action: () -> Void) async throws {
        let latch = Latch<Void>()
        waiter = latch
        action()
        try await latch.require("the start error callback", sourceLocation: sourceLocation)
    }

    func onSignInStartError(error: SignInStartError) {
        errors.append(error)
        waiter?.fulfill(())
        waiter = nil
    }
}

@Suite("Sign-in delegates: one call, on the main actor, same outcomes as async", .hangLimit)
@MainActor
struct SignInDelegateTests {
    let transport = ScriptedTransport()
    let client: NativeAuthClient

    init() {
        client = NativeAuthClient(
            configuration: testConfiguration(), transport: transport, credentialStore: InMemoryCredentialStore())
    }

    /// Lets any stray second delegate call arrive before counting.
    func settle() async {
        for _ in 0..<50 { await Task.yield() }
    }

    @Test func codeFlowThroughDelegates() async throws {
        let delegate = RecordingDelegate()
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .oob("ct2"))
        try await delegate.next {
            client.signIn(parameters: SignInParameters(username: "ada@example.com"), delegate: delegate)
        }
        let state = try #require(delegate.codeState)

        transport.then("token", .error("invalid_grant", suberror: "invalid_oob_value"))
        try await delegate.next { state.submitCode(code: "0", delegate: delegate) }
        #expect(delegate.verifyError?.isInvalidCode == true)
        #expect(delegate.verifyErrorState === state)

        transport.then("challenge", .oob("ct3"))
        try await delegate.next { state.resendCode(delegate: delegate) }
        let fresh = try #require(delegate.codeState)
        #expect(fresh !== state)

        transport.then("token", .tokens())
        try await delegate.next { fresh.submitCode(code: "12345678", delegate: delegate) }
        await settle()
        #expect(delegate.calls == ["codeRequired", "verifyError", "resendCodeRequired", "completed"])
        #expect(delegate.account?.account.username == "ada@example.com")
        #expect(!delegate.offMainThread)
    }

    @Test func passwordFlowThroughDelegates() async throws {
        let delegate = RecordingDelegate()
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        try await delegate.next {
            client.signIn(parameters: SignInParameters(username: "ada@example.com"), delegate: delegate)
        }
        let state = try #require(delegate.passwordState)
        transport.then("token", .error("invalid_grant", codes: [50126]))
        try await delegate.next { state.submitPassword(password: "bad", delegate: delegate) }
        #expect(delegate.passwordError?.isInvalidPassword == true)
        transport.then("token", .tokens())
        try await delegate.next { state.submitPassword(password: "good", delegate: delegate) }
        await settle()
        #expect(delegate.calls == ["passwordRequired", "passwordError", "completed"])
    }

    @Test func startErrorThroughDelegate() async throws {
        let delegate = RecordingDelegate()
        transport.then("initiate", .error("user_not_found", codes: [50034]))
        try await delegate.next {
            client.signIn(parameters: SignInParameters(username: "nobody@example.com"), delegate: delegate)
        }
        await settle()
        #expect(delegate.calls == ["startError"])
        #expect(delegate.startError?.isUserNotFound == true)
    }

    @Test func spentStateThroughDelegateSendsNothing() async throws {
        let delegate = RecordingDelegate()
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .oob("ct2"))
        try await delegate.next { client.signIn(parameters: SignInParameters(username: "u"), delegate: delegate) }
        let state = try #require(delegate.codeState)
        transport.then("token", .tokens())
        try await delegate.next { state.submitCode(code: "1", delegate: delegate) }
        let count = transport.requests.count
        try await delegate.next { state.submitCode(code: "1", delegate: delegate) }
        #expect(delegate.verifyError?.isStateAlreadyUsed == true)
        #expect(delegate.verifyErrorState == nil)
        #expect(transport.requests.count == count)
    }

    @Test func missingOptionalMethodIsReportedWithTheOutcomeKept() async throws {
        let delegate = MinimalStartDelegate()
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .oob("ct2"))
        try await delegate.next { client.signIn(parameters: SignInParameters(username: "u"), delegate: delegate) }
        await settle()
        #expect(delegate.errors.count == 1)
        let error = try #require(delegate.errors.first)
        #expect(error.isMissingDelegateMethod)
        #expect(error.description.contains("onSignInCodeRequired"))
        // The state is not lost: it travels in the error and still works.
        guard case .codeRequired(let state, _, _, _)? = error.unhandledOutcome as? SignInStartResult else {
            throw TestFailure("expected the unhandled outcome")
        }
        transport.then("token", .tokens())
        _ = try await state.submitCode("12345678")
    }

    @Test func asyncAndDelegateFormsGiveTheSameOutcomes() async throws {
        // The same script through both forms: same request bodies, same outcome kinds.
        func script() {
            transport.then("initiate", .token("ct1"))
            transport.then("challenge", .oob("ct2"))
            transport.then("token", .error("invalid_grant", suberror: "invalid_oob_value"))
            transport.then("token", .tokens())
        }
        script()
        let result = try await client.signIn(SignInParameters(username: "u@x.y"))
        guard case .codeRequired(let state, _, _, _) = result else { throw TestFailure("expected code") }
        var asyncWrong: VerifyCodeError?
        do { _ = try await state.submitCode("0") } catch { asyncWrong = error }
        let asyncRight = try await state.submitCode("1")
        let asyncBodies = transport.requests.map(formFields)

        script()
        let delegate = RecordingDelegate()
        try await delegate.next { client.signIn(parameters: SignInParameters(username: "u@x.y"), delegate: delegate) }
        let delegateState = try #require(delegate.codeState)
        try await delegate.next { delegateState.submitCode(code: "0", delegate: delegate) }
        try await delegate.next { delegateState.submitCode(code: "1", delegate: delegate) }
        let delegateBodies = Array(transport.requests.map(formFields).dropFirst(asyncBodies.count))

        #expect(asyncBodies == delegateBodies)
        #expect(asyncWrong?.isInvalidCode == true)
        #expect(delegate.verifyError?.isInvalidCode == true)
        if case .completed = asyncRight {} else { Issue.record("expected completed") }
        #expect(delegate.calls == ["codeRequired", "verifyError", "completed"])
    }
}
