import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Records the calls of every sign-up, reset, MFA and registration delegate.
@MainActor
final class FlowRecorder: SignUpStartDelegate, SignUpVerifyCodeDelegate, SignUpResendCodeDelegate,
    SignUpPasswordRequiredDelegate, SignUpAttributesRequiredDelegate, SignInAfterSignUpDelegate,
    ResetPasswordStartDelegate, ResetPasswordVerifyCodeDelegate, ResetPasswordResendCodeDelegate,
    ResetPasswordRequiredDelegate, SignInAfterResetPasswordDelegate, SignInStartDelegate, MFARequestChallengeDelegate,
    MFASubmitChallengeDelegate, RegisterStrongAuthChallengeDelegate, RegisterStrongAuthSubmitChallengeDelegate
{
    var calls: [String] = []
    var values: [String: Any] = [:]
    var offMain = false
    private var waiter: Latch<Void>?

    /// Runs `action` and waits for the next delegate call; with none within `TestBounds.wait`,
    /// records an issue at the caller's line and throws.
    func next(sourceLocation: SourceLocation = #_sourceLocation, _ action: () -> Void) async throws {
        let latch = Latch<Void>()
        waiter = latch
        action()
        try await latch.require("a delegate call after \(calls)", sourceLocation: sourceLocation)
    }

    func value<T>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let value = values[name] as? T else { throw TestFailure("no \(name)") }
        return value
    }

    private func record(_ name: String, _ value: Any? = nil) {
        if !MainQueueCheck.isOnMainQueue { offMain = true }
        calls.append(name)
        if let value { values[name] = value }
        waiter?.fulfill(())
        waiter = nil
    }

    // Sign-up
    func onSignUpStartError(error: SignUpStartError) { record("signUpStartError", error) }
    func onSignUpCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        record("signUpCodeRequired", newState)
    }
    func onSignUpAttributesInvalid(attributeNames: [String]) { record("signUpAttributesInvalid", attributeNames) }
    func onSignUpCompleted(newState: SignInAfterSignUpState) { record("signUpCompleted", newState) }
    func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState) { record("signUpPasswordRequired", newState) }
    func onSignUpAttributesRequired(attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState) {
        record("signUpAttributesRequired", newState)
    }
    func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?) {
        record("signUpVerifyCodeError", error)
    }
    func onSignUpResendCodeError(error: ResendCodeError, newState: SignUpCodeRequiredState?) {
        record("signUpResendCodeError", error)
    }
    func onSignUpResendCodeCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        record("signUpResendCodeRequired", newState)
    }
    func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?) {
        record("signUpPasswordError", error)
    }
    func onSignUpAttributesRequiredError(error: AttributesRequiredError, newState: SignUpAttributesRequiredState?) {
        record("signUpAttributesError", error)
    }
    func onSignInAfterSignUpError(error: SignInAfterSignUpError) { record("signInAfterSignUpError", error) }

    // Reset
    func onResetPasswordStartError(error: ResetPasswordStartError) { record("resetStartError", error) }
    func onResetPasswordCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        record("resetCodeRequired", newState)
    }
    func onResetPasswordVerifyCodeError(error: VerifyCodeError, newState: ResetPasswordCodeRequiredState?) {
        record("resetVerifyCodeError", error)
    }
    func onPasswordRequired(newState: ResetPasswordRequiredState) { record("resetPasswordRequired", newState) }
    func onResetPasswordResendCodeError(error: ResendCodeError, newState: ResetPasswordCodeRequiredState?) {
        record("resetResendError", error)
    }
    func onResetPasswordResendCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        record("resetResendCodeRequired", newState)
    }
    func onResetPasswordRequiredError(error: PasswordRequiredError, newState: ResetPasswordRequiredState?) {
        record("resetPasswordError", error)
    }
    func onResetPasswordCompleted(newState: SignInAfterResetPasswordState) { record("resetCompleted", newState) }
    func onSignInAfterResetPasswordError(error: SignInAfterResetPasswordError) {
        record("signInAfterResetError", error)
    }

    // Sign-in results, MFA, registration
    func onSignInStartError(error: SignInStartError) { record("signInStartError", error) }
    func onSignInCompleted(result: UserAccountResult) { record("signInCompleted", result) }
    func onSignInAwaitingMFA(newState: AwaitingMFAState) { record("awaitingMFA", newState) }
    func onSignInStrongAuthMethodRegistration(authMethods: [AuthMethod], newState: RegisterStrongAuthState) {
        record("registrationRequired", newState)
    }
    func onMFARequestChallengeError(error: MFARequestChallengeError) { record("mfaRequestError", error) }
    func onMFARequestChallengeVerificationRequired(
        newState: MFARequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        record("mfaVerificationRequired", newState)
    }
    func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?) {
        record("mfaSubmitError", error)
    }
    func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError) {
        record("registerChallengeError", error)
    }
    func onRegisterStrongAuthVerificationRequired(
        newState: RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: ChannelType,
        codeLength: Int?
    ) {
        record("registerVerificationRequired", newState)
    }
    func onRegisterStrongAuthSubmitChallengeError(
        error: RegisterStrongAuthSubmitChallengeError, newState: RegisterStrongAuthVerificationRequiredState?
    ) {
        record("registerSubmitError", error)
    }
}

