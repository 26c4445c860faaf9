import AuthSupport
import Foundation

/// The password-reset engine of native authentication V2 (Docs/NativeAuthV2.md, "Using V2"):
/// starts authorization, follows the `reset_password` link, a recovery method's (email, else SMS)
/// `challenge` and `verify` links, `PUT`s the new password on the `update` link and polls the `poll` link until
/// `state: continue`. It hands back the same states as ``ResetPasswordFlow``, which call it from
/// their actions when their ``StepEngine`` is `.v2`.
enum ResetPasswordFlowV2 {
    /// Polls after the update before the wait is reported as pending: [iOS] and [Android] make 5.
    static let maximumPolls = 5
    /// The delay before a poll when the answer gives no `pollInterval`: [iOS]' fixed delay and
    /// [Android]'s fallback, 1.5 seconds.
    static let fallbackPollInterval = 1.5

    /// A submitted update still running on the server: the `poll` link to follow, and the delay
    /// before the next poll, in seconds. The token to send is the state's.
    struct PendingPoll: Sendable {
        let link: V2Link
        let interval: Double
    }

    static func start(_ parameters: ResetPasswordParameters, client: ClientCore) async throws(FlowError)
        -> ResetPasswordStartResult
    {
        try await start(
            flow: try client.startFlow(username: parameters.username, correlationId: parameters.correlationId),
            selects: parameters.selectsAuthMethod)
    }

    /// Starts authorization and the `reset_password` journey for `flow`'s user; with `selects`, the
    /// user chooses among several recovery methods.
    static func start(flow: FlowContext, selects: Bool = false) async throws(FlowError) -> ResetPasswordStartResult {
        let started = try await flow.v2(.startAuthorization)
        guard case .started(let answer) = started else {
            throw flow.unexpectedV2(field: "reset_password", value: "another answer")
        }
        let link = try flow.link(answer.resetPassword, relation: "reset_password")
        let outcome = try await startJourney(
            .startResetPassword(link, username: flow.username, continuationToken: answer.continuationToken), flow: flow)
        return try await codeRequired(after: outcome, flow: flow, selects: selects)
    }

    /// Where the journey's first answer leads: `action: challenge` with the recovery methods. With
    /// `selects` and more than one email or SMS method, the user chooses
    /// (``ResetPasswordAuthMethodSelectionRequiredState``); otherwise the `challenge` link of the
    /// first email method, else of the first SMS method (``FlowContext/challengeMethod(_:methodId:)``),
    /// is followed at once, with an SMS method's `riskverify` hop, and a code state is returned.
    /// An answer with neither is ``NativeAuthError/isBrowserRequired``, with nothing sent.
    static func codeRequired(after outcome: V2Outcome, flow: FlowContext, selects: Bool = false)
        async throws(FlowError) -> ResetPasswordStartResult
    {
        guard case .interaction(let envelope) = outcome, envelope.action == .challenge else {
            throw unexpected(outcome, flow: flow)
        }
        if selects {
            let (offered, links) = try SignInFlowV2.offeredMethods(
                envelope, types: ["email", "sms"], relations: ["challenge"], key: V2StepContext.challengeRelation,
                purpose: "recovery", flow: flow)
            if offered.count > 1, let token = envelope.continuationToken {
                return .authMethodSelectionRequired(
                    ResetPasswordAuthMethodSelectionRequiredState(
                        core: StateCore(flow: flow, token: token), authMethods: offered, methodLinks: links),
                    methods: offered)
            }
        }
        guard let method = flow.challengeMethod(envelope) else {
            // MSAL for iOS answers a reset offering no email or SMS method with an error; the
            // browser can still reset the password with what the server offers there.
            throw FlowError(
                .browserRequired, correlationId: flow.correlationId,
                note: "The server offered no recovery method this SDK can send a code to.")
        }
        let answer = try await SignInFlowV2.afterChallenge(
            try await flow.followChallenge(envelope, methodId: method.id),
            channel: ChannelType(wire: method.type?.lowercased() ?? ""), flow: flow)
        return codeRequired(try codeStep(after: answer, flow: flow))
    }

