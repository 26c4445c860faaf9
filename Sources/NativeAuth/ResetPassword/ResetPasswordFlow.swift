import AuthSupport
import Foundation

/// The password-reset engine.
enum ResetPasswordFlow {
    /// The official clients give up after about six polls.
    static let maximumPolls = 6
    /// The note of errors raised while waiting for a submitted reset.
    static let waitNote = "The reset goes on on the server; call submitPassword again to keep waiting."

    /// Starts a reset over the configured protocol: the one place a reset's start reads it.
    static func start(_ parameters: ResetPasswordParameters, client: ClientCore) async throws(FlowError)
        -> ResetPasswordStartResult
    {
        switch client.configuration.protocolVersion {
        case .v1: try await startV1(parameters, client: client)
        case .v2: try await ResetPasswordStepsV2.start(parameters, client: client)
        }
    }

    private static func startV1(_ parameters: ResetPasswordParameters, client: ClientCore) async throws(FlowError)
        -> ResetPasswordStartResult
    {
        try await start(
            flow: try client.startFlow(username: parameters.username, correlationId: parameters.correlationId))
    }

    /// Starts the reset for `flow`'s user: `start`, then the code is sent.
    static func start(flow: FlowContext) async throws(FlowError) -> ResetPasswordStartResult {
        let username = flow.username
        let started = try await flow.requestToken(.resetPasswordStart(username: username))
        let challenge = try await flow.requestCode(
            .resetPasswordChallenge(continuationToken: started))
        return .codeRequired(
            ResetPasswordCodeRequiredState(codeCore: CodeStateCore(flow: flow, challenge: challenge)),
            sentTo: challenge.sentTo,
            channelTargetType: challenge.channel, codeLength: challenge.codeLength)
    }

    /// The poll interval and the token every poll sends: the pending wait's, or those of a `submit`
    /// sent now. Its own function, so that the wait that follows is not repeated after both branches.
    private static func submitOnce(
        _ password: String, action: StateCore.Action, core: StateCore, pendingInterval: Locked<Int?>
    ) async throws(FlowError) -> (interval: Int, pollToken: Secret) {
        let flow = action.flow
        // Every poll sends the token `submit` returned, as Microsoft's clients do; a poll's own token
        // is only for what follows the reset (sign-in, or submitting again after `failed`).
        if let pending = pendingInterval.current {
            flow.client.log(.debug, "password reset: resuming the wait", correlationId: flow.correlationId)
            return (pending, action.token)
        }
        let submit = WireCall.resetPasswordSubmit(continuationToken: action.token, newPassword: Secret(password))
        let outcome = try await flow.step(submit)
        guard case .resetSubmitted(let submitted) = outcome else { throw flow.unexpected(outcome, of: submit) }
        core.update(token: submitted.continuationToken)
        pendingInterval.withLock { $0 = submitted.pollInterval }
        return (submitted.pollInterval, submitted.continuationToken)
    }

    /// Submits the new password, then polls until the server says the reset is done.
    ///
    /// `pendingInterval` holds the poll interval while a submitted reset is still running on the
    /// server: an interrupted wait (cancellation, network, too many polls) leaves it set, and the
    /// next call resumes polling instead of submitting again, which the server would refuse.
    static func submit(
        _ password: String, action: StateCore.Action, core: StateCore, pendingInterval: Locked<Int?>
    ) async throws(FlowError) -> SignInAfterResetPasswordState {
        let flow = action.flow
        let (interval, pollToken) = try await submitOnce(
            password, action: action, core: core, pendingInterval: pendingInterval)
        for attempt in 1...maximumPolls {
            do {
                try await flow.client.configuration.clock.sleep(seconds: Double(interval))
            } catch {
                var details = NativeAuthErrorDetails(.cancelled, correlationId: flow.correlationId, note: waitNote)
                details.resetPending = true
                throw FlowError(details: details)
            }
            let poll: PollAnswer
            do throws(FlowError) {
                let call = WireCall.resetPasswordPollCompletion(continuationToken: pollToken)
                let outcome = try await flow.step(call)
                guard case .polled(let answer) = outcome else { throw flow.unexpected(outcome, of: call) }
                poll = answer
            } catch {
                // The server answered: the job is over (a refused password may be submitted again).
                if error.details.server != nil {
                    pendingInterval.withLock { $0 = nil }
                    throw error
                }
                // No usable answer: the reset goes on on the server and the next call keeps waiting.
                var details = error.details
                details.resetPending = true
                throw FlowError(details: details)
            }
            // A poll with the submit's token consumes nothing: the state keeps that token.
            core.update(token: poll.status == .failed ? (poll.continuationToken ?? pollToken) : pollToken)
            flow.client.log(
                .debug, "password reset polled", ["attempt": "\(attempt)"], correlationId: flow.correlationId)
            switch poll.status {
            case .succeeded:
                pendingInterval.withLock { $0 = nil }
                // No token still means the password was changed; only sign-in after the reset is
                // unavailable.
                return SignInAfterResetPasswordState(
                    core: StateCore(flow: flow, token: poll.continuationToken ?? Secret("")))
            case .failed:
                pendingInterval.withLock { $0 = nil }
                throw FlowError(
                    .passwordResetFailed, correlationId: flow.correlationId, note: "Submit the new password again.")
            case .notStarted, .inProgress:
                continue
            }
        }
        throw FlowError(.passwordResetPending, correlationId: flow.correlationId, note: waitNote)
    }
}
