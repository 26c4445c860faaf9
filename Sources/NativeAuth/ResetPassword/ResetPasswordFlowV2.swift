import AuthSupport
import Foundation

/// Password reset over native authentication V2 (Docs/NativeAuthV2.md, "Password reset over V2"):
/// its start (the `reset_password` link, or a sign-in's `recover` link), each state's action, and
/// one table from what the server wants next (``V2Interaction``) to the states of
/// ``ResetPasswordFlow``. The states hold these steps when their ``StepEngine`` is `.v2`.
struct ResetPasswordStepsV2: ResetPasswordSteps {
    /// Polls after the update before the wait is reported as pending: [iOS] and [Android] make 5.
    static let maximumPolls = 5

    /// The checked links of the answer that made the state.
    let context: V2StepContext

    static func start(_ parameters: ResetPasswordParameters, client: ClientCore) async throws(FlowError)
        -> ResetPasswordStartResult
    {
        try await start(
            flow: try client.startFlow(username: parameters.username, correlationId: parameters.correlationId),
            selects: parameters.selectsAuthMethod)
    }

    /// Starts authorization and the `reset_password` journey for `flow`'s user.
    static func start(flow: FlowContext, selects: Bool) async throws(FlowError) -> ResetPasswordStartResult {
        let answer = try await flow.startJourney("reset_password", link: \.resetPassword) { link, token in
            .startResetPassword(link, username: flow.username, continuationToken: token)
        }
        return try await table(answer, flow: flow, selects: selects)
    }

    /// Inline password reset (Docs/NativeAuthV2.md, "Inline password reset"): `POST` the password
    /// method's `recover` link with the sign-in's token; its answer starts the reset as the
    /// `reset_password` link's does. Without a `recover` link, a reset of its own for the user,
    /// which sends nothing of the sign-in but its correlation id.
    func startFromSignIn(selects: Bool, action: StateCore.Action) async throws(FlowError) -> ResetPasswordStartResult {
        let flow = action.flow
        guard let link = context.links["recover"] else {
            flow.client.log(
                .info, "password reset: the server offered no recover link; starting a reset of its own",
                correlationId: flow.correlationId)
            return try await Self.start(flow: flow, selects: selects)
        }
        return try await Self.table(
            try await flow.interact(.recover(link, continuationToken: action.token)), flow: flow, selects: selects)
    }

    /// Where the start of a reset leads: `action: challenge` with the recovery methods. With
    /// `selects` and more than one email or SMS method, the user chooses; otherwise the first
    /// email method's `challenge` (else the first SMS method's) is followed at once, with an SMS
    /// method's `riskverify` hop, and the code state is returned. An answer with neither is
    /// ``NativeAuthError/isBrowserRequired``, with nothing sent.
    static func table(_ answer: V2Interaction, flow: FlowContext, selects: Bool) async throws(FlowError)
        -> ResetPasswordStartResult
    {
        guard case .challenge(let offer) = answer else { throw flow.unexpectedV2(answer) }
        if selects {
            let (offered, links) = try offer.codeMethods(purpose: "recovery", flow: flow)
            if offered.count > 1 {
                let state = ResetPasswordAuthMethodSelectionRequiredState(
                    core: StateCore(flow: flow, token: offer.token), authMethods: offered, methodLinks: links)
                return .authMethodSelectionRequired(state, methods: offered)
            }
        }
        guard let (method, link) = try flow.defaultCodeMethod(offer, purpose: "recovery") else {
            // MSAL for iOS answers a reset offering no email or SMS method with an error; the
            // browser can still reset the password with what the server offers there.
            throw FlowError(
                .browserRequired, correlationId: flow.correlationId,
                note: "The server offered no recovery method this SDK can send a code to.")
        }
        return try codeRequired(
            try await flow.challenge(link, token: offer.token, channel: method.channelTargetType), flow: flow)
    }

    /// The code state of a `verify` answer.
    private static func codeRequired(_ answer: V2Interaction, flow: FlowContext) throws(FlowError)
        -> ResetPasswordStartResult
    {
        guard case .verify(let verification) = answer, !verification.isPassword else {
            throw flow.unexpectedV2(answer)
        }
        let codeCore = verification.codeState(flow)
        return .codeRequired(
            ResetPasswordCodeRequiredState(codeCore: codeCore), sentTo: codeCore.sentTo,
            channelTargetType: codeCore.channel,
            codeLength: codeCore.codeLength)
    }

