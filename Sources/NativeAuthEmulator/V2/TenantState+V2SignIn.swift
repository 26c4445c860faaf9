import Foundation
import NativeAuth

/// Native Auth V2's sign-in journey (Docs/NativeAuthV2Protocol.md, "Step 2" to "Link relations"): the
/// `sign_in` link, then each method's `challenge` (or `resend`) and `verify` links, until
/// `state: continue`. Each step spends its continuation token and hands out a new one; a refused
/// step (a wrong code or password, an unknown method) leaves the token usable.
extension TenantState {
    /// `signin/start` with `username` and `continuationToken`: the first factor, or `webFallbackRequired`.
    mutating func v2SignInStart(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.authorizationStarted])
        let username = try body.string("username")
        guard let user = user(named: username) else { throw .userNotFound }
        if user.requiresBrowser {
            discard(token)
            return Self.webFallbackAnswer
        }
        flow.username = user.username
        let offered = firstFactorMethods(of: user)
        if offered.count > 1 {
            flow.stage = .firstFactorOffered
            return challengeAnswer(
                token: store(flow, replacing: token, now: call.now), factor: .single, methods: offered)
        }
        let method = offered[0]
        flow.methodId = method.id
        if method.type == "password" {
            flow.stage = .passwordRequested
            return passwordVerifyAnswer(token: store(flow, replacing: token, now: call.now), method: method)
        }
        flow.stage = .firstFactorOffered
        return challengeAnswer(token: store(flow, replacing: token, now: call.now), factor: .single, methods: [method])
    }

    /// A method's `challenge` (or `resend`) link: sends a code to the method the path names.
    mutating func v2MethodChallenge(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(
            token, call: call,
            at: [.firstFactorOffered, .firstFactorCodeSent, .secondFactorOffered, .secondFactorCodeSent])
        guard let user = user(named: flow.username) else { throw .userNotFound }
        if user.requiresBrowser {
            discard(token)
            return Self.webFallbackAnswer
        }
        let first = flow.stage == .firstFactorOffered || flow.stage == .firstFactorCodeSent
        let methods = first ? firstFactorMethods(of: user) : secondFactorMethods(of: user)
        guard let path = V2MethodPath(call.request.url),
            let method = methods.first(where: { $0.id == path.id && $0.type == path.type })
        else { throw .unknownMethod }
        guard let address = method.address else {
            // The password method, chosen among several: its `verify` answer asks for the password.
            guard first, flow.stage == .firstFactorOffered else { throw .unknownMethod }
            flow.methodId = method.id
            flow.stage = .passwordRequested
            return passwordVerifyAnswer(token: store(flow, replacing: token, now: call.now), method: method)
        }
        if let answer = riskVerification(of: method, flow: &flow, token: token, now: call.now) { return answer }
        flow.riskVerificationPending = nil
        flow.code = sendCode(to: address, purpose: first ? "signIn" : "mfa", now: call.now)
        flow.methodId = method.id
        flow.stage = first ? .firstFactorCodeSent : .secondFactorCodeSent
        let newToken = store(flow, replacing: token, now: call.now)
        return codeVerifyAnswer(token: newToken, factor: first ? .single : .multi, method: method)
    }

    /// A method's `verify` link: `otp` for a code method, `password` for the password method.
    mutating func v2MethodVerify(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        let flow = try v2Flow(
            token, call: call, at: [.firstFactorCodeSent, .passwordRequested, .secondFactorCodeSent])
        guard let user = user(named: flow.username) else { throw .userNotFound }
        let method: V2Method? =
            flow.stage == .secondFactorCodeSent
            ? secondFactorMethods(of: user).first { $0.id == flow.methodId }
            : firstFactorMethods(of: user).first { $0.id == flow.methodId }
        guard let method, let path = V2MethodPath(call.request.url), path.id == method.id, path.type == method.type,
            method.id == flow.methodId
        else { throw .unknownMethod }
        if flow.stage == .passwordRequested {
            let password = try body.string("password")
            guard let expected = user.password, expected == password else { throw .invalidUserNameOrPassword }
        } else {
            guard try body.string("otp") == flow.code else { throw .invalidOneTimeCode }
        }
        if flow.stage == .secondFactorCodeSent { return finishJourney(call, token: token, flow: flow) }
        return afterV2FirstFactor(call, token: token, flow: flow, user: user)
    }

    /// After the first factor: a second-factor `challenge` (`multiFactor`) for a user with MFA
    /// methods; `action: enroll` for one who must register a method first
    /// (TenantState+V2Registration.swift); `state: continue` otherwise.
    private mutating func afterV2FirstFactor(
        _ call: Call, token: String, flow: Flow, user: EmulatedUser
    ) -> JSONObject {
        if user.requiresMethodRegistration || (settings.mfaRequiredForAll && user.mfaMethods.isEmpty) {
            var flow = flow
            flow.code = nil
            flow.methodId = nil
            flow.stage = .registrationOffered
            return enrollAnswer(
                token: store(flow, replacing: token, now: call.now), methods: registrationMethods(of: user))
        }
        guard !user.mfaMethods.isEmpty else { return finishJourney(call, token: token, flow: flow) }
        var flow = flow
        flow.code = nil
        flow.methodId = nil
        flow.stage = .secondFactorOffered
        let newToken = store(flow, replacing: token, now: call.now)
        return challengeAnswer(token: newToken, factor: .multi, methods: secondFactorMethods(of: user))
    }

    private mutating func finishJourney(_ call: Call, token: String, flow: Flow) -> JSONObject {
        var flow = flow
        flow.code = nil
        flow.stage = .journeyFinished
        return continueAnswer(token: store(flow, replacing: token, now: call.now))
    }

    /// The flow of a V2 continuation token at one of `stages`: `invalidContinuationToken` when it is
    /// unknown, spent, of another kind of flow, expired or at another step.
    func v2Flow(_ token: String, call: Call, at stages: Set<Flow.Stage>) throws(HALError) -> Flow {
        guard let flow = flows[token] else { throw .invalidContinuationToken("it is unknown or has already been used") }
        guard flow.kind == .authorization else {
            throw .invalidContinuationToken("it belongs to a \(flow.kind.rawValue) flow")
        }
        guard call.now < flow.expiresAt else { throw .expiredContinuationToken }
        guard stages.contains(flow.stage) else {
            throw .invalidContinuationToken("it does not allow this step (the flow is at \(flow.stage.rawValue))")
        }
        return flow
    }
}
