import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Receives every callback of the sign-up-or-sign-in delegates, on the main queue, one at a time.
@MainActor
final class SignUpOrSignInRecorder: SignUpOrSignInStartDelegate, SignUpOrSignInVerifyCodeDelegate,
    SignUpOrSignInResendCodeDelegate
{
    var calls: [String] = []
    var codeState: SignUpOrSignInCodeRequiredState?
    var errorState: SignUpOrSignInCodeRequiredState?
    var startError: SignUpOrSignInStartError?
    var verifyError: VerifyCodeError?
    var account: UserAccountResult?
    var accountCreated: Bool?
    var offMainQueue = false
    private var waiter: Latch<Void>?

    private func record(_ name: String) {
        if !MainQueueCheck.isOnMainQueue { offMainQueue = true }
        calls.append(name)
        waiter?.fulfill(())
        waiter = nil
    }

    /// Runs `action` and waits, with a bound, for the callback it leads to.
    func next(sourceLocation: SourceLocation = #_sourceLocation, _ action: () -> Void) async throws {
        let latch = Latch<Void>()
        waiter = latch
        action()
        try await latch.require("a delegate call after \(calls)", sourceLocation: sourceLocation)
    }

    func onSignUpOrSignInStartError(error: SignUpOrSignInStartError) {
        startError = error
        record("startError")
    }
    func onSignUpOrSignInCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        record(newState.isNewUser ? "codeRequired(new)" : "codeRequired(known)")
    }
    func onSignUpOrSignInPasswordRequired(newState: SignInPasswordRequiredState) { record("passwordRequired") }
    func onSignUpOrSignInVerifyCodeError(error: VerifyCodeError, newState: SignUpOrSignInCodeRequiredState?) {
        verifyError = error
        errorState = newState
        record("verifyError")
    }
    func onSignUpOrSignInCompleted(result: UserAccountResult, accountCreated: Bool) {
        account = result
        self.accountCreated = accountCreated
        record("completed")
    }
    func onSignUpOrSignInResendCodeError(error: ResendCodeError, newState: SignUpOrSignInCodeRequiredState?) {
        record("resendError")
    }
    func onSignUpOrSignInResendCodeCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        record("resendCodeRequired")
    }
}

/// Implements only the required callbacks: every other outcome arrives as an error that keeps it.
@MainActor
final class MinimalSignUpOrSignInDelegate: SignUpOrSignInStartDelegate, SignUpOrSignInVerifyCodeDelegate {
    let started = Latch<SignUpOrSignInStartError>()
    let verified = Latch<VerifyCodeError>()
    func onSignUpOrSignInStartError(error: SignUpOrSignInStartError) { started.fulfill(error) }
    func onSignUpOrSignInVerifyCodeError(error: VerifyCodeError, newState: SignUpOrSignInCodeRequiredState?) {
        verified.fulfill(error)
    }
}

@Suite("Sign up or sign in, delegate form", .hangLimit)
@MainActor
struct SignUpOrSignInDelegateTests {
    let harness = EmulatorHarness()
    var client: NativeAuthClient { harness.makeClient(challengeTypes: [.oob]) }

    @Test func aNewUserGoesFromCodeToSignedInThroughTheDelegates() async throws {
        let delegate = SignUpOrSignInRecorder()
        let client = client
        try await delegate.next {
            client.signUpOrSignIn(
                parameters: SignUpOrSignInParameters(username: "new.user@example.com", attributes: ["city": "Oslo"]),
                delegate: delegate)
        }
        let state = try #require(delegate.codeState)
        try await delegate.next { state.submitCode(code: "00000000", delegate: delegate) }
        #expect(delegate.verifyError?.isInvalidCode == true)
        #expect(delegate.errorState === state)
        try await delegate.next { state.resendCode(delegate: delegate) }
        let fresh = try #require(delegate.codeState)
        #expect(fresh !== state && fresh.isNewUser)
        let code = try harness.code(for: "new.user@example.com")
        try await delegate.next { fresh.submitCode(code: code, delegate: delegate) }
        #expect(
            delegate.calls == ["codeRequired(new)", "verifyError", "resendCodeRequired", "completed"])
        #expect(delegate.accountCreated == true)
        #expect(delegate.account?.account.username == "new.user@example.com")
        #expect(!delegate.offMainQueue)
    }

    @Test func aKnownUserAndAStartErrorReachTheirCallbacks() async throws {
        let delegate = SignUpOrSignInRecorder()
        let client = client
        try await delegate.next {
            client.signUpOrSignIn(
                parameters: SignUpOrSignInParameters(username: "grace@example.com"), delegate: delegate)
        }
        let state = try #require(delegate.codeState)
        let code = try harness.code(for: "grace@example.com")
        try await delegate.next { state.submitCode(code: code, delegate: delegate) }
        #expect(delegate.accountCreated == false)
        try await delegate.next {
            client.signUpOrSignIn(parameters: SignUpOrSignInParameters(username: ""), delegate: delegate)
        }
        #expect(delegate.startError?.isInvalidUsername == true)
        #expect(delegate.calls == ["codeRequired(known)", "completed", "startError"])
    }

    @Test func aDelegateWithoutAnOptionalCallbackGetsTheOutcomeInAnError() async throws {
        let delegate = MinimalSignUpOrSignInDelegate()
        client.signUpOrSignIn(parameters: SignUpOrSignInParameters(username: "grace@example.com"), delegate: delegate)
        let error = try await delegate.started.require("the start error")
        #expect(error.isMissingDelegateMethod)
        #expect(error.description.contains("onSignUpOrSignInCodeRequired"))
        guard case .codeRequired(let state, _, _, _)? = error.details.unhandledOutcome as? SignUpOrSignInStartResult
        else { throw TestFailure("the outcome is kept") }
        state.submitCode(code: try harness.code(for: "grace@example.com"), delegate: delegate)
        let verify = try await delegate.verified.require("the verify error")
        #expect(verify.isMissingDelegateMethod)
        #expect(verify.description.contains("onSignUpOrSignInCompleted"))
    }
}
