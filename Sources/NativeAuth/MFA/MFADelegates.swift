import Foundation

/// Receives the outcome of requesting a multi-factor code, on the main actor.
@MainActor
public protocol MFARequestChallengeDelegate: AnyObject, Sendable {
    /// No code was sent. The state the action was called on stays usable when
    /// ``MFARequestChallengeError/isMethodBlocked`` (choose another method). Required.
    func onMFARequestChallengeError(error: MFARequestChallengeError)
    /// A code was sent; submit it on `newState`. Optional.
    func onMFARequestChallengeVerificationRequired(
        newState: MFARequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}

extension MFARequestChallengeDelegate {
    /// Optional; when left out, ``onMFARequestChallengeError(error:)`` reports it.
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
        Task {
            let result = await outcome { () async throws(MFARequestChallengeError) in
                try await self.requestChallenge(authMethod: authMethod)
            }
            await MFARequiredState.deliver(result, to: delegate, correlationId: correlationId)
        }
    }

    @MainActor
    static func deliver(
        _ result: Result<MFARequiredState, MFARequestChallengeError>, to delegate: any MFARequestChallengeDelegate,
        correlationId: UUID
    ) {
        switch result {
        case .failure(let error):
            delegate.onMFARequestChallengeError(error: error)
        case .success(let state):
            let missing = DelegateDispatch.call {
                delegate.onMFARequestChallengeVerificationRequired(
                    newState: state, sentTo: state.sentTo, channelTargetType: state.channel,
                    codeLength: state.codeLength)
            }
            if let missing {
                delegate.onMFARequestChallengeError(
                    error: .missingDelegateMethod(missing, correlationId: correlationId, outcome: state))
            }
        }
    }

    /// Submits the code and reports the outcome to `delegate`, once, on the main actor.
    public func submitChallenge(challenge: String, delegate: any MFASubmitChallengeDelegate) {
        Task {
            let result = await outcome { () async throws(MFASubmitChallengeError) in
                try await self.submitChallenge(challenge)
            }
            await MainActor.run {
                switch result {
                case .failure(let error):
                    delegate.onMFASubmitChallengeError(error: error, newState: core.phase != .spent ? self : nil)
                case .success(let result):
                    if let missing = result.deliver(to: delegate) {
                        delegate.onMFASubmitChallengeError(
                            error: .missingDelegateMethod(missing, correlationId: correlationId, outcome: result),
                            newState: nil)
                    }
                }
            }
        }
    }
}

extension AwaitingMFAState {
    /// Requests a code for `authMethod` and reports the outcome to `delegate`, once, on the main actor.
    public func requestChallenge(authMethod: AuthMethod, delegate: any MFARequestChallengeDelegate) {
        Task {
            let result = await outcome { () async throws(MFARequestChallengeError) in
                try await self.requestChallenge(authMethod: authMethod)
            }
            await MFARequiredState.deliver(result, to: delegate, correlationId: correlationId)
        }
    }
}
