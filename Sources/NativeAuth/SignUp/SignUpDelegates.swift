import Foundation

/// Receives the outcome of ``NativeAuthClient/signUp(parameters:delegate:)``, on the main actor.
@MainActor
public protocol SignUpStartDelegate: AnyObject, Sendable {
    /// Sign-up could not start. Required.
    func onSignUpStartError(error: SignUpStartError)
    /// A code was sent; submit it on `newState`. Optional.
    func onSignUpCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The server refused the named attribute values. Optional.
    func onSignUpAttributesInvalid(attributeNames: [String])
    /// The server wants the password before it sends the code; submit it on `newState`. Optional.
    func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState)
}

extension SignUpStartDelegate {
    /// Optional; when left out, ``onSignUpStartError(error:)`` reports it.
    public func onSignUpCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod("onSignUpCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
    /// Optional; when left out, ``onSignUpStartError(error:)`` reports it.
    public func onSignUpAttributesInvalid(attributeNames: [String]) {
        DelegateDispatch.missingMethod("onSignUpAttributesInvalid(attributeNames:)")
    }
    /// Optional; when left out, ``onSignUpStartError(error:)`` reports it.
    public func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState) {
        DelegateDispatch.missingMethod("onSignUpPasswordRequired(newState:)")
    }
}

/// The outcomes of a sign-up step. Every method is optional.
@MainActor
public protocol SignUpResultDelegate: AnyObject, Sendable {
    /// The user was created; sign them in on `newState`.
    func onSignUpCompleted(newState: SignInAfterSignUpState)
    /// A password is needed next.
    func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState)
    /// More attributes are needed.
    func onSignUpAttributesRequired(attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState)
    /// A code was sent (after a password the server asked for before the code); submit it on `newState`.
    func onSignUpCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}

extension SignUpResultDelegate {
    /// Optional; when left out, the step's error callback reports it.
    public func onSignUpCompleted(newState: SignInAfterSignUpState) {
        DelegateDispatch.missingMethod("onSignUpCompleted(newState:)")
    }
    /// Optional; when left out, the step's error callback reports it.
    public func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState) {
        DelegateDispatch.missingMethod("onSignUpPasswordRequired(newState:)")
    }
    /// Optional; when left out, the step's error callback reports it.
    public func onSignUpAttributesRequired(attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState) {
        DelegateDispatch.missingMethod("onSignUpAttributesRequired(attributes:newState:)")
    }
    /// Optional; when left out, the step's error callback reports it.
    public func onSignUpCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod("onSignUpCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
}

/// Receives the outcome of ``SignUpCodeRequiredState/submitCode(code:delegate:)``.
@MainActor
public protocol SignUpVerifyCodeDelegate: SignUpResultDelegate {
    /// The code was not accepted; `newState` is the state to try again on, when still usable. Required.
    func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?)
}

/// Receives the outcome of ``SignUpCodeRequiredState/resendCode(delegate:)``.
@MainActor
public protocol SignUpResendCodeDelegate: AnyObject, Sendable {
    /// No new code was sent; `newState` is the state to go on with, when still usable. Required.
    func onSignUpResendCodeError(error: ResendCodeError, newState: SignUpCodeRequiredState?)
    /// A new code was sent. Optional.
    func onSignUpResendCodeCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}

extension SignUpResendCodeDelegate {
    /// Optional; when left out, ``onSignUpResendCodeError(error:newState:)`` reports it.
    public func onSignUpResendCodeCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod("onSignUpResendCodeCodeRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
}

/// Receives the outcome of ``SignUpPasswordRequiredState/submitPassword(password:delegate:)``.
@MainActor
public protocol SignUpPasswordRequiredDelegate: SignUpResultDelegate {
    /// The password was not accepted; `newState` is the state to try again on, when still usable. Required.
    func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?)
}

/// Receives the outcome of ``SignUpAttributesRequiredState/submitAttributes(attributes:delegate:)``.
@MainActor
public protocol SignUpAttributesRequiredDelegate: SignUpResultDelegate {
    /// The attributes were not accepted; `newState` is the state to try again on, when still usable. Required.
    func onSignUpAttributesRequiredError(error: AttributesRequiredError, newState: SignUpAttributesRequiredState?)
}

/// Receives the outcome of ``SignInAfterSignUpState/signIn(scopes:delegate:)``.
@MainActor
public protocol SignInAfterSignUpDelegate: SignInResultDelegate {
    /// Sign-in failed. Required.
    func onSignInAfterSignUpError(error: SignInAfterSignUpError)
}

extension SignUpResult {
    @MainActor
    func deliver(to delegate: any SignUpResultDelegate) {
        switch self {
        case .completed(let state): delegate.onSignUpCompleted(newState: state)
        case .passwordRequired(let state): delegate.onSignUpPasswordRequired(newState: state)
        case .attributesRequired(let attributes, let state):
            delegate.onSignUpAttributesRequired(attributes: attributes, newState: state)
        case .codeRequired(let state, let sentTo, let channel, let codeLength):
            delegate.onSignUpCodeRequired(
                newState: state, sentTo: sentTo, channelTargetType: channel, codeLength: codeLength)
        }
    }
}

extension SignUpCodeRequiredState {
    /// Submits the code and reports the outcome to `delegate`, once, on the main actor.
    public func submitCode(code: String, delegate: any SignUpVerifyCodeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(VerifyCodeError) in
            try await self.submitCode(code)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignUpVerifyCodeError(error: error, newState: self.core.usable(self))
        }
    }

    /// Sends a new code and reports the outcome to `delegate`, once, on the main actor.
    public func resendCode(delegate: any SignUpResendCodeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(ResendCodeError) in
            try await self.resendCode()
        } deliver: { state in
            delegate.onSignUpResendCodeCodeRequired(
                newState: state, sentTo: state.sentTo, channelTargetType: state.channelTargetType,
                codeLength: state.codeLength)
        } fail: { error in
            let fresh = error.unhandledOutcome as? SignUpCodeRequiredState
            delegate.onSignUpResendCodeError(error: error, newState: fresh ?? self.core.usable(self))
        }
    }
}

extension SignUpPasswordRequiredState {
    /// Submits the password and reports the outcome to `delegate`, once, on the main actor.
    public func submitPassword(password: String, delegate: any SignUpPasswordRequiredDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(PasswordRequiredError) in
            try await self.submitPassword(password)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignUpPasswordRequiredError(error: error, newState: self.core.usable(self))
        }
    }
}

extension SignUpAttributesRequiredState {
    /// Submits attributes and reports the outcome to `delegate`, once, on the main actor.
    public func submitAttributes(attributes: UserAttributes, delegate: any SignUpAttributesRequiredDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(AttributesRequiredError) in
            try await self.submitAttributes(attributes)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignUpAttributesRequiredError(error: error, newState: self.core.usable(self))
        }
    }
}

extension SignInAfterSignUpState {
    /// Signs the new user in and reports the outcome to `delegate`, once, on the main actor.
    public func signIn(scopes: [String] = [], delegate: any SignInAfterSignUpDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(SignInAfterSignUpError) in
            try await self.signIn(scopes: scopes)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignInAfterSignUpError(error: error)
        }
    }
}
