import Foundation

extension NativeAuthClient {
    /// Starts signing a user in and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``signIn(_:)``.
    public func signIn(parameters: SignInParameters, delegate: any SignInStartDelegate) {
        var parameters = parameters
        let correlationId = parameters.correlationId ?? UUID()
        parameters.correlationId = correlationId
        reportToDelegate(correlationId: correlationId) { [parameters] () async throws(SignInStartError) in
            try await self.signIn(parameters)
        } deliver: { result in
            switch result {
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
            }
        } fail: { error in
            delegate.onSignInStartError(error: error)
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
                newState: state, sentTo: state.sentTo, channelTargetType: state.channel, codeLength: state.codeLength)
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
