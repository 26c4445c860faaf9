import Foundation
public import NativeAuth
public import Testing

/// Tells whether code runs on the main dispatch queue, which backs the main actor. (On Linux
/// the main queue may be drained by a thread other than the process's first one.)
public enum MainQueueCheck: Sendable {
    static let key = DispatchSpecificKey<Bool>()
    static let installed: Bool = {
        DispatchQueue.main.setSpecific(key: key, value: true)
        return true
    }()
    public static var isOnMainQueue: Bool { installed && DispatchQueue.getSpecific(key: key) == true }
}

/// Receives every callback of every native flow's delegates and keeps them all, in order: which
/// method was called, the outcome it reported (as ``FlowOutcome``) and whether it came on the
/// main queue. A test waits for the next callback, or the first one, with a bound.
@MainActor
public final class FlowDelegateRecorder: SignInStartDelegate, SignInVerifyCodeDelegate, SignInResendCodeDelegate,
    SignInPasswordRequiredDelegate, MFARequestChallengeDelegate, MFASubmitChallengeDelegate,
    RegisterStrongAuthChallengeDelegate, RegisterStrongAuthSubmitChallengeDelegate, SignUpStartDelegate,
    SignUpVerifyCodeDelegate, SignUpResendCodeDelegate, SignUpPasswordRequiredDelegate,
    SignUpAttributesRequiredDelegate, SignInAfterSignUpDelegate, ResetPasswordStartDelegate,
    ResetPasswordVerifyCodeDelegate, ResetPasswordResendCodeDelegate, ResetPasswordRequiredDelegate,
    SignInAfterResetPasswordDelegate, SignUpOrSignInStartDelegate, SignUpOrSignInVerifyCodeDelegate,
    SignUpOrSignInResendCodeDelegate
{
    /// One callback.
    public struct Call: Sendable {
        /// The delegate method, as `onSignUpCodeRequired`.
        public var method: String
        public var outcome: FlowOutcome
        public var onMainQueue: Bool
    }

    public private(set) var calls: [Call] = []
    private var waiters: [(count: Int, latch: Latch<Call>)] = []

    public init() {}

    /// The `number`th callback (from 1), once it has come; `nil` when it does not come within
    /// `TestBounds.wait`, or the task is cancelled.
    public func call(number: Int) async -> Call? {
        if calls.count >= number { return calls[number - 1] }
        let latch = Latch<Call>()
        waiters.append((number, latch))
        return await latch.outcome().value
    }

    /// The first callback's outcome; an unknown outcome (which fails a step) when none comes
    /// within `TestBounds.wait`.
    public func first() async -> FlowOutcome {
        await call(number: 1)?.outcome
            ?? .unknown("no delegate callback within \(TestBounds.text(TestBounds.wait))")
    }

    /// Runs `action` and returns the callback that follows it; with none within `TestBounds.wait`,
    /// records an issue at the caller's line and throws.
    @discardableResult
    public func next(sourceLocation: SourceLocation = #_sourceLocation, _ action: () -> Void) async throws -> Call {
        let number = calls.count + 1
        action()
        return try #require(
            await call(number: number), "no delegate call after \(calls.map(\.method))", sourceLocation: sourceLocation)
    }

    private func record(_ outcome: FlowOutcome, _ method: String = #function) {
        let name = String(method.prefix { $0 != "(" })
        let call = Call(method: name, outcome: outcome, onMainQueue: MainQueueCheck.isOnMainQueue)
        calls.append(call)
        let count = calls.count
        let ready = waiters.filter { $0.count == count }.map(\.latch)
        waiters.removeAll { $0.count == count }
        ready.forEach { $0.fulfill(call) }
    }

    private func error(_ error: any NativeAuthError, _ newState: AnyObject?, _ method: String = #function) {
        record(.error(error, newStateGiven: newState != nil), method)
    }

    // Sign-in
    public func onSignInStartError(error: SignInStartError) { record(.error(error, newStateGiven: nil)) }
    public func onSignInCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signInCode(newState))) }
    public func onSignInPasswordRequired(newState: SignInPasswordRequiredState) {
        record(.state(.signInPassword(newState)))
    }
    public func onSignInCompleted(result: UserAccountResult) { record(.completed(result)) }
    public func onSignInAwaitingMFA(newState: AwaitingMFAState) { record(.state(.awaitingMFA(newState))) }
    public func onSignInAuthMethodSelectionRequired(
        authMethods: [AuthMethod], newState: AuthMethodSelectionRequiredState
    ) {
        record(.state(.authMethodSelection(newState)))
    }
    public func onResetPasswordAuthMethodSelectionRequired(
        authMethods: [AuthMethod], newState: ResetPasswordAuthMethodSelectionRequiredState
    ) {
        record(.state(.resetAuthMethodSelection(newState)))
    }
    public func onSignInStrongAuthMethodRegistration(authMethods: [AuthMethod], newState: RegisterStrongAuthState) {
        record(.state(.registerStrongAuth(newState)))
    }
    public func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?) {
        self.error(error, newState)
    }
    public func onSignInResendCodeError(error: ResendCodeError, newState: SignInCodeRequiredState?) {
        self.error(error, newState)
    }
    public func onSignInResendCodeCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signInCode(newState))) }
    public func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?) {
        self.error(error, newState)
    }

    // MFA and registration
    public func onMFARequestChallengeError(error: MFARequestChallengeError) {
        record(.error(error, newStateGiven: nil))
    }
    public func onMFARequestChallengeVerificationRequired(
        newState: MFARequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.mfaRequired(newState))) }
    public func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?) {
        self.error(error, newState)
    }
    public func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError) {
        record(.error(error, newStateGiven: nil))
    }
    public func onRegisterStrongAuthVerificationRequired(
        newState: RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: ChannelType,
        codeLength: Int?
    ) { record(.state(.registerVerification(newState))) }
    public func onRegisterStrongAuthSubmitChallengeError(
        error: RegisterStrongAuthSubmitChallengeError, newState: RegisterStrongAuthVerificationRequiredState?
    ) { self.error(error, newState) }

    // Sign-up
    public func onSignUpStartError(error: SignUpStartError) { record(.error(error, newStateGiven: nil)) }
    public func onSignUpCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signUpCode(newState))) }
    public func onSignUpAttributesInvalid(attributeNames: [String]) { record(.attributesInvalid(attributeNames)) }
    public func onSignUpCompleted(newState: SignInAfterSignUpState) { record(.state(.signInAfterSignUp(newState))) }
    public func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState) {
        record(.state(.signUpPassword(newState)))
    }
    public func onSignUpAttributesRequired(attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState) {
        record(.state(.signUpAttributes(newState)))
    }
    public func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?) {
        self.error(error, newState)
    }
    public func onSignUpResendCodeError(error: ResendCodeError, newState: SignUpCodeRequiredState?) {
        self.error(error, newState)
    }
    public func onSignUpResendCodeCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signUpCode(newState))) }
    public func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?) {
        self.error(error, newState)
    }
    public func onSignUpAttributesRequiredError(
        error: AttributesRequiredError, newState: SignUpAttributesRequiredState?
    ) { self.error(error, newState) }
    public func onSignInAfterSignUpError(error: SignInAfterSignUpError) { record(.error(error, newStateGiven: nil)) }

    // Password reset
    public func onResetPasswordStartError(error: ResetPasswordStartError) {
        record(.error(error, newStateGiven: nil))
    }
    public func onResetPasswordCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.resetCode(newState))) }
    public func onResetPasswordVerifyCodeError(error: VerifyCodeError, newState: ResetPasswordCodeRequiredState?) {
        self.error(error, newState)
    }
    public func onPasswordRequired(newState: ResetPasswordRequiredState) { record(.state(.resetPassword(newState))) }
    public func onResetPasswordResendCodeError(error: ResendCodeError, newState: ResetPasswordCodeRequiredState?) {
        self.error(error, newState)
    }
    public func onResetPasswordResendCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.resetCode(newState))) }
    public func onResetPasswordRequiredError(error: PasswordRequiredError, newState: ResetPasswordRequiredState?) {
        self.error(error, newState)
    }
    public func onResetPasswordCompleted(newState: SignInAfterResetPasswordState) {
        record(.state(.signInAfterReset(newState)))
    }
    public func onSignInAfterResetPasswordError(error: SignInAfterResetPasswordError) {
        record(.error(error, newStateGiven: nil))
    }

    // Sign-up or sign-in
    public func onSignUpOrSignInStartError(error: SignUpOrSignInStartError) {
        record(.error(error, newStateGiven: nil))
    }
    public func onSignUpOrSignInCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signUpOrSignInCode(newState))) }
    public func onSignUpOrSignInPasswordRequired(newState: SignInPasswordRequiredState) {
        record(.state(.signInPassword(newState)))
    }
    public func onSignUpOrSignInAttributesInvalid(attributeNames: [String]) {
        record(.attributesInvalid(attributeNames))
    }
    public func onSignUpOrSignInNewUserPasswordRequiredBeforeCode(newState: SignUpPasswordRequiredState) {
        record(.state(.signUpPassword(newState)))
    }
    public func onSignUpOrSignInVerifyCodeError(error: VerifyCodeError, newState: SignUpOrSignInCodeRequiredState?) {
        self.error(error, newState)
    }
    public func onSignUpOrSignInCompleted(result: UserAccountResult, accountCreated: Bool) {
        record(.completed(result))
    }
    public func onSignUpOrSignInAwaitingMFA(newState: AwaitingMFAState) { record(.state(.awaitingMFA(newState))) }
    public func onSignUpOrSignInStrongAuthMethodRegistration(
        authMethods: [AuthMethod], newState: RegisterStrongAuthState
    ) { record(.state(.registerStrongAuth(newState))) }
    public func onSignUpOrSignInNewUserPasswordRequired(newState: SignUpPasswordRequiredState) {
        record(.state(.signUpPassword(newState)))
    }
    public func onSignUpOrSignInNewUserAttributesRequired(
        attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState
    ) { record(.state(.signUpAttributes(newState))) }
    public func onSignUpOrSignInResendCodeError(
        error: ResendCodeError, newState: SignUpOrSignInCodeRequiredState?
    ) { self.error(error, newState) }
    public func onSignUpOrSignInResendCodeCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) { record(.state(.signUpOrSignInCode(newState))) }
}
