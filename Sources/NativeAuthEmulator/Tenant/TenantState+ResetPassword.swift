import Foundation

/// Self-service password reset: `resetpassword/v1.0/start`, `challenge`, `continue`, `submit` and
/// `poll_completion`. Unknown tokens are 55200, expired ones 552003.
extension TenantState {
    private func resetFlow(_ call: Call) throws(APIError) -> (token: String, flow: Flow) {
        try flow(
            for: call, kinds: [.resetPassword], invalidCode: Self.flowInvalidToken, expiredCode: Self.flowExpiredToken)
    }

    mutating func resetStart(_ call: Call) throws(APIError) -> JSONObject {
        let username = try required("username", in: call)
        let types = try challengeTypes(in: call)
        guard let user = user(named: username) else { throw .userNotFound }
        if user.requiresBrowser { return Self.redirect(Self.browserRequiredReason) }
        guard user.password != nil else { throw .noPassword }
        guard types.contains("oob") else {
            return Self.redirect("Password reset verifies the email address with a code; the client did not offer oob.")
        }
        let flow = Flow(
            kind: .resetPassword, username: user.username, stage: .started, capabilities: capabilities(in: call),
            offeredChallengeTypes: types)
        return ["continuation_token": .string(store(flow, replacing: nil, now: call.now))]
    }

    mutating func resetChallenge(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try resetFlow(call)
        try require(flow, at: [.started, .codeSent], code: Self.flowInvalidToken)
        let types = try challengeTypes(in: call)
        guard types.contains("oob") else {
            discard(token)
            return Self.redirect("Password reset verifies the email address with a code; the client did not offer oob.")
        }
        flow.code = sendCode(to: flow.username, purpose: "resetPassword", now: call.now)
        flow.stage = .codeSent
        let newToken = store(flow, replacing: token, now: call.now)
        return oobChallengeBody(continuationToken: newToken, channel: "email", address: flow.username)
    }

    mutating func resetContinue(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try resetFlow(call)
        let grantType = try required("grant_type", in: call)
        guard grantType == "oob" else { throw .unsupportedGrantType(grantType) }
        try require(flow, at: [.codeSent], code: Self.flowInvalidToken)
        guard try required("oob", in: call) == flow.code else { throw .invalidCode }
        flow.code = nil
        flow.stage = .verified
        var body: JSONObject = ["continuation_token": .string(store(flow, replacing: token, now: call.now))]
        if settings.includeOptionalFields {
            body["expires_in"] = .integer(Int(min(600, settings.continuationTokenLifetime).rounded(.down)))
        }
        return body
    }

    mutating func resetSubmit(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try resetFlow(call)
        try require(flow, at: [.verified, .failed], code: Self.flowInvalidToken)
        let newPassword = try required("new_password", in: call)
        guard let user = user(named: flow.username) else { throw .userNotFound }
        let previous = user.passwordHistory + (user.password.map { [$0] } ?? [])
        try checkPasswordPolicy(newPassword, username: user.username, previous: previous)
        flow.newPassword = newPassword
        flow.polls = 0
        flow.stage = .submitted
        return [
            "continuation_token": .string(store(flow, replacing: token, now: call.now)),
            "poll_interval": .integer(settings.resetPollInterval),
        ]
    }

    mutating func resetPollCompletion(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try resetFlow(call)
        try require(flow, at: [.submitted], code: Self.flowInvalidToken)
        guard var user = user(named: flow.username) else { throw .userNotFound }
        let status: String
        if flow.polls < settings.resetPollsBeforeCompletion {
            // Like the service, every poll takes the token `submit` returned: it stays valid
            // while the job runs.
            flow.polls += 1
            flows[token] = flow
            return ["status": "in_progress", "continuation_token": .string(token)]
        } else {
            switch settings.resetJobOutcome {
            case .succeed:
                if let old = user.password { user.passwordHistory.append(old) }
                user.password = flow.newPassword
                users[user.username.lowercased()] = user
                flow.stage = .completed
                status = "succeeded"
            case .fail:
                flow.stage = .failed
                status = "failed"
            }
            flow.newPassword = nil
        }
        return ["status": .string(status), "continuation_token": .string(store(flow, replacing: token, now: call.now))]
    }
}
