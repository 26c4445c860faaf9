import Foundation

/// What one call of a flow step came to: every answer of the API, typed. Made in one place,
/// ``WireClient/step(_:correlationId:)``; flows switch over it and never read answers themselves.
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum StepOutcome: Sendable {
    /// A start or `continue` endpoint moved on, with the token for the next call (sign-up's last
    /// `continue` may give none: the user was created, sign-in after it is unavailable).
    case continued(Secret?)
    /// A challenge endpoint said how the user goes on: a code sent, a credential to enter, a
    /// contact verified already.
    case challenged(ChallengeAnswer)
    /// The token endpoint issued tokens.
    case tokens(TokenAnswer)
    /// An introspect endpoint listed the user's methods.
    case methods(IntrospectAnswer)
    /// A new password was submitted; poll for the result.
    case resetSubmitted(ResetSubmitAnswer)
    /// A poll of a submitted password reset.
    case polled(PollAnswer)
    /// A 2xx answer that lacks what the endpoint's answer must carry. The server acted on the
    /// request, so the token it was sent with is used up.
    case malformed(UnexpectedAnswer)
    /// An error answer that moves the flow on to `step`, with the token to continue with.
    case nextStep(NextStep, token: Secret, answer: ServerError)
    /// A documented error answer.
    case refused(ServerError)

    /// Whether the answer used up the continuation token the call sent: any answer but a refusal
    /// that leaves the flow where it was.
    var consumesToken: Bool {
        if case .refused(let error) = self { return error.movesFlow }
        return true
    }

    /// The server error the outcome carries, if any.
    var serverError: ServerError? {
        switch self {
        case .refused(let error), .nextStep(_, _, let error): error
        default: nil
        }
    }

    /// Reads a 2xx answer as the answer of `endpoint`.
    init(_ reply: WireClient.Reply, from endpoint: Endpoint) {
        do {
            self = try reply.decode { reply throws(WireFailure) in try Self.decode(reply, from: endpoint) }
        } catch .unexpected(let answer) {
            self = .malformed(answer)
        } catch {
            self = .malformed(UnexpectedAnswer(problem: .status))
        }
    }

    /// Reads an error answer of `endpoint`.
    init(refusal error: ServerError, from endpoint: Endpoint) {
        if let step = NextStep.of(error, at: endpoint), let token = error.continuationToken {
            self = .nextStep(step, token: token, answer: error)
        } else {
            self = .refused(error)
        }
    }

    private static func decode(_ reply: WireClient.Reply, from endpoint: Endpoint) throws(WireFailure) -> Self {
        let object = reply.object
        switch endpoint {
        case .signInChallenge, .signUpChallenge, .resetPasswordChallenge, .registerChallenge:
            return .challenged(try ChallengeAnswer(object))
        case .token: return .tokens(try TokenAnswer(object, headers: reply.response))
        case .signInIntrospect, .registerIntrospect: return .methods(try IntrospectAnswer(object))
        case .resetPasswordSubmit: return .resetSubmitted(try ResetSubmitAnswer(object))
        case .resetPasswordPollCompletion: return .polled(try PollAnswer(object))
        case .signUpContinue:
            return .continued(object.string("continuation_token").flatMap { $0.isEmpty ? nil : Secret($0) })
        case .signInInitiate, .signUpStart, .resetPasswordStart, .resetPasswordContinue, .registerContinue:
            return .continued(try ContinuationAnswer(object).continuationToken)
        }
    }
}

extension WireClient {
    /// Sends a flow step's call and reads its outcome. Failures that are no answer of the API
    /// (transport, cancellation, a redirect, a body the API never gives) are thrown.
    func step(_ call: WireCall, correlationId: UUID) async throws(WireFailure) -> StepOutcome {
        do {
            return StepOutcome(try await send(call, correlationId: correlationId), from: call.endpoint)
        } catch .server(let error) {
            return StepOutcome(refusal: error, from: call.endpoint)
        } catch {
            throw error
        }
    }
}
