import Foundation
import NativeAuth
import NativeAuthTestSupport

/// Receives every delegate callback of one action and keeps them all, so the runner can check
/// that exactly one came.
@MainActor
final class PropertyDelegateRecorder: SignInStartDelegate, SignInVerifyCodeDelegate, SignInResendCodeDelegate,
    SignInPasswordRequiredDelegate, MFARequestChallengeDelegate, MFASubmitChallengeDelegate,
    RegisterStrongAuthChallengeDelegate, RegisterStrongAuthSubmitChallengeDelegate, SignUpStartDelegate,
    SignUpVerifyCodeDelegate, SignUpResendCodeDelegate, SignUpPasswordRequiredDelegate,
    SignUpAttributesRequiredDelegate, SignInAfterSignUpDelegate, ResetPasswordStartDelegate,
    ResetPasswordVerifyCodeDelegate, ResetPasswordResendCodeDelegate, ResetPasswordRequiredDelegate,
    SignInAfterResetPasswordDelegate
{
    private(set) var calls: [ObservedOutcome] = []
    private let first = Latch<ObservedOutcome>()

    /// The first callback, once it has come; an unknown outcome (which fails the step) when none
    /// comes within `TestBounds.wait`.
    func next() async -> ObservedOutcome {
        switch await first.outcome() {
        case .value(let observed): observed
        case .timedOut: .unknown("no delegate callback within \(TestBounds.text(TestBounds.wait))")
        case .cancelled: .unknown("cancelled while waiting for a delegate callback")
        }
    }

    private func record(_ observed: ObservedOutcome) {
        calls.append(observed)
        first.fulfill(observed)
    }

    private func error(_ error: any NativeAuthError, _ newState: AnyObject?) {
        record(.error(error, newStateGiven: newState != nil))
    }

    // Sign-in
    func onSignInStartError(error: SignInStartError) { record(.error(error, newStateGiven: nil)) }
    func onSignInCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signInCode(newState))) }
    func onSignInPasswordRequired(newState: SignInPasswordRequiredState) { record(.state(.signInPassword(newState))) }
    func onSignInCompleted(result: UserAccountResult) { record(.completed(result)) }
    func onSignInAwaitingMFA(newState: AwaitingMFAState) { record(.state(.awaitingMFA(newState))) }
    func onSignInStrongAuthMethodRegistration(authMethods: [AuthMethod], newState: RegisterStrongAuthState) {
        record(.state(.registerStrongAuth(newState)))
    }
    func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?) {
        self.error(error, newState)
    }
    func onSignInResendCodeError(error: ResendCodeError, newState: SignInCodeRequiredState?) {
        self.error(error, newState)
    }
    func onSignInResendCodeCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signInCode(newState))) }
    func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?) {
        self.error(error, newState)
    }

    // MFA and registration
    func onMFARequestChallengeError(error: MFARequestChallengeError) { record(.error(error, newStateGiven: nil)) }
    func onMFARequestChallengeVerificationRequired(
        newState: MFARequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.mfaRequired(newState))) }
    func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?) {
        self.error(error, newState)
    }
    func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError) {
        record(.error(error, newStateGiven: nil))
    }
    func onRegisterStrongAuthVerificationRequired(
        newState: RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: ChannelType,
        codeLength: Int?
    ) { record(.state(.registerVerification(newState))) }
    func onRegisterStrongAuthSubmitChallengeError(
        error: RegisterStrongAuthSubmitChallengeError, newState: RegisterStrongAuthVerificationRequiredState?
    ) { self.error(error, newState) }

    // Sign-up
    func onSignUpStartError(error: SignUpStartError) { record(.error(error, newStateGiven: nil)) }
    func onSignUpCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signUpCode(newState))) }
    func onSignUpAttributesInvalid(attributeNames: [String]) { record(.attributesInvalid(attributeNames)) }
    func onSignUpCompleted(newState: SignInAfterSignUpState) { record(.state(.signInAfterSignUp(newState))) }
    func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState) { record(.state(.signUpPassword(newState))) }
    func onSignUpAttributesRequired(attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState) {
        record(.state(.signUpAttributes(newState)))
    }
    func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?) {
        self.error(error, newState)
    }
    func onSignUpResendCodeError(error: ResendCodeError, newState: SignUpCodeRequiredState?) {
        self.error(error, newState)
    }
    func onSignUpResendCodeCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signUpCode(newState))) }
    func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?) {
        self.error(error, newState)
    }
    func onSignUpAttributesRequiredError(error: AttributesRequiredError, newState: SignUpAttributesRequiredState?) {
        self.error(error, newState)
    }
    func onSignInAfterSignUpError(error: SignInAfterSignUpError) { record(.error(error, newStateGiven: nil)) }

    // Password reset
    func onResetPasswordStartError(error: ResetPasswordStartError) { record(.error(error, newStateGiven: nil)) }
    func onResetPasswordCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.resetCode(newState))) }
    func onResetPasswordVerifyCodeError(error: VerifyCodeError, newState: ResetPasswordCodeRequiredState?) {
        self.error(error, newState)
    }
    func onPasswordRequired(newState: ResetPasswordRequiredState) { record(.state(.resetPassword(newState))) }
    func onResetPasswordResendCodeError(error: ResendCodeError, newState: ResetPasswordCodeRequiredState?) {
        self.error(error, newState)
    }
    func onResetPasswordResendCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.resetCode(newState))) }
    func onResetPasswordRequiredError(error: PasswordRequiredError, newState: ResetPasswordRequiredState?) {
        self.error(error, newState)
    }
    func onResetPasswordCompleted(newState: SignInAfterResetPasswordState) {
        record(.state(.signInAfterReset(newState)))
    }
    func onSignInAfterResetPasswordError(error: SignInAfterResetPasswordError) {
        record(.error(error, newStateGiven: nil))
    }
}

