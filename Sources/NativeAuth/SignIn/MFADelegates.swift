import Foundation

/// Receives the outcome of requesting a multi-factor code, on the main actor.
@MainActor
public protocol MFARequestChallengeDelegate: AnyObject, Sendable {
    /// No code was sent. Required: implement this method (or, in older code, the deprecated
    /// ``onMFARequestChallengeError(error:)``, which the default implementation of this one calls).
    ///
    /// - Parameters:
    ///   - error: why no code was sent.
    ///   - newState: the ``MFARequiredState`` the action was called on, while it stays usable (such
    ///     as when ``MFARequestChallengeError/isMethodBlocked``: choose another method); `nil` when it
    ///     was spent, and always `nil` when the action was called on an ``AwaitingMFAState`` (which
    ///     stays usable when ``NativeAuthError/isStateStillUsable``).
    func onMFARequestChallengeError(error: MFARequestChallengeError, newState: MFARequiredState?)
    /// No code was sent: the name before ``onMFARequestChallengeError(error:newState:)``, without
    /// the state. Still called when a delegate implements it and not the new name.
    @available(*, deprecated, renamed: "onMFARequestChallengeError(error:newState:)")
    func onMFARequestChallengeError(error: MFARequestChallengeError)
    /// A code was sent; submit it on `newState`. Optional.
    func onMFARequestChallengeVerificationRequired(
        newState: MFARequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}

extension MFARequestChallengeDelegate {
    /// Calls the deprecated ``onMFARequestChallengeError(error:)``, so that a delegate written
    /// before the rename keeps receiving errors.
    public func onMFARequestChallengeError(error: MFARequestChallengeError, newState: MFARequiredState?) {
        (LegacyDelegateCall() as any LegacyDelegateCalling).mfaRequestChallengeError(self, error)
    }

    /// The SDK calls ``onMFARequestChallengeError(error:newState:)``, whose default implementation
    /// calls this one. Implement one of the two: when a delegate implements neither, the error is
    /// logged at `error` level instead, as it can be delivered nowhere.
    public func onMFARequestChallengeError(error: MFARequestChallengeError) {
        DelegateDispatch.missingMethod("onMFARequestChallengeError(error:newState:)")
    }

    /// Optional; when left out, ``onMFARequestChallengeError(error:newState:)`` reports it.
    public func onMFARequestChallengeVerificationRequired(
        newState: MFARequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        DelegateDispatch.missingMethod(
            "onMFARequestChallengeVerificationRequired(newState:sentTo:channelTargetType:codeLength:)")
    }
}

/// Receives the outcome of submitting a multi-factor code, on the main actor.
@MainActor
public protocol MFASubmitChallengeDelegate: SignInResultDelegate {
    /// The code was not accepted. `newState` is the state to try again on, when still usable. Required.
    func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?)
}

extension MFARequiredState {
    /// Requests a code for `authMethod` and reports the outcome to `delegate`, once, on the main actor.
    public func requestChallenge(authMethod: AuthMethod, delegate: any MFARequestChallengeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(MFARequestChallengeError) in
            try await self.requestChallenge(authMethod: authMethod)
        } deliver: { state in
            state.deliver(to: delegate)
        } fail: { error in
            DelegateDispatch.deliverError(error, log: self.core.flow.client.log) {
                delegate.onMFARequestChallengeError(error: error, newState: self.core.usable(self))
            }
        }
    }

    @MainActor
    func deliver(to delegate: any MFARequestChallengeDelegate) {
        delegate.onMFARequestChallengeVerificationRequired(
            newState: self, sentTo: sentTo, channelTargetType: channelTargetType, codeLength: codeLength)
    }

    /// Submits the code and reports the outcome to `delegate`, once, on the main actor.
    public func submitChallenge(challenge: String, delegate: any MFASubmitChallengeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(MFASubmitChallengeError) in
            try await self.submitChallenge(challenge)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onMFASubmitChallengeError(error: error, newState: self.core.usable(self))
        }
    }
}

extension AwaitingMFAState {
    /// Requests a code for `authMethod` and reports the outcome to `delegate`, once, on the main actor.
    public func requestChallenge(authMethod: AuthMethod, delegate: any MFARequestChallengeDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(MFARequestChallengeError) in
            try await self.requestChallenge(authMethod: authMethod)
        } deliver: { state in
            state.deliver(to: delegate)
        } fail: { error in
            DelegateDispatch.deliverError(error, log: self.core.flow.client.log) {
                delegate.onMFARequestChallengeError(error: error, newState: nil)
            }
        }
    }
}