    /// Chooses a recovery method on a ``ResetPasswordAuthMethodSelectionRequiredState``: follows
    /// the method's `challenge` link with the state's token (and an SMS method's `riskverify` hop);
    /// the answer is the code state.
    static func select(_ method: AuthMethod, links: V2StepContext, action: StateCore.Action)
        async throws(FlowError) -> ResetPasswordStartResult
    {
        guard let link = links.links[V2StepContext.challengeRelation(method.id)] else {
            throw action.flow.fail(.invalidArgument, note: "The server did not offer this method; nothing was sent.")
        }
        let answer = try await SignInFlowV2.afterChallenge(
            try await action.flow.v2(.challenge(link, continuationToken: action.token)),
            channel: method.channelTargetType, flow: action.flow)
        return codeRequired(try codeStep(after: answer, flow: action.flow))
    }

    private static func codeRequired(_ step: CodeStep) -> ResetPasswordStartResult {
        .codeRequired(
            ResetPasswordCodeRequiredState(step: step), sentTo: step.sentTo, channelTargetType: step.channel,
            codeLength: step.codeLength)
    }

    /// The start of the journey. A user with no password to reset is refused with
    /// `innerError.code` `userDoesNotHavePassword` or `AADSTS500222`, named here as V1 names it.
    static func startJourney(_ call: V2Call, flow: FlowContext) async throws(FlowError) -> V2Outcome {
        do {
            return try await flow.v2(call)
        } catch {
            guard let server = error.details.server, error.details.kind == .general,
                V2ServerError.folded(server.suberror ?? "") == "userdoesnothavepassword"
                    || server.errorCodes.first == 500222
            else { throw error }
            throw FlowError(
                details: NativeAuthErrorDetails(.userHasNoPassword, correlationId: flow.correlationId, server: server))
        }
    }

    /// The code step of an `action: verify` answer: its `verify` link, and `resend` when offered.
    private static func codeStep(after outcome: V2Outcome, flow: FlowContext) throws(FlowError) -> CodeStep {
        guard case .interaction(let envelope) = outcome, envelope.action == .verify,
            let token = envelope.continuationToken
        else { throw unexpected(outcome, flow: flow) }
        var links = ["verify": try flow.link(envelope.href("verify"), relation: "verify")]
        if let resend = envelope.href("resend") { links["resend"] = try flow.link(resend, relation: "resend") }
        let challenge = CodeChallenge(
            continuationToken: token, channel: ChannelType(wire: envelope.methodType?.lowercased() ?? "email"),
            sentTo: envelope.hint ?? "", codeLength: envelope.codeLength, interval: nil)
        return CodeStep(
            flow: flow, challenge: challenge, engine: .v2(V2StepContext(links: links, methodId: envelope.methodId)))
    }

    /// The error for an answer this step does not take.
    private static func unexpected(_ outcome: V2Outcome, flow: FlowContext) -> FlowError {
        switch outcome {
        case .interaction(let envelope):
            flow.unexpectedV2(field: "action", value: envelope.action.map { "\($0)" } ?? "none")
        case .journeyComplete:
            flow.unexpectedV2(field: "state", value: "continue")
        default:
            flow.unexpectedV2(field: "state", value: "another answer")
        }
    }

    /// Submits the code at the `verify` link; the answer asks for the new password on its `update` link.
    static func submitCode(_ code: Secret, context: V2StepContext, action: StateCore.Action) async throws(FlowError)
        -> ResetPasswordRequiredState
    {
        let flow = action.flow
        let verify = try context.link("verify", flow: flow)
        let outcome = try await flow.v2(.verifyCode(verify, continuationToken: action.token, code: code))
        guard case .interaction(let envelope) = outcome, envelope.action == .update,
            let token = envelope.continuationToken
        else { throw unexpected(outcome, flow: flow) }
        let update = try flow.link(envelope.href("update"), relation: "update")
        return ResetPasswordRequiredState(
            core: StateCore(flow: flow, token: token),
            engine: .v2(V2StepContext(links: ["update": update], methodId: envelope.methodId)))
    }

