import Foundation
import NativeAuth

/// Native Auth V2's password-reset journey (Docs/NativeAuthV2.md, "Using V2"; Docs/NativeAuthV2Protocol.md,
/// "Step 2" to "Link relations"): the `reset_password` link, a recovery method's `challenge` (or `resend`) and
/// `verify` links (the email method's, or an SMS method's with
/// ``EmulatorSettings/nativeAuthV2RecoveryMethods``), the password method's `update` link (`PUT`), then its `poll` link until
/// `state: continue`. Every step spends its continuation token and hands out a new one, polls
/// included; a refused step (a wrong code, a password the policy refuses) leaves the token usable.
extension TenantState {
    /// The stages of a V2 reset: a method challenge or verify whose token is at one of them is the
    /// reset's, not the sign-in's.
    static let v2ResetStages: Set<Flow.Stage> = [
        .recoveryOffered, .recoveryCodeSent, .newPasswordRequested, .passwordUpdating,
    ]

    /// The answer of a reset request, or `nil` when `call` is a method challenge or verify of
    /// another journey (the sign-in's handlers answer it).
    mutating func v2ResetPasswordAnswer(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject? {
        switch call.endpoint {
        case .v2ResetPasswordStart: return try v2ResetPasswordStart(call, body: body)
        case .v2PasswordUpdate: return try v2PasswordUpdate(call, body: body)
        case .v2PasswordPollUpdate: return try v2PasswordPoll(call, body: body)
        case .v2PasswordRecover: return try v2PasswordRecover(call, body: body)
        case .v2MethodChallenge, .v2MethodVerify:
            guard case .string(let token)? = body.object["continuationToken"],
                let stage = flows[token]?.stage, Self.v2ResetStages.contains(stage)
            else { return nil }
            return call.endpoint == .v2MethodChallenge
                ? try v2RecoveryChallenge(call, body: body) : try v2RecoveryVerify(call, body: body)
        default: return nil
        }
    }

    /// `resetpassword/start` with `username` and `continuationToken`: the user's recovery methods
    /// (`action: challenge`, `singleFactor`), or `webFallbackRequired` for a browser-only user.
    mutating func v2ResetPasswordStart(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.authorizationStarted])
        let username = try body.string("username")
        guard let user = user(named: username) else { throw .userNotFound }
        if user.requiresBrowser {
            discard(token)
            return Self.webFallbackAnswer
        }
        guard user.password != nil else { throw .userDoesNotHavePassword }
        let methods = recoveryMethods(of: user)
        flow.username = user.username
        flow.methodId = nil
        flow.stage = .recoveryOffered
        return challengeAnswer(token: store(flow, replacing: token, now: call.now), factor: .single, methods: methods)
    }

    /// A recovery method's `challenge` link in a reset, or the `resend` link of the one a code was
    /// sent to: sends a code to the method's address.
    mutating func v2RecoveryChallenge(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.recoveryOffered, .recoveryCodeSent])
        guard let user = user(named: flow.username) else { throw .userNotFound }
        guard let path = V2MethodPath(call.request.url),
            let method = recoveryMethods(of: user).first(where: { $0.id == path.id && $0.type == path.type }),
            flow.stage == .recoveryOffered || method.id == flow.methodId,
            let address = method.address
        else { throw .unknownMethod }
        if let answer = riskVerification(of: method, flow: &flow, token: token, now: call.now) { return answer }
        flow.riskVerificationPending = nil
        flow.methodId = method.id
        flow.code = sendCode(to: address, purpose: "resetPassword", now: call.now)
        flow.stage = .recoveryCodeSent
        return codeVerifyAnswer(token: store(flow, replacing: token, now: call.now), factor: .single, method: method)
    }

    /// The `verify` link of the recovery method a code was sent to: `otp`; then `action: update`
    /// with the password method's `update` link.
    private mutating func v2RecoveryVerify(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.recoveryCodeSent])
        guard let user = user(named: flow.username) else { throw .userNotFound }
        guard let path = V2MethodPath(call.request.url), path.id == flow.methodId,
            recoveryMethods(of: user).contains(where: { $0.id == path.id && $0.type == path.type })
        else { throw .unknownMethod }
        guard try body.string("otp") == flow.code else { throw .invalidOneTimeCode }
        flow.code = nil
        flow.stage = .newPasswordRequested
        let password = passwordMethodId(of: user)
        flow.methodId = password
        return passwordAnswer(
            action: "update", token: store(flow, replacing: token, now: call.now), methodId: password,
            link: ("update", passwordPath(password)))
    }

    /// `PUT` on the password method's `update` link: `newPassword`, checked against the tenant's
    /// policy (the V1 reset's), then `action: poll` with the `poll` link and `pollInterval`.
    private mutating func v2PasswordUpdate(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.newPasswordRequested])
        guard let user = user(named: flow.username) else { throw .userNotFound }
        let password = passwordMethodId(of: user)
        guard Self.passwordMethodId(in: call.request.url, droppingLast: 0) == password else { throw .unknownMethod }
        let newPassword = try body.string("newPassword")
        do throws(APIError) {
            try checkPasswordPolicy(
                newPassword, username: user.username,
                previous: user.passwordHistory + (user.password.map { [$0] } ?? []))
        } catch {
            throw .resetPasswordPolicy(error)
        }
        flow.newPassword = newPassword
        flow.polls = 0
        flow.stage = .passwordUpdating
        return pollAnswer(token: store(flow, replacing: token, now: call.now), methodId: password)
    }

    /// The `poll` link: `action: poll` again while the update runs
    /// (``EmulatorSettings/resetPollsBeforeCompletion`` polls), then the password is changed and the
    /// answer is `state: continue`.
    private mutating func v2PasswordPoll(_ call: Call, body: V2RequestBody) throws(HALError) -> JSONObject {
        let token = try body.string("continuationToken")
        var flow = try v2Flow(token, call: call, at: [.passwordUpdating])
        guard var user = user(named: flow.username) else { throw .userNotFound }
        let password = passwordMethodId(of: user)
        guard Self.passwordMethodId(in: call.request.url, droppingLast: 1) == password else { throw .unknownMethod }
        if flow.polls < settings.resetPollsBeforeCompletion {
            flow.polls += 1
            return pollAnswer(token: store(flow, replacing: token, now: call.now), methodId: password)
        }
        if let old = user.password { user.passwordHistory.append(old) }
        user.password = flow.newPassword
        users[user.username.lowercased()] = user
        flow.newPassword = nil
        flow.methodId = nil
        flow.stage = .journeyFinished
        return continueAnswer(token: store(flow, replacing: token, now: call.now))
    }

    // MARK: - Methods and answers

    /// The user's email method, with the id sign-in gives it.
    func recoveryMethod(of user: EmulatedUser) -> V2Method {
        let key = "\(environment.tenantId):\(user.username.lowercased())"
        return V2Method(id: Encoding.stableUUID("v2-email:\(key)"), type: "email", address: user.username)
    }

    /// The methods a reset offers `user` (``EmulatorSettings/nativeAuthV2RecoveryMethods``): the
    /// email method, the user's SMS methods, or both; the email method when the user has no SMS
    /// method.
    func recoveryMethods(of user: EmulatedUser) -> [V2Method] {
        let sms = secondFactorMethods(of: user).filter { $0.type == "sms" }
        switch settings.nativeAuthV2RecoveryMethods {
        case .email: return [recoveryMethod(of: user)]
        case .emailAndSMS: return [recoveryMethod(of: user)] + sms
        case .sms: return sms.isEmpty ? [recoveryMethod(of: user)] : sms
        }
    }

    /// The id of the user's password method, the one sign-in gives it.
    func passwordMethodId(of user: EmulatedUser) -> String {
        Encoding.stableUUID("v2-password:\(environment.tenantId):\(user.username.lowercased())")
    }

    /// `api/v2.0/auth/methods/password/{id}`.
    private func passwordPath(_ id: String) -> String {
        "api/v2.0/auth/methods/password/\(V2MethodPath.segment(id))"
    }

    /// The `{id}` segment of a password method path, after dropping `count` trailing segments.
    static func passwordMethodId(in url: URL, droppingLast count: Int) -> String? {
        guard let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath else {
            return nil
        }
        return path.split(separator: "/").dropLast(count).last.flatMap { String($0).removingPercentEncoding }
    }

    /// An answer about the password method: `action`, the method at the top level (`id`,
    /// `type: password`, an empty `payload`) and one link.
    private func passwordAnswer(
        action: String, token: String, methodId: String, link: (relation: String, path: String),
        pollInterval: Int? = nil
    ) -> JSONObject {
        var answer: JSONObject = [
            "state": "interactionRequired",
            "action": .string(action),
            "continuationToken": .string(token),
            "id": .string(methodId),
            "type": "password",
            "payload": .object(JSONObject()),
            "_links": .object([link.relation: href(link.path)]),
        ]
        if let pollInterval { answer["pollInterval"] = .integer(pollInterval) }
        return answer
    }

    /// `action: poll`: the `poll` link and `pollInterval`, in milliseconds (the V1 reset's
    /// ``EmulatorSettings/resetPollInterval`` seconds).
    private func pollAnswer(token: String, methodId: String) -> JSONObject {
        passwordAnswer(
            action: "poll", token: token, methodId: methodId, link: ("poll", passwordPath(methodId) + "/pollUpdate"),
            pollInterval: max(0, settings.resetPollInterval) * 1_000)
    }
}

extension HALError {
    /// A user with no password (an email-code account) has none to reset.
    static let userDoesNotHavePassword = HALError(
        "invalidRequest", inner: "userDoesNotHavePassword", aadsts: 500222,
        "The user account does not have a password, so it cannot be reset.")

    /// A new password the tenant's policy refuses: `invalidRequest` with the violation, in its V2
    /// camelCase spelling, as `innerError.code` (`password_too_weak` becomes `passwordTooWeak`).
    static func resetPasswordPolicy(_ error: APIError) -> HALError {
        HALError(
            "invalidRequest", inner: camelCase(error.suberror ?? "password_is_invalid"), aadsts: 120002, error.message)
    }
}
