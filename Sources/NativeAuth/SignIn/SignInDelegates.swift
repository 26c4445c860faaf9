/// The outcomes of a step that can finish sign-in. Every method is optional: a delegate that
/// leaves one out gets its step's error callback instead, with the outcome kept in the error.
@MainActor
public protocol SignInResultDelegate: AnyObject, Sendable {
    /// The user is signed in.
    func onSignInCompleted(result: UserAccountResult)
    /// A second factor is required: choose a method on `newState`.
    func onSignInAwaitingMFA(newState: AwaitingMFAState)
    /// The user must register a strong authentication method first.
    func onSignInStrongAuthMethodRegistration(authMethods: [AuthMethod], newState: RegisterStrongAuthState)
}

extension SignInResultDelegate {
    /// Optional; when left out, the step's error callback reports it.
    public func onSignInCompleted(result: UserAccountResult) {
        DelegateDispatch.missingMethod("onSignInCompleted(result:)")
    }
    /// Optional; when left out, the step's error callback reports it.
    public func onSignInAwaitingMFA(newState: AwaitingMFAState) {
        DelegateDispatch.missingMethod("onSignInAwaitingMFA(newState:)")
    }
    /// Optional; when left out, the step's error callback reports it.
    public func onSignInStrongAuthMethodRegistration(authMethods: [AuthMethod], newState: RegisterStrongAuthState) {
        DelegateDispatch.missingMethod("onSignInStrongAuthMethodRegistration(authMethods:newState:)")
    }
}

/// Receives the outcome of ``NativeAuthClient/signIn(parameters:delegate:)``, on the main actor.
@MainActor
public protocol SignInStartDelegate: SignInResultDelegate {
    /// Sign-in could not start. Required.
    func onSignInStartError(error: SignInStartError)
    /// A code was sent; submit it on `newState`. Optional.
    func onSignInCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The password is needed; submit it on `newState`. Optional.
    func onSignInPasswordRequired(newState: SignInPasswordRequiredState)
    /// The user chooses the first factor on `newState` (``SignInParameters/selectsAuthMethod``).
    /// Optional.
    func onSignInAuthMethodSelectionRequired(authMethods: [AuthMethod], newState: AuthMethodSelectionRequiredState)
}

extension SignInStartDelegate {
    /// Optional; when left out, ``onSignInStartError(error:)`` reports it.
    public func onSignInCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod("onSignInCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
    /// Optional; when left out, ``onSignInStartError(error:)`` reports it.
    public func onSignInPasswordRequired(newState: SignInPasswordRequiredState) {
        DelegateDispatch.missingMethod("onSignInPasswordRequired(newState:)")
    }
    /// Optional; when left out, ``onSignInStartError(error:)`` reports it.
    public func onSignInAuthMethodSelectionRequired(
        authMethods: [AuthMethod], newState: AuthMethodSelectionRequiredState
    ) {
        DelegateDispatch.missingMethod("onSignInAuthMethodSelectionRequired(authMethods:newState:)")
    }
}

extension SignInStartResult {
    /// Calls the delegate method for this result.
    @MainActor
    func deliver(to delegate: any SignInStartDelegate) {
        switch self {
        case .codeRequired(let state, let sentTo, let channel, let codeLength):
            delegate.onSignInCodeRequired(
                newState: state, sentTo: sentTo, channelTargetType: channel, codeLength: codeLength)
        case .passwordRequired(let state):
            delegate.onSignInPasswordRequired(newState: state)
        case .completed(let account):
            delegate.onSignInCompleted(result: account)
        case .awaitingMFA(let state, _):
            delegate.onSignInAwaitingMFA(newState: state)
        case .strongAuthRegistrationRequired(let state, let methods):
            delegate.onSignInStrongAuthMethodRegistration(authMethods: methods, newState: state)
        case .authMethodSelectionRequired(let state, let methods):
            delegate.onSignInAuthMethodSelectionRequired(authMethods: methods, newState: state)
        }
    }
}

/// Receives the outcome of ``SignInCodeRequiredState/submitCode(code:delegate:)``, on the main actor.
@MainActor
public protocol SignInVerifyCodeDelegate: SignInResultDelegate {
    /// The code was not accepted. `newState` is the state to try again on, when it is still usable. Required.
    func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?)
}

/// Receives the outcome of ``SignInCodeRequiredState/resendCode(delegate:)``, on the main actor.
@MainActor
public protocol SignInResendCodeDelegate: AnyObject, Sendable {
    /// No new code was sent. `newState` is the state to go on with, when it is still usable. Required.
    func onSignInResendCodeError(error: ResendCodeError, newState: SignInCodeRequiredState?)
    /// A new code was sent; submit it on `newState`. Optional.
    func onSignInResendCodeCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}

extension SignInResendCodeDelegate {
    /// Optional; when left out, ``onSignInResendCodeError(error:newState:)`` reports it.
    public func onSignInResendCodeCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod("onSignInResendCodeCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
}

/// Receives the outcome of ``SignInPasswordRequiredState/submitPassword(password:delegate:)``, on the main actor.
@MainActor
public protocol SignInPasswordRequiredDelegate: SignInResultDelegate {
    /// The password was not accepted. `newState` is the state to try again on, when it is still usable. Required.
    func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?)
}

extension SignInResult {
    /// Calls the delegate method for this result.
    @MainActor
    func deliver(to delegate: any SignInResultDelegate) {
        switch self {
        case .completed(let account): delegate.onSignInCompleted(result: account)
        case .awaitingMFA(let state, _): delegate.onSignInAwaitingMFA(newState: state)
        case .strongAuthRegistrationRequired(let state, let methods):
            delegate.onSignInStrongAuthMethodRegistration(authMethods: methods, newState: state)
        }
    }
}

extension SignInCodeRequiredState {
    /// Submits the code and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``submitCode(_:)``.
    public func submitCode(code: String, delegate: any SignInVerifyCodeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(VerifyCodeError) in
            try await self.submitCode(code)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignInVerifyCodeError(error: error, newState: self.core.usable(self))
        }
    }

    /// Sends a new code and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``resendCode()``.
    public func resendCode(delegate: any SignInResendCodeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(ResendCodeError) in
            try await self.resendCode()
        } deliver: { state in
            delegate.onSignInResendCodeCodeRequired(
                newState: state, sentTo: state.sentTo, channelTargetType: state.channelTargetType,
                codeLength: state.codeLength)
        } fail: { error in
            let fresh = error.unhandledOutcome as? SignInCodeRequiredState
            delegate.onSignInResendCodeError(error: error, newState: fresh ?? self.core.usable(self))
        }
    }
}

extension SignInPasswordRequiredState {
    /// Submits the password and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``submitPassword(_:)``.
    public func submitPassword(password: String, delegate: any SignInPasswordRequiredDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(PasswordRequiredError) in
            try await self.submitPassword(password)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignInPasswordRequiredError(error: error, newState: self.core.usable(self))
        }
    }
}
