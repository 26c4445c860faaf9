import Foundation

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
