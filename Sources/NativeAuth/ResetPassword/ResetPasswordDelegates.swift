import Foundation

/// Receives the outcome of ``NativeAuthClient/resetPassword(parameters:delegate:)``, on the main actor.
@MainActor
public protocol ResetPasswordStartDelegate: AnyObject, Sendable {
    /// The reset could not start. Required.
    func onResetPasswordStartError(error: ResetPasswordStartError)
    /// A code was sent; submit it on `newState`. Optional.
    func onResetPasswordCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The user chooses the recovery method on `newState` (``ResetPasswordParameters/selectsAuthMethod``).
    /// Optional.
    func onResetPasswordAuthMethodSelectionRequired(
        authMethods: [AuthMethod], newState: ResetPasswordAuthMethodSelectionRequiredState)
}

extension ResetPasswordStartDelegate {
    /// Optional; when left out, ``onResetPasswordStartError(error:)`` reports it.
    public func onResetPasswordCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod("onResetPasswordCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
    /// Optional; when left out, ``onResetPasswordStartError(error:)`` reports it.
    public func onResetPasswordAuthMethodSelectionRequired(
        authMethods: [AuthMethod], newState: ResetPasswordAuthMethodSelectionRequiredState
    ) {
        DelegateDispatch.missingMethod("onResetPasswordAuthMethodSelectionRequired(authMethods:newState:)")
    }
}

extension ResetPasswordStartResult {
    /// Calls the delegate method for this result.
    @MainActor
    func deliver(to delegate: any ResetPasswordStartDelegate) {
        switch self {
        case .codeRequired(let state, let sentTo, let channel, let codeLength):
            delegate.onResetPasswordCodeRequired(
                newState: state, sentTo: sentTo, channelTargetType: channel, codeLength: codeLength)
        case .authMethodSelectionRequired(let state, let methods):
            delegate.onResetPasswordAuthMethodSelectionRequired(authMethods: methods, newState: state)
        }
    }
}

/// Receives the outcome of ``ResetPasswordCodeRequiredState/submitCode(code:delegate:)``.
@MainActor
public protocol ResetPasswordVerifyCodeDelegate: AnyObject, Sendable {
    /// The code was not accepted; `newState` is the state to try again on, when still usable. Required.
    func onResetPasswordVerifyCodeError(error: VerifyCodeError, newState: ResetPasswordCodeRequiredState?)
    /// The code was accepted; submit the new password on `newState`. Optional.
    func onPasswordRequired(newState: ResetPasswordRequiredState)
}

extension ResetPasswordVerifyCodeDelegate {
    /// Optional; when left out, ``onResetPasswordVerifyCodeError(error:newState:)`` reports it.
    public func onPasswordRequired(newState: ResetPasswordRequiredState) {
        DelegateDispatch.missingMethod("onPasswordRequired(newState:)")
    }
}

/// Receives the outcome of ``ResetPasswordCodeRequiredState/resendCode(delegate:)``.
@MainActor
public protocol ResetPasswordResendCodeDelegate: AnyObject, Sendable {
    /// No new code was sent; `newState` is the state to go on with, when still usable. Required.
    func onResetPasswordResendCodeError(error: ResendCodeError, newState: ResetPasswordCodeRequiredState?)
    /// A new code was sent. Optional.
    func onResetPasswordResendCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}

extension ResetPasswordResendCodeDelegate {
    /// Optional; when left out, ``onResetPasswordResendCodeError(error:newState:)`` reports it.
    public func onResetPasswordResendCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod(
            "onResetPasswordResendCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
}

/// Receives the outcome of ``ResetPasswordRequiredState/submitPassword(password:delegate:)``.
@MainActor
public protocol ResetPasswordRequiredDelegate: AnyObject, Sendable {
    /// The new password was not accepted or the reset failed; `newState` is the state to try
    /// again on, when still usable. Required.
    func onResetPasswordRequiredError(error: PasswordRequiredError, newState: ResetPasswordRequiredState?)
    /// The password was reset; sign in on `newState`. Optional.
    func onResetPasswordCompleted(newState: SignInAfterResetPasswordState)
}

extension ResetPasswordRequiredDelegate {
    /// Optional; when left out, ``onResetPasswordRequiredError(error:newState:)`` reports it.
    public func onResetPasswordCompleted(newState: SignInAfterResetPasswordState) {
        DelegateDispatch.missingMethod("onResetPasswordCompleted(newState:)")
    }
}

/// Receives the outcome of ``SignInAfterResetPasswordState/signIn(scopes:delegate:)``.
@MainActor
public protocol SignInAfterResetPasswordDelegate: SignInResultDelegate {
    /// Sign-in failed. Required.
    func onSignInAfterResetPasswordError(error: SignInAfterResetPasswordError)
}

extension ResetPasswordCodeRequiredState {
    /// Submits the code and reports the outcome to `delegate`, once, on the main actor.
    public func submitCode(code: String, delegate: any ResetPasswordVerifyCodeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(VerifyCodeError) in
            try await self.submitCode(code)
        } deliver: { state in
            delegate.onPasswordRequired(newState: state)
        } fail: { error in
            delegate.onResetPasswordVerifyCodeError(error: error, newState: self.core.usable(self))
        }
    }

    /// Sends a new code and reports the outcome to `delegate`, once, on the main actor.
    public func resendCode(delegate: any ResetPasswordResendCodeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(ResendCodeError) in
            try await self.resendCode()
        } deliver: { state in
            delegate.onResetPasswordResendCodeRequired(
                newState: state, sentTo: state.sentTo, channelTargetType: state.channelTargetType,
                codeLength: state.codeLength)
        } fail: { error in
            let fresh = error.unhandledOutcome as? ResetPasswordCodeRequiredState
            delegate.onResetPasswordResendCodeError(error: error, newState: fresh ?? self.core.usable(self))
        }
    }
}

extension ResetPasswordRequiredState {
    /// Submits the new password and reports the outcome to `delegate`, once, on the main actor.
    public func submitPassword(password: String, delegate: any ResetPasswordRequiredDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(PasswordRequiredError) in
            try await self.submitPassword(password)
        } deliver: { state in
            delegate.onResetPasswordCompleted(newState: state)
        } fail: { error in
            delegate.onResetPasswordRequiredError(error: error, newState: self.core.usable(self))
        }
    }
}

extension SignInAfterResetPasswordState {
    /// Signs the user in and reports the outcome to `delegate`, once, on the main actor.
    public func signIn(scopes: [String] = [], delegate: any SignInAfterResetPasswordDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(SignInAfterResetPasswordError) in
            try await self.signIn(scopes: scopes)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignInAfterResetPasswordError(error: error)
        }
    }
}
