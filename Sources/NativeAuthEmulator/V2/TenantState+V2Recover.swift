import Foundation
import NativeAuth

/// Inline password reset in Native Auth V2 (Docs/NativeAuthV2.md, "Inline password reset"): the
/// password method's `recover` link, offered by a sign-in (``EmulatorSettings/nativeAuthV2PasswordRecovery``),
/// starts a password reset inside that sign-in. Its answer is the one `resetpassword/start` gives,
/// `action: challenge` with the user's recovery methods; the reset then goes on at the same links as a
/// reset of its own, and ends with `state: continue`, whose token resumes authorization.
extension TenantState {
    /// `recover`, with the sign-in's `continuationToken`, while the sign-in offers the password
    /// method (chosen or among several) or asks for the password, a wrong one included.
    mutating func v2PasswordRecover(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.firstFactorOffered, .passwordRequested])
        guard let user = user(named: flow.username) else { throw .userNotFound }
        guard user.password != nil,
            Self.passwordMethodId(in: call.request.url, droppingLast: 1) == passwordMethodId(of: user)
        else { throw .unknownMethod }
        if user.requiresBrowser {
            discard(token)
            return Self.webFallbackAnswer
        }
        flow.code = nil
        flow.methodId = nil
        flow.stage = .recoveryOffered
        return challengeAnswer(
            token: store(flow, replacing: token, now: call.now), factor: .single, methods: recoveryMethods(of: user))
    }
}
