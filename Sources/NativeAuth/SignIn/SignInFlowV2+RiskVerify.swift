import Foundation

/// Risk verification (Docs/NativeAuthV2.md, "Risk verification"): the service may answer the
/// `challenge` of an SMS method with `action: riskverify` and a `riskverify` link before it sends
/// the code. MSAL's clients follow that link themselves, with the continuation token and nothing
/// the user types, and expect the code to be sent then; so does the SDK, once. What they do not
/// follow ends in a typed error, as in MSAL: a risk verification asked for another method than
/// SMS, or asked again right after one.
extension SignInFlowV2 {
    /// `outcome`, the answer to the `challenge` of a method on `channel`, with a `riskverify` hop
    /// followed: the answer to that hop, which goes on as the challenge's would have.
    static func afterChallenge(_ outcome: V2Outcome, channel: ChannelType?, flow: FlowContext)
        async throws(FlowError) -> V2Outcome
    {
        guard case .interaction(let envelope) = outcome, envelope.action == .riskVerify else { return outcome }
        guard channel == .sms else {
            throw riskVerificationRefused(
                flow, note: "The server asked for a risk verification of a method that is not SMS.")
        }
        guard let token = envelope.continuationToken else {
            throw flow.unexpectedV2(field: "continuationToken", value: "none")
        }
        let link = try flow.link(envelope.href("riskverify"), relation: "riskverify")
        flow.client.log(.debug, "risk verification: following the riskverify link", correlationId: flow.correlationId)
        let verified = try await flow.v2(.riskVerify(link, continuationToken: token))
        if case .interaction(let again) = verified, again.action == .riskVerify {
            throw riskVerificationRefused(flow, note: "The server asked for a second risk verification in a row.")
        }
        return verified
    }

    /// A `riskverify` answer the SDK does not follow: an unexpected answer naming the action.
    private static func riskVerificationRefused(_ flow: FlowContext, note: String) -> FlowError {
        flow.client.log(.info, "risk verification not followed", ["reason": note], correlationId: flow.correlationId)
        return FlowError(
            details: NativeAuthErrorDetails(
                .unexpectedResponse, correlationId: flow.correlationId,
                unexpected: UnexpectedAnswer(problem: .unknownValue(field: "action", value: "riskverify")), note: note))
    }
}
