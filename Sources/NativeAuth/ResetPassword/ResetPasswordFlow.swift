public import Foundation

/// What ``NativeAuthClient/resetPassword(_:)`` needs.
public struct ResetPasswordParameters: Sendable, CustomStringConvertible {
    /// The user's username (an email address).
    public var username: String
    /// The correlation id sent with every request of the flow; a new one when `nil`.
    public var correlationId: UUID?

    /// Creates password-reset parameters.
    public init(username: String, correlationId: UUID? = nil) {
        self.username = username
        self.correlationId = correlationId
    }

    /// The username.
    public var description: String { "ResetPasswordParameters(username: \(username))" }
}

/// Where ``NativeAuthClient/resetPassword(_:)`` leads.
@nonexhaustive
public enum ResetPasswordStartResult: Sendable {
    /// A code was sent to the user's email address; submit it on the state.
    case codeRequired(ResetPasswordCodeRequiredState, sentTo: String, channel: ChannelType, codeLength: Int?)
}

/// The password-reset engine.
enum ResetPasswordFlow {
    /// The official clients give up after about six polls.
    static let maximumPolls = 6

    static func start(_ parameters: ResetPasswordParameters, client: ClientCore) async throws(ResetPasswordStartError)
        -> ResetPasswordStartResult
    {
        typealias Failure = ResetPasswordStartError
        let username = parameters.username.trimmingCharacters(in: .whitespacesAndNewlines)
        let flow = client.flow(username: username, scopes: [], correlationId: parameters.correlationId)
        guard !username.isEmpty else { throw flow.fail(.invalidUsername, note: "The username is empty; nothing was sent.") }
        let started = try await flow.request(
            .resetPasswordStart(username: username), as: Failure.self, classify: Failure.classify
        ) { reply throws(WireFailure) in try ContinuationAnswer(reply.object) }
        let challenge = try await codeChallenge(token: started.continuationToken, flow: flow, as: Failure.self)
        return .codeRequired(
            ResetPasswordCodeRequiredState(flow: flow, challenge: challenge), sentTo: challenge.sentTo,
            channel: challenge.channel, codeLength: challenge.codeLength)
    }

    static func codeChallenge<E: DetailedError>(token: Secret, flow: FlowContext, as errorType: E.Type) async throws(E)
        -> CodeChallenge
    {
        let answer = try await flow.request(.resetPasswordChallenge(continuationToken: token), as: E.self) { _ in nil }
            decode: { reply throws(WireFailure) in try ChallengeAnswer(reply.object) }
        guard case .code(let challenge) = answer else {
            throw E(
                .unexpected(.init(problem: .unknownValue(field: "challenge_type", value: "not oob"))),
                correlationId: flow.correlationId, classify: { _ in nil })
        }
        return challenge
    }

    /// Submits the new password, then polls until the server says the reset is done.
    static func submit(_ password: String, token: Secret, core: StateCore) async throws(PasswordRequiredError)
        -> SignInAfterResetPasswordState
    {
        typealias Failure = PasswordRequiredError
        let flow = core.flow
        let classify = Failure.classify
        let submitted = try await flow.request(
            .resetPasswordSubmit(continuationToken: token, newPassword: Secret(password)), as: Failure.self,
            classify: classify
        ) { reply throws(WireFailure) in try ResetSubmitAnswer(reply.object) }
        var pollToken = submitted.continuationToken
        core.update(token: pollToken)
        for attempt in 1...maximumPolls {
            do {
                try await flow.client.configuration.clock.sleep(seconds: Double(submitted.pollInterval))
            } catch {
                throw Failure(.cancelled, correlationId: flow.correlationId)
            }
            let poll = try await flow.request(
                .resetPasswordPollCompletion(continuationToken: pollToken), as: Failure.self, classify: classify
            ) { reply throws(WireFailure) in try PollAnswer(reply.object) }
            if let next = poll.continuationToken {
                pollToken = next
                core.update(token: next)
            }
            flow.client.log(.debug, "password reset polled", ["attempt": "\(attempt)"], correlationId: flow.correlationId)
            switch poll.status {
            case .succeeded:
                return SignInAfterResetPasswordState(core: StateCore(flow: flow, token: pollToken))
            case .failed:
                throw Failure(
                    .passwordResetFailed, correlationId: flow.correlationId,
                    note: "Submit the new password again.")
            case .notStarted, .inProgress:
                continue
            }
        }
        throw Failure(
            .passwordResetFailed, correlationId: flow.correlationId,
            note: "The server did not finish within \(maximumPolls) polls; submit the new password again.")
    }
}

extension NativeAuthClient {
    /// Starts a self-service password reset: a code is sent to the user's email address.
    ///
    /// - Throws: ``ResetPasswordStartError``; an empty username is refused before any request.
    public func resetPassword(_ parameters: ResetPasswordParameters) async throws(ResetPasswordStartError)
        -> ResetPasswordStartResult
    {
        try await ResetPasswordFlow.start(parameters, client: core)
    }
}