@Suite("Sign-up, reset, MFA and registration through delegates", .timeLimit(.minutes(1)))
@MainActor
struct FlowDelegateTests {
    let harness = EmulatorHarness()

    @Test func signUpThroughDelegates() async throws {
        harness.tenant.configure { $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "city")] }
        let recorder = FlowRecorder()
        let client = harness.client
        try await recorder.next {
            client.signUp(parameters: SignUpParameters(username: "d@example.com"), delegate: recorder)
        }
        let codeState: SignUpCodeRequiredState = try recorder.value("signUpCodeRequired")
        try await recorder.next { codeState.submitCode(code: "0", delegate: recorder) }
        #expect(try recorder.value("signUpVerifyCodeError", as: VerifyCodeError.self).isInvalidCode)
        try await recorder.next { codeState.resendCode(delegate: recorder) }
        let fresh: SignUpCodeRequiredState = try recorder.value("signUpResendCodeRequired")
        let code = try harness.code(for: "d@example.com")
        try await recorder.next { fresh.submitCode(code: code, delegate: recorder) }
        let passwordState: SignUpPasswordRequiredState = try recorder.value("signUpPasswordRequired")
        try await recorder.next { passwordState.submitPassword(password: "weak", delegate: recorder) }
        #expect(
            try recorder.value("signUpPasswordError", as: PasswordRequiredError.self).passwordPolicyViolation
                == .tooShort)
        try await recorder.next { passwordState.submitPassword(password: EmulatorHarness.password, delegate: recorder) }
        let attributesState: SignUpAttributesRequiredState = try recorder.value("signUpAttributesRequired")
        try await recorder.next { attributesState.submitAttributes(attributes: ["city": "Oslo"], delegate: recorder) }
        let after: SignInAfterSignUpState = try recorder.value("signUpCompleted")
        try await recorder.next { after.signIn(delegate: recorder) }
        #expect(
            recorder.calls == [
                "signUpCodeRequired", "signUpVerifyCodeError", "signUpResendCodeRequired", "signUpPasswordRequired",
                "signUpPasswordError", "signUpAttributesRequired", "signUpCompleted", "signInCompleted",
            ])
        #expect(!recorder.offMain)
    }

    @Test func signUpStartOutcomesThroughDelegates() async throws {
        harness.tenant.configure { $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "age", type: "int")] }
        let recorder = FlowRecorder()
        let client = harness.client
        try await recorder.next {
            client.signUp(
                parameters: SignUpParameters(username: "d@example.com", attributes: ["age": "old"]), delegate: recorder)
        }
        #expect(try recorder.value("signUpAttributesInvalid", as: [String].self) == ["age"])
        try await recorder.next {
            client.signUp(parameters: SignUpParameters(username: "ada@example.com"), delegate: recorder)
        }
        #expect(try recorder.value("signUpStartError", as: SignUpStartError.self).isUserAlreadyExists)
    }

    @Test func resetThroughDelegates() async throws {
        let recorder = FlowRecorder()
        let client = harness.client
        try await recorder.next {
            client.resetPassword(parameters: ResetPasswordParameters(username: "ada@example.com"), delegate: recorder)
        }
        let codeState: ResetPasswordCodeRequiredState = try recorder.value("resetCodeRequired")
        try await recorder.next { codeState.resendCode(delegate: recorder) }
        let fresh: ResetPasswordCodeRequiredState = try recorder.value("resetResendCodeRequired")
        try await recorder.next { fresh.submitCode(code: "0", delegate: recorder) }
        let code = try harness.code(for: "ada@example.com")
        try await recorder.next { fresh.submitCode(code: code, delegate: recorder) }
        let required: ResetPasswordRequiredState = try recorder.value("resetPasswordRequired")
        harness.tenant.configure { $0.resetPollsBeforeCompletion = 0 }
        let mover = advanceWhileSleeping(harness.clock)
        try await recorder.next { required.submitPassword(password: "N3w-Secure-Pass!", delegate: recorder) }
        mover.cancel()
        let after: SignInAfterResetPasswordState = try recorder.value("resetCompleted")
        try await recorder.next { after.signIn(delegate: recorder) }
        try await recorder.next {
            client.resetPassword(parameters: ResetPasswordParameters(username: "grace@example.com"), delegate: recorder)
        }
        #expect(try recorder.value("resetStartError", as: ResetPasswordStartError.self).isUserDoesNotHavePassword)
        #expect(
            recorder.calls == [
                "resetCodeRequired", "resetResendCodeRequired", "resetVerifyCodeError", "resetPasswordRequired",
                "resetCompleted", "signInCompleted", "resetStartError",
            ])
    }

    @Test func mfaAndRegistrationThroughDelegates() async throws {
        let recorder = FlowRecorder()
        let client = harness.client
        try await recorder.next {
            client.signIn(
                parameters: SignInParameters(username: "alan@example.com", password: EmulatorHarness.password),
                delegate: recorder)
        }
        let awaiting: AwaitingMFAState = try recorder.value("awaitingMFA")
        try await recorder.next { awaiting.requestChallenge(authMethod: awaiting.authMethods[0], delegate: recorder) }
        let mfa: MFARequiredState = try recorder.value("mfaVerificationRequired")
        try await recorder.next { mfa.submitChallenge(challenge: "0", delegate: recorder) }
        #expect(try recorder.value("mfaSubmitError", as: MFASubmitChallengeError.self).isInvalidChallenge)
        let code = try harness.code(for: "alan.backup@example.com")
        try await recorder.next { mfa.submitChallenge(challenge: code, delegate: recorder) }

        try await recorder.next {
            client.signIn(
                parameters: SignInParameters(username: "joan@example.com", password: EmulatorHarness.password),
                delegate: recorder)
        }
        let register: RegisterStrongAuthState = try recorder.value("registrationRequired")
        try await recorder.next {
            register.challengeAuthMethod(
                authMethod: register.authMethods[0], verificationContact: "bad", delegate: recorder)
        }
        #expect(try recorder.value("registerChallengeError", as: RegisterStrongAuthChallengeError.self).isInvalidInput)
        try await recorder.next {
            register.challengeAuthMethod(
                authMethod: register.authMethods[0], verificationContact: "joan.2@example.com", delegate: recorder)
        }
        let verify: RegisterStrongAuthVerificationRequiredState = try recorder.value("registerVerificationRequired")
        #expect(verify.codeLength == 8)
        try await recorder.next { verify.submitChallenge(challenge: "0", delegate: recorder) }
        let registrationCode = try harness.code(for: "joan.2@example.com")
        try await recorder.next { verify.submitChallenge(challenge: registrationCode, delegate: recorder) }
        #expect(
            recorder.calls == [
                "awaitingMFA", "mfaVerificationRequired", "mfaSubmitError", "signInCompleted", "registrationRequired",
                "registerChallengeError", "registerVerificationRequired", "registerSubmitError", "signInCompleted",
            ])
        #expect(!recorder.offMain)
    }
}
