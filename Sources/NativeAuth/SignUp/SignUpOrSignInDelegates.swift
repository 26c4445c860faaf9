import Foundation

/// Receives the outcome of ``NativeAuthClient/signUpOrSignIn(parameters:delegate:)``, on the main actor.
@MainActor
public protocol SignUpOrSignInStartDelegate: AnyObject, Sendable {
    /// The flow could not start. Required.
    func onSignUpOrSignInStartError(error: SignUpOrSignInStartError)
    /// A code was sent (``SignUpOrSignInCodeRequiredState/isNewUser`` says whether it creates an
    /// account); submit it on `newState`. Optional.
    func onSignUpOrSignInCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The user has an account that signs in with a password; submit it on `newState`. Optional.
    func onSignUpOrSignInPasswordRequired(newState: SignInPasswordRequiredState)
    /// The user is new and the server refused the named attribute values. Optional.
    func onSignUpOrSignInAttributesInvalid(attributeNames: [String])
    /// The user is new and the server asks for the password before the code; continue the
    /// sign-up on `newState`. Optional.
    func onSignUpOrSignInNewUserPasswordRequiredBeforeCode(newState: SignUpPasswordRequiredState)
}

extension SignUpOrSignInStartDelegate {
    /// Optional; when left out, ``onSignUpOrSignInStartError(error:)`` reports it.
    public func onSignUpOrSignInCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod("onSignUpOrSignInCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
    /// Optional; when left out, ``onSignUpOrSignInStartError(error:)`` reports it.
    public func onSignUpOrSignInPasswordRequired(newState: SignInPasswordRequiredState) {
        DelegateDispatch.missingMethod("onSignUpOrSignInPasswordRequired(newState:)")
    }
    /// Optional; when left out, ``onSignUpOrSignInStartError(error:)`` reports it.
    public func onSignUpOrSignInAttributesInvalid(attributeNames: [String]) {
        DelegateDispatch.missingMethod("onSignUpOrSignInAttributesInvalid(attributeNames:)")
    }
    /// Optional; when left out, ``onSignUpOrSignInStartError(error:)`` reports it.
    public func onSignUpOrSignInNewUserPasswordRequiredBeforeCode(newState: SignUpPasswordRequiredState) {
        DelegateDispatch.missingMethod("onSignUpOrSignInNewUserPasswordRequiredBeforeCode(newState:)")
    }
}

/// Receives the outcome of ``SignUpOrSignInCodeRequiredState/submitCode(code:delegate:)``, on the
/// main actor.
@MainActor
public protocol SignUpOrSignInVerifyCodeDelegate: AnyObject, Sendable {
    /// The code was not accepted, or signing in after the account was created failed. `newState`
    /// is the state to try again on, when it is still usable. Required.
    func onSignUpOrSignInVerifyCodeError(error: VerifyCodeError, newState: SignUpOrSignInCodeRequiredState?)
    /// The user is signed in; `accountCreated` says whether this flow created the account. Optional.
    func onSignUpOrSignInCompleted(result: UserAccountResult, accountCreated: Bool)
    /// A second factor is required: choose a method on `newState`. Optional.
    func onSignUpOrSignInAwaitingMFA(newState: AwaitingMFAState)
    /// The user must register a strong authentication method first. Optional.
    func onSignUpOrSignInStrongAuthMethodRegistration(authMethods: [AuthMethod], newState: RegisterStrongAuthState)
    /// The new user's tenant wants a password before it creates the account. Optional.
    func onSignUpOrSignInNewUserPasswordRequired(newState: SignUpPasswordRequiredState)
    /// The new user's tenant wants more attributes. Optional.
    func onSignUpOrSignInNewUserAttributesRequired(
        attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState)
}

extension SignUpOrSignInVerifyCodeDelegate {
    /// Optional; when left out, ``onSignUpOrSignInVerifyCodeError(error:newState:)`` reports it.
    public func onSignUpOrSignInCompleted(result: UserAccountResult, accountCreated: Bool) {
        DelegateDispatch.missingMethod("onSignUpOrSignInCompleted(result:accountCreated:)")
    }
    /// Optional; when left out, ``onSignUpOrSignInVerifyCodeError(error:newState:)`` reports it.
    public func onSignUpOrSignInAwaitingMFA(newState: AwaitingMFAState) {
        DelegateDispatch.missingMethod("onSignUpOrSignInAwaitingMFA(newState:)")
    }
    /// Optional; when left out, ``onSignUpOrSignInVerifyCodeError(error:newState:)`` reports it.
    public func onSignUpOrSignInStrongAuthMethodRegistration(
        authMethods: [AuthMethod], newState: RegisterStrongAuthState
    ) {
        DelegateDispatch.missingMethod("onSignUpOrSignInStrongAuthMethodRegistration(authMethods:newState:)")
    }
    /// Optional; when left out, ``onSignUpOrSignInVerifyCodeError(error:newState:)`` reports it.
    public func onSignUpOrSignInNewUserPasswordRequired(newState: SignUpPasswordRequiredState) {
        DelegateDispatch.missingMethod("onSignUpOrSignInNewUserPasswordRequired(newState:)")
    }
    /// Optional; when left out, ``onSignUpOrSignInVerifyCodeError(error:newState:)`` reports it.
    public func onSignUpOrSignInNewUserAttributesRequired(
        attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState
    ) {
        DelegateDispatch.missingMethod("onSignUpOrSignInNewUserAttributesRequired(attributes:newState:)")
    }
}

/// Receives the outcome of ``SignUpOrSignInCodeRequiredState/resendCode(delegate:)``, on the main actor.
@MainActor
public protocol SignUpOrSignInResendCodeDelegate: AnyObject, Sendable {
    /// No new code was sent. `newState` is the state to go on with, when it is still usable. Required.
    func onSignUpOrSignInResendCodeError(error: ResendCodeError, newState: SignUpOrSignInCodeRequiredState?)
    /// A new code was sent; submit it on `newState`. Optional.
    func onSignUpOrSignInResendCodeCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}

extension SignUpOrSignInResendCodeDelegate {
    /// Optional; when left out, ``onSignUpOrSignInResendCodeError(error:newState:)`` reports it.
    public func onSignUpOrSignInResendCodeCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod(
            "onSignUpOrSignInResendCodeCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
}

extension SignUpOrSignInCodeRequiredState {
    /// Submits the code and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``submitCode(_:)``.
    public func submitCode(code: String, delegate: any SignUpOrSignInVerifyCodeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(VerifyCodeError) in
            try await self.submitCode(code)
        } deliver: { result in
            switch result {
            case .completed(let account, let accountCreated):
                delegate.onSignUpOrSignInCompleted(result: account, accountCreated: accountCreated)
            case .awaitingMFA(let state, _):
                delegate.onSignUpOrSignInAwaitingMFA(newState: state)
            case .strongAuthRegistrationRequired(let state, let methods):
                delegate.onSignUpOrSignInStrongAuthMethodRegistration(authMethods: methods, newState: state)
            case .newUserPasswordRequired(let state):
                delegate.onSignUpOrSignInNewUserPasswordRequired(newState: state)
            case .newUserAttributesRequired(let attributes, let state):
                delegate.onSignUpOrSignInNewUserAttributesRequired(attributes: attributes, newState: state)
            }
        } fail: { error in
            delegate.onSignUpOrSignInVerifyCodeError(error: error, newState: self.core.usable(self))
        }
    }

    /// Sends a new code and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``resendCode()``.
    public func resendCode(delegate: any SignUpOrSignInResendCodeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(ResendCodeError) in
            try await self.resendCode()
        } deliver: { state in
            delegate.onSignUpOrSignInResendCodeCodeRequired(
                newState: state, sentTo: state.sentTo, channelTargetType: state.channelTargetType,
                codeLength: state.codeLength)
        } fail: { error in
            let fresh = error.unhandledOutcome as? SignUpOrSignInCodeRequiredState
            delegate.onSignUpOrSignInResendCodeError(error: error, newState: fresh ?? self.core.usable(self))
        }
    }
}