/// Runs invocations through the delegate API: one fresh recorder per action.
@MainActor
enum PropertyDelegateDriver {
    /// Starts the action; its outcome arrives on `recorder`. `false` when the state does not
    /// offer the action (a bug of the tests: planned steps never do that).
    static func start(_ invocation: SDKInvocation, recorder: PropertyDelegateRecorder) -> Bool {
        let client = invocation.client
        switch invocation.call {
        case .signIn(let parameters): client.signIn(parameters: parameters, delegate: recorder)
        case .signUp(let parameters): client.signUp(parameters: parameters, delegate: recorder)
        case .resetPassword(let parameters): client.resetPassword(parameters: parameters, delegate: recorder)
        case .state(let state, let input): return act(on: state, input, recorder: recorder)
        }
        return true
    }

    private static func act(on state: AnyFlowState, _ input: SDKInvocation.Input, recorder: PropertyDelegateRecorder)
        -> Bool
    {
        switch (state, input.action) {
        case (.signInCode(let state), .submitCode): state.submitCode(code: input.code, delegate: recorder)
        case (.signInCode(let state), .resendCode): state.resendCode(delegate: recorder)
        case (.signInPassword(let state), .submitPassword):
            state.submitPassword(password: input.password, delegate: recorder)
        case (.awaitingMFA(let state), .requestChallenge):
            state.requestChallenge(
                authMethod: PropertyAsyncDriver.method(state.authMethods, input.methodIndex), delegate: recorder)
        case (.mfaRequired(let state), .requestChallenge):
            state.requestChallenge(
                authMethod: PropertyAsyncDriver.method(state.authMethods, input.methodIndex), delegate: recorder)
        case (.mfaRequired(let state), .submitCode): state.submitChallenge(challenge: input.code, delegate: recorder)
        case (.registerStrongAuth(let state), .challengeContact):
            state.challengeAuthMethod(
                authMethod: PropertyAsyncDriver.method(state.authMethods, input.methodIndex),
                verificationContact: input.contact, delegate: recorder)
        case (.registerVerification(let state), .challengeContact):
            state.challengeAuthMethod(
                authMethod: PropertyAsyncDriver.method(state.authMethods, input.methodIndex),
                verificationContact: input.contact, delegate: recorder)
        case (.registerVerification(let state), .submitCode):
            state.submitChallenge(challenge: input.code, delegate: recorder)
        case (.signUpCode(let state), .submitCode): state.submitCode(code: input.code, delegate: recorder)
        case (.signUpCode(let state), .resendCode): state.resendCode(delegate: recorder)
        case (.signUpPassword(let state), .submitPassword):
            state.submitPassword(password: input.password, delegate: recorder)
        case (.signUpAttributes(let state), .submitAttributes):
            state.submitAttributes(attributes: input.attributes, delegate: recorder)
        case (.signInAfterSignUp(let state), .signInAfter): state.signIn(delegate: recorder)
        case (.resetCode(let state), .submitCode): state.submitCode(code: input.code, delegate: recorder)
        case (.resetCode(let state), .resendCode): state.resendCode(delegate: recorder)
        case (.resetPassword(let state), .submitPassword):
            state.submitPassword(password: input.password, delegate: recorder)
        case (.signInAfterReset(let state), .signInAfter): state.signIn(delegate: recorder)
        default: return false
        }
        return true
    }

    /// Runs the action and waits for its first callback.
    static func run(_ invocation: SDKInvocation, recorder: PropertyDelegateRecorder) async -> ObservedOutcome {
        guard start(invocation, recorder: recorder) else { return .unknown("the state does not offer the action") }
        return await recorder.next()
    }
}
