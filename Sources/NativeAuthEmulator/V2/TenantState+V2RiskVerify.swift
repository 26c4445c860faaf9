import Foundation
import NativeAuth

/// Risk verification of an SMS method (Docs/NativeAuthV2.md, "Risk verification"), with
/// ``EmulatorSettings/nativeAuthV2SMSRiskVerification``: the method's first `challenge` in a flow
/// answers `action: riskverify` and the method's `riskverify` link; posting that link with the
/// answer's continuation token verifies the phone and answers as the challenge would have.
///
/// The answer's shape (an action, a continuation token, a `riskverify` link, nothing of its own)
/// is the one MSAL for iOS parses; its body (`continuationToken`), the link's path and what the
/// service checks are not in the sources, and are the emulator's own.
extension TenantState {
    /// The `riskverify` answer to the challenge of `method`, when the setting is on and the flow
    /// has not verified the method's phone yet: the flow, stored under a new token, then waits for
    /// the link. `nil` when the code can be sent at once; the caller then sends it and clears any
    /// verification still pending, so an earlier answer's link cannot send a code later.
    mutating func riskVerification(of method: V2Method, flow: inout Flow, token: String, now: Date) -> JSONObject? {
        guard settings.nativeAuthV2SMSRiskVerification, method.type == "sms",
            !flow.riskVerified.contains(method.id)
        else { return nil }
        flow.riskVerificationPending = method.id
        return [
            "state": "interactionRequired",
            "action": "riskverify",
            "continuationToken": .string(store(flow, replacing: token, now: now)),
            "_links": .object([
                "riskverify": href(V2MethodPath.path(type: method.type, id: method.id, action: "riskverify"))
            ]),
        ]
    }

    /// The `riskverify` link: `continuationToken` of the `riskverify` answer, for the method the
    /// path names. Verifies the phone, then answers as the method's `challenge` does: the code is
    /// sent and the answer is `action: verify`.
    mutating func v2MethodRiskVerify(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: Self.challengeStages)
        guard let path = V2MethodPath(call.request.url), path.type == "sms",
            let pending = flow.riskVerificationPending, pending == path.id
        else { throw .unknownMethod }
        flow.riskVerificationPending = nil
        flow.riskVerified.insert(pending)
        flows[token] = flow
        return Self.v2ResetStages.contains(flow.stage)
            ? try v2RecoveryChallenge(call, body: body) : try v2MethodChallenge(call, body: body)
    }

    /// The stages at which a method's `challenge` is taken: a sign-in's factors and a reset's
    /// recovery methods.
    static let challengeStages: Set<Flow.Stage> = [
        .firstFactorOffered, .firstFactorCodeSent, .secondFactorOffered, .secondFactorCodeSent, .recoveryOffered,
        .recoveryCodeSent,
    ]
}