    /// Asks for a new code at the `resend` link; the answer is the next code step.
    static func resend(context: V2StepContext, action: StateCore.Action) async throws(FlowError) -> CodeStep {
        let resend = try context.link("resend", flow: action.flow)
        let outcome = try await action.flow.v2(.resend(resend, continuationToken: action.token))
        return try codeStep(after: outcome, flow: action.flow)
    }

    /// `PUT`s the new password on the `update` link, then polls until `state: continue`.
    ///
    /// `pending` holds the poll link while the update runs on the server: a wait interrupted by a
    /// cancellation, a network failure or too many polls leaves it set (and the state's token is the
    /// last poll's), and the next call polls on instead of sending the password again.
    static func submit(
        _ password: String, context: V2StepContext, action: StateCore.Action, core: StateCore,
        pending: Locked<PendingPoll?>
    ) async throws(FlowError) -> SignInAfterResetPasswordState {
        let flow = action.flow
        var token = action.token
        var poll: PendingPoll
        if let resumed = pending.current {
            poll = resumed
            flow.client.log(.debug, "password reset: resuming the wait", correlationId: flow.correlationId)
        } else {
            let update = try context.link("update", flow: flow)
            let outcome = try await flow.v2(
                .updatePassword(update, continuationToken: token, newPassword: Secret(password)))
            if case .journeyComplete(let done, _) = outcome { return signInState(token: done, flow: flow) }
            (token, poll) = try next(outcome, flow: flow)
            core.update(token: token)
            pending.withLock { $0 = poll }
        }
        for attempt in 1...maximumPolls {
            do {
                try await flow.client.configuration.clock.sleep(seconds: poll.interval)
            } catch {
                var details = NativeAuthErrorDetails(
                    .cancelled, correlationId: flow.correlationId, note: ResetPasswordFlow.waitNote)
                details.resetPending = true
                throw FlowError(details: details)
            }
            let outcome = try await pollOnce(poll.link, token: token, flow: flow, pending: pending)
            flow.client.log(
                .debug, "password reset polled", ["attempt": "\(attempt)"], correlationId: flow.correlationId)
            if case .journeyComplete(let done, _) = outcome {
                pending.withLock { $0 = nil }
                return signInState(token: done, flow: flow)
            }
            do {
                (token, poll) = try next(outcome, flow: flow)
            } catch {
                pending.withLock { $0 = nil }
                throw error
            }
            core.update(token: token)
            pending.withLock { $0 = poll }
        }
        throw FlowError(.passwordResetPending, correlationId: flow.correlationId, note: ResetPasswordFlow.waitNote)
    }

    /// One poll. A refusal the SDK can read (a refused password, an expired token, the browser)
    /// ends the wait. No usable answer leaves it pending, and so does a refusal that says nothing
    /// the SDK knows (a 5xx, an unknown error): the state's token is then the last poll's, which
    /// only a poll can send, so submitting the password again could only be refused.
    private static func pollOnce(
        _ link: V2Link, token: Secret, flow: FlowContext, pending: Locked<PendingPoll?>
    ) async throws(FlowError) -> V2Outcome {
        do {
            return try await flow.v2(.poll(link, continuationToken: token))
        } catch {
            switch error.details.kind {
            case .general, .unexpectedResponse, .network, .cancelled:
                break
            default:
                pending.withLock { $0 = nil }
                throw error
            }
            var details = error.details
            details.resetPending = true
            throw FlowError(details: details)
        }
    }

    /// The token and poll of an `action: poll` answer. The poll href is read from every answer,
    /// since it may change from one poll to the next ([JS]).
    private static func next(_ outcome: V2Outcome, flow: FlowContext) throws(FlowError) -> (Secret, PendingPoll) {
        guard case .interaction(let envelope) = outcome, envelope.action == .poll,
            let token = envelope.continuationToken
        else { throw unexpected(outcome, flow: flow) }
        let link = try flow.link(envelope.href("poll"), relation: "poll")
        let interval = envelope.pollInterval.map { Double($0) / 1_000 } ?? fallbackPollInterval
        return (token, PendingPoll(link: link, interval: interval))
    }

    private static func signInState(token: Secret, flow: FlowContext) -> SignInAfterResetPasswordState {
        SignInAfterResetPasswordState(core: StateCore(flow: flow, token: token), engine: .v2(V2StepContext(links: [:])))
    }
}