    /// Chooses a recovery method on a ``ResetPasswordAuthMethodSelectionRequiredState``: follows
    /// the method's `challenge` link with the state's token (and an SMS method's `riskverify` hop).
    func select(_ method: AuthMethod, action: StateCore.Action) async throws(FlowError) -> ResetPasswordStartResult {
        let link = try context.link(of: method, V2StepContext.challengeRelation, flow: action.flow)
        return try Self.codeRequired(
            try await action.flow.challenge(link, token: action.token, channel: method.channelTargetType),
            flow: action.flow)
    }

    /// Submits the code at the `verify` link; the answer asks for the new password at `update`.
    func submitCode(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> ResetPasswordRequiredState {
        let verify = try context.link("verify", flow: action.flow)
        let answer = try await action.flow.interact(.verifyCode(verify, continuationToken: action.token, code: code))
        guard case .update(let token, let update) = answer else { throw action.flow.unexpectedV2(answer) }
        return ResetPasswordRequiredState(core: StateCore(flow: action.flow, token: token), engine: .v2(update))
    }

    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore {
        try await action.flow.resendV2(context, token: action.token)
    }

    /// `PUT`s the new password on the `update` link, then polls until `state: continue`.
    ///
    /// `pending` holds the poll link while the update runs on the server: a wait interrupted by a
    /// cancellation, a network failure or too many polls leaves it set (and the state's token is the
    /// last poll's), and the next call polls on instead of sending the password again.
    func submitPassword(
        _ password: String, action: StateCore.Action, core: StateCore, pending: ResetPasswordPending
    ) async throws(FlowError) -> SignInAfterResetPasswordState {
        let flow = action.flow
        var token = action.token
        var answer = try await firstAnswer(password, token: token, flow: flow, pending: pending)
        for attempt in 0...Self.maximumPolls {
            switch answer {
            case .complete(let done):
                pending.poll.withLock { $0 = nil }
                return SignInAfterResetPasswordState(
                    core: StateCore(flow: flow, token: done), engine: .v2(V2StepContext(links: [:])))
            case .poll(let next, let poll):
                token = next
                core.update(token: token)
                pending.poll.withLock { $0 = poll }
                guard attempt < Self.maximumPolls else { break }
                let outcome = try await pollOnce(poll, token: token, flow: flow, pending: pending)
                flow.client.log(
                    .debug, "password reset polled", ["attempt": "\(attempt + 1)"], correlationId: flow.correlationId)
                do {
                    answer = try flow.interaction(outcome)
                } catch {
                    pending.poll.withLock { $0 = nil }
                    throw error
                }
            default:
                pending.poll.withLock { $0 = nil }
                throw flow.unexpectedV2(answer)
            }
        }
        throw FlowError(.passwordResetPending, correlationId: flow.correlationId, note: ResetPasswordFlow.waitNote)
    }

    /// The update's answer, or the pending poll when a wait is resumed. Its own function, so that
    /// the wait that follows is not repeated after both branches.
    private func firstAnswer(_ password: String, token: Secret, flow: FlowContext, pending: ResetPasswordPending)
        async throws(FlowError) -> V2Interaction
    {
        if let resumed = pending.poll.current {
            flow.client.log(.debug, "password reset: resuming the wait", correlationId: flow.correlationId)
            return .poll(token, resumed)
        }
        let update = try context.link("update", flow: flow)
        return try await flow.interact(.updatePassword(update, continuationToken: token, newPassword: Secret(password)))
    }

    /// One wait and poll. A refusal the SDK can read (a refused password, an expired token, the
    /// browser) ends the wait. No usable answer leaves it pending, and so does a refusal that says
    /// nothing the SDK knows (a 5xx, an unknown error): the state's token is then the last poll's,
    /// which only a poll can send, so submitting the password again could only be refused.
    private func pollOnce(_ poll: V2Poll, token: Secret, flow: FlowContext, pending: ResetPasswordPending)
        async throws(FlowError) -> V2Outcome
    {
        do {
            return try await flow.poll(poll, token: token, cancelledNote: ResetPasswordFlow.waitNote)
        } catch {
            switch error.details.kind {
            case .general, .unexpectedResponse, .network, .cancelled:
                var details = error.details
                details.resetPending = true
                throw FlowError(details: details)
            default:
                pending.poll.withLock { $0 = nil }
                throw error
            }
        }
    }
}
