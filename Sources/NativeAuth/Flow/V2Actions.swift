import AuthSupport
import Foundation

/// The actions every V2 journey shares, each a request and the reading of its answer
/// (``interaction(_:)``): start a journey, follow a method's `challenge` (with the `riskverify`
/// hop), submit at `verify`, resend, poll, and end the journey with the account.
extension FlowContext {
    /// The first V1 default scopes the V2 code exchange asks for, as V1's token requests do.
    static let v2DefaultScopes = ["openid", "profile", "offline_access"]

    /// Sends a V2 call through the client's wire edge (deadline, interceptors, logging of field
    /// names, cancellation), where a refusal, a browser request or an answer the engine cannot
    /// follow is turned into the error V1's would be; a server error is named by what the call
    /// asked (``FlowError/init(_:asked:correlationId:)``). An answer marks the running state's
    /// token as used.
    func v2(_ call: V2Call) async throws(FlowError) -> V2Outcome {
        let outcome: V2Outcome
        do {
            outcome = try await client.wire.send(call, builder: client.v2Builder, correlationId: correlationId)
        } catch {
            throw FlowError(error, asked: call.asked, correlationId: correlationId)
        }
        tokenUse?.withLock { $0 = true }
        return outcome
    }

    /// Sends `call` and reads what the server wants next.
    @inline(never)
    func interact(_ call: V2Call) async throws(FlowError) -> V2Interaction { try interaction(try await v2(call)) }

    /// Starts authorization, then the journey of `relation`, whose link `pick` takes from the
    /// start answer and `call` follows with the start's token. A start answer without the link
    /// is `missing`, or an unexpected answer.
    @inline(never)
    func startJourney(
        _ relation: String, link pick: (V2StartAnswer) -> String?, missing: FlowError? = nil,
        call: (V2Link, Secret) -> V2Call
    ) async throws(FlowError) -> V2Interaction {
        guard case .started(let answer) = try await v2(.startAuthorization) else {
            throw unexpectedV2(field: relation, value: "another answer")
        }
        if pick(answer) == nil, let missing { throw missing }
        return try await interact(call(try link(pick(answer), relation: relation), answer.continuationToken))
    }

    /// Follows a method's `challenge` link with `token`. A `riskverify` answer to an SMS method's
    /// challenge is followed once, with its own token and nothing the user types, as MSAL's
    /// clients follow it (Docs/NativeAuthV2.md, "Risk verification"); one for another method, or a
    /// second in a row, ends in an unexpected answer naming it.
    func challenge(_ link: V2Link, token: Secret, channel: ChannelType?) async throws(FlowError) -> V2Interaction {
        let answer = try await interact(.challenge(link, continuationToken: token))
        guard case .riskVerify(let riskToken, let riskLink) = answer else { return answer }
        guard channel == .sms else {
            throw riskVerificationRefused("The server asked for a risk verification of a method that is not SMS.")
        }
        client.log(.debug, "risk verification: following the riskverify link", correlationId: correlationId)
        let verified = try await interact(.riskVerify(riskLink, continuationToken: riskToken))
        if case .riskVerify = verified {
            throw riskVerificationRefused("The server asked for a second risk verification in a row.")
        }
        return verified
    }

    private func riskVerificationRefused(_ note: String) -> FlowError {
        client.log(.info, "risk verification not followed", ["reason": note], correlationId: correlationId)
        return unexpectedV2(field: "action", value: "riskverify", note: note)
    }

    /// The method a `challenge` is followed with when the user does not choose: the first email
    /// method, else the first SMS method, each with a `challenge` link; its checked link, or `nil`
    /// when the answer offers neither.
    func defaultCodeMethod(_ offer: V2Offer, purpose: String) throws(FlowError) -> (AuthMethod, V2Link)? {
        let (offered, links) = try offer.codeMethods(purpose: purpose, flow: self)
        var chosen: Int?
        for index in offered.indices {
            if case .email = offered[index].channelTargetType {
                chosen = index
                break
            }
            if chosen == nil, case .sms = offered[index].channelTargetType { chosen = index }
        }
        guard let chosen, let link = links.links[V2StepContext.challengeRelation(offered[chosen].id)] else {
            return nil
        }
        return (offered[chosen], link)
    }

    /// Asks for a new code at the state's `resend` link; the answer is the next code step, which
    /// keeps what the state knew of the flow (``V2StepContext/submitted``).
    func resendV2(_ context: V2StepContext, token: Secret) async throws(FlowError) -> CodeStateCore {
        let answer = try await interact(.resend(try context.link("resend", flow: self), continuationToken: token))
        guard case .verify(var verification) = answer, !verification.isPassword else { throw unexpectedV2(answer) }
        verification.context = verification.context.submitting(context.submitted)
        return verification.codeState(self)
    }

    /// Waits `poll.interval` on the configuration's clock and follows the `poll` link with `token`.
    /// A cancelled wait is ``ErrorKind/cancelled``, with nothing sent.
    func poll(_ poll: V2Poll, token: Secret, cancelledNote: String) async throws(FlowError) -> V2Outcome {
        do {
            try await client.configuration.clock.sleep(seconds: poll.interval)
        } catch {
            var details = NativeAuthErrorDetails(.cancelled, correlationId: correlationId, note: cancelledNote)
            details.resetPending = true
            throw FlowError(details: details)
        }
        return try await v2(.poll(poll.link, continuationToken: token))
    }

    /// Ends a V2 journey at `state: continue`: resumes authorization with the token, exchanges the
    /// code for tokens (the V1 default scopes and the flow's own), and keeps the account.
    func finishV2(_ token: Secret) async throws(FlowError) -> UserAccountResult {
        guard case .authorizationCode(let code) = try await v2(.resumeAuthorization(continuationToken: token)) else {
            throw unexpectedV2(field: "code", value: "another answer")
        }
        let exchanged = try await v2(.exchangeCode(code: code, scopes: Self.v2DefaultScopes + scopes, claims: claims))
        guard case .tokens(let answer) = exchanged else {
            throw unexpectedV2(field: "access_token", value: "another answer")
        }
        return await signedIn(answer)
    }

    /// Keeps the account of a token answer that ended the flow, V1's or V2's.
    func signedIn(_ answer: TokenAnswer) async -> UserAccountResult {
        let record = await client.accounts.signedIn(
            answer, username: username, scopes: scopes, correlationId: correlationId)
        return UserAccountResult(record: record, manager: client.accounts)
    }
}
