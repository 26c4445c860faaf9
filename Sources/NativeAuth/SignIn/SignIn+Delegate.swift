import Foundation

extension NativeAuthClient {
    /// Starts signing a user in and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``signIn(_:)``.
    public func signIn(parameters: SignInParameters, delegate: any SignInStartDelegate) {
        var parameters = parameters
        let correlationId = parameters.correlationId ?? UUID()
        parameters.correlationId = correlationId
        Task {
            let result = await outcome { () async throws(SignInStartError) in try await self.signIn(parameters) }
            await MainActor.run {
                switch result {
                case .failure(let error):
                    delegate.onSignInStartError(error: error)
                case .success(let result):
                    let missing = DelegateDispatch.call {
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
                    }
                    if let missing {
                        delegate.onSignInStartError(
                            error: .missingDelegateMethod(missing, correlationId: correlationId, outcome: result))
                    }
                }
            }
        }
    }
}

extension SignInCodeRequiredState {
    /// Submits the code and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``submitCode(_:)``.
    public func submitCode(code: String, delegate: any SignInVerifyCodeDelegate) {
        Task {
            let result = await outcome { () async throws(VerifyCodeError) in try await self.submitCode(code) }
            await MainActor.run {
                switch result {
                case .failure(let error):
                    delegate.onSignInVerifyCodeError(error: error, newState: core.phase != .spent ? self : nil)
                case .success(let result):
                    if let missing = result.deliver(to: delegate) {
                        delegate.onSignInVerifyCodeError(
                            error: .missingDelegateMethod(missing, correlationId: correlationId, outcome: result),
                            newState: nil)
                    }
                }
            }
        }
    }

    /// Sends a new code and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``resendCode()``.
    public func resendCode(delegate: any SignInResendCodeDelegate) {
        Task {
            let result = await outcome { () async throws(ResendCodeError) in try await self.resendCode() }
            await MainActor.run {
                switch result {
                case .failure(let error):
                    delegate.onSignInResendCodeError(error: error, newState: core.phase != .spent ? self : nil)
                case .success(let state):
                    let missing = DelegateDispatch.call {
                        delegate.onSignInResendCodeCodeRequired(
                            newState: state, sentTo: state.sentTo, channelTargetType: state.channel,
                            codeLength: state.codeLength)
                    }
                    if let missing {
                        delegate.onSignInResendCodeError(
                            error: .missingDelegateMethod(missing, correlationId: correlationId, outcome: state),
                            newState: state)
                    }
                }
            }
        }
    }
}

extension SignInPasswordRequiredState {
    /// Submits the password and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``submitPassword(_:)``.
    public func submitPassword(password: String, delegate: any SignInPasswordRequiredDelegate) {
        Task {
            let result = await outcome { () async throws(PasswordRequiredError) in
                try await self.submitPassword(password)
            }
            await MainActor.run {
                switch result {
                case .failure(let error):
                    delegate.onSignInPasswordRequiredError(error: error, newState: core.phase != .spent ? self : nil)
                case .success(let result):
                    if let missing = result.deliver(to: delegate) {
                        delegate.onSignInPasswordRequiredError(
                            error: .missingDelegateMethod(missing, correlationId: correlationId, outcome: result),
                            newState: nil)
                    }
                }
            }
        }
    }
}
