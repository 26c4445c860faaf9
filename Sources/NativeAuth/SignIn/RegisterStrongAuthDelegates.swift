import Foundation

/// Receives the outcome of challenging a contact for registration, on the main actor. When the
/// contact was already verified, the user is signed in and ``SignInResultDelegate/onSignInCompleted(result:)`` is called.
@MainActor
public protocol RegisterStrongAuthChallengeDelegate: SignInResultDelegate {
    /// The contact was not challenged. Required: implement this method (or, in older code, the
    /// deprecated ``onRegisterStrongAuthChallengeError(error:)``, which the default implementation
    /// of this one calls).
    ///
    /// - Parameters:
    ///   - error: why the contact was not challenged.
    ///   - newState: the state to challenge a contact again on, while the flow can go on from the
    ///     state the action was called on (such as when the contact was invalid or blocked); `nil`
    ///     when that state was spent. When the action was called on a
    ///     ``RegisterStrongAuthVerificationRequiredState``, this is a ``RegisterStrongAuthState`` at
    ///     the same point of the flow (using one uses the other).
    func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError, newState: RegisterStrongAuthState?)
    /// The contact was not challenged: the name before
    /// ``onRegisterStrongAuthChallengeError(error:newState:)``, without the state. Still called
    /// when a delegate implements it and not the new name.
    @available(*, deprecated, renamed: "onRegisterStrongAuthChallengeError(error:newState:)")
    func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError)
    /// A code was sent to the contact; submit it on `newState`. Optional.
    func onRegisterStrongAuthVerificationRequired(
        newState: RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: ChannelType,
        codeLength: Int?)
}

extension RegisterStrongAuthChallengeDelegate {
    /// Calls the deprecated ``onRegisterStrongAuthChallengeError(error:)``, so that a delegate
    /// written before the rename keeps receiving errors.
    public func onRegisterStrongAuthChallengeError(
        error: RegisterStrongAuthChallengeError, newState: RegisterStrongAuthState?
    ) {
        (LegacyDelegateCall() as any LegacyDelegateCalling).registerStrongAuthChallengeError(self, error)
    }

    /// The SDK calls ``onRegisterStrongAuthChallengeError(error:newState:)``, whose default
    /// implementation calls this one. Implement one of the two: when a delegate implements neither,
    /// the error is logged at `error` level instead, as it can be delivered nowhere.
    public func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError) {
        DelegateDispatch.missingMethod("onRegisterStrongAuthChallengeError(error:newState:)")
    }

    /// Optional; when left out, ``onRegisterStrongAuthChallengeError(error:newState:)`` reports it.
    public func onRegisterStrongAuthVerificationRequired(
        newState: RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: ChannelType,
        codeLength: Int?
    ) {
        DelegateDispatch.missingMethod(
            "onRegisterStrongAuthVerificationRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
}

/// Receives the outcome of submitting a registration code, on the main actor.
@MainActor
public protocol RegisterStrongAuthSubmitChallengeDelegate: SignInResultDelegate {
    /// The code was not accepted. `newState` is the state to try again on, when still usable. Required.
    func onRegisterStrongAuthSubmitChallengeError(
        error: RegisterStrongAuthSubmitChallengeError, newState: RegisterStrongAuthVerificationRequiredState?)
}

extension RegisterStrongAuthChallengeResult {
    @MainActor
    func deliver(to delegate: any RegisterStrongAuthChallengeDelegate) {
        switch self {
        case .verificationRequired(let state, let sentTo, let channel, let codeLength):
            delegate.onRegisterStrongAuthVerificationRequired(
                newState: state, sentTo: sentTo, channelTargetType: channel, codeLength: codeLength)
        case .completed(let account):
            delegate.onSignInCompleted(result: account)
        }
    }
}

extension RegisterStrongAuthState {
    /// Challenges `verificationContact` and reports the outcome to `delegate`, once, on the main actor.
    public func challengeAuthMethod(
        authMethod: AuthMethod, verificationContact: String, delegate: any RegisterStrongAuthChallengeDelegate
    ) {
        reportToDelegate(correlationId: correlationId) { () async throws(RegisterStrongAuthChallengeError) in
            try await self.challengeAuthMethod(authMethod: authMethod, verificationContact: verificationContact)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            DelegateDispatch.deliverError(error, log: self.core.flow.client.log) {
                delegate.onRegisterStrongAuthChallengeError(error: error, newState: self.core.usable(self))
            }
        }
    }
}

extension RegisterStrongAuthVerificationRequiredState {
    /// Challenges a contact again and reports the outcome to `delegate`, once, on the main actor.
    public func challengeAuthMethod(
        authMethod: AuthMethod, verificationContact: String, delegate: any RegisterStrongAuthChallengeDelegate
    ) {
        reportToDelegate(correlationId: correlationId) { () async throws(RegisterStrongAuthChallengeError) in
            try await self.challengeAuthMethod(authMethod: authMethod, verificationContact: verificationContact)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            let retry = RegisterStrongAuthState(core: self.core, authMethods: self.authMethods)
            DelegateDispatch.deliverError(error, log: self.core.flow.client.log) {
                delegate.onRegisterStrongAuthChallengeError(error: error, newState: self.core.usable(retry))
            }
        }
    }

    /// Submits the code and reports the outcome to `delegate`, once, on the main actor.
    public func submitChallenge(challenge: String, delegate: any RegisterStrongAuthSubmitChallengeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(RegisterStrongAuthSubmitChallengeError) in
            try await self.submitChallenge(challenge)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onRegisterStrongAuthSubmitChallengeError(error: error, newState: self.core.usable(self))
        }
    }
}
