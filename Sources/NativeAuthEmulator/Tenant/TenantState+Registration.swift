import Foundation

/// Strong-authentication method registration during sign-in: `register/v1.0/introspect`,
/// `challenge` and `continue`. Unknown tokens are 55200, expired ones 55112.
extension TenantState {
    static let registrationExpiredToken = 55112

    private func registrationFlow(_ call: Call) throws(APIError) -> (token: String, flow: Flow) {
        try flow(
            for: call, kinds: [.registration], invalidCode: Self.flowInvalidToken,
            expiredCode: Self.registrationExpiredToken)
    }

    mutating func registerIntrospect(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try registrationFlow(call)
        try require(
            flow, at: [.registrationRequired, .registrationChallenged, .registrationPreverified],
            code: Self.flowInvalidToken)
        flow.stage = .registrationRequired
        flow.code = nil
        let newToken = store(flow, replacing: token, now: call.now)
        let method: JSONObject = [
            "id": "email",
            "challenge_type": "oob",
            "challenge_channel": "email",
            "login_hint": .string(Encoding.maskedLabel(flow.username)),
        ]
        return ["continuation_token": .string(newToken), "methods": .array([.object(method)])]
    }

    mutating func registerChallenge(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try registrationFlow(call)
        try require(
            flow, at: [.registrationRequired, .registrationChallenged, .registrationPreverified],
            code: Self.flowInvalidToken)
        let types = try challengeTypes(in: call, requireRedirect: false)
        let target = try required("challenge_target", in: call)
        let channel = call.form["challenge_channel"].flatMap { $0.isEmpty ? nil : $0 } ?? "email"
        guard types.contains("oob") else {
            discard(token)
            return Self.redirect("Registering a method needs the oob challenge type.")
        }
        switch channel {
        case "email":
            guard Self.isEmailAddress(target) else { throw .invalidContact("it is not an email address") }
        case "sms":
            let digits = target.hasPrefix("+") ? target.dropFirst() : Substring(target)
            guard digits.count >= 7, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else {
                throw .invalidContact("it is not a phone number in international format")
            }
        default:
            throw .invalidContact("the channel '\(channel)' is not supported")
        }
        guard !settings.blockedMethodIds.contains(target) else { throw .methodBlocked }
        guard let user = user(named: flow.username) else { throw .userNotFound }
        flow.registrationTarget = target
        flow.registrationChannel = channel
        let verified = [user.username] + user.mfaMethods.map(\.address)
        if verified.contains(where: { $0.lowercased() == target.lowercased() }) {
            flow.stage = .registrationPreverified
            flow.code = nil
            return [
                "continuation_token": .string(store(flow, replacing: token, now: call.now)),
                "challenge_type": "preverified",
            ]
        }
        flow.code = sendCode(to: target, purpose: "registration", now: call.now)
        flow.stage = .registrationChallenged
        var body: JSONObject = [
            "continuation_token": .string(store(flow, replacing: token, now: call.now)),
            "challenge_type": "oob",
            "binding_method": "prompt",
            "challenge_target": .string(target),
            "challenge_channel": .string(channel),
        ]
        if settings.includeOptionalFields {
            body["code_length"] = .integer(settings.codeLength)
            body["interval"] = 300
        }
        return body
    }

    mutating func registerContinue(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try registrationFlow(call)
        let grantType = try required("grant_type", in: call)
        switch grantType {
        case "oob":
            try require(flow, at: [.registrationChallenged], code: Self.flowInvalidToken)
            guard try required("oob", in: call) == flow.code else { throw .invalidCode }
        case "continuation_token":
            try require(flow, at: [.registrationPreverified], code: Self.flowInvalidToken)
        default:
            throw .unsupportedGrantType(grantType)
        }
        guard var user = user(named: flow.username) else { throw .userNotFound }
        let target = flow.registrationTarget ?? user.username
        let channel = flow.registrationChannel ?? "email"
        if !user.mfaMethods.contains(where: { $0.address.lowercased() == target.lowercased() }) {
            let id = "\(channel)-\(user.mfaMethods.count + 1)"
            user.mfaMethods.append(EmulatedAuthMethod(id: id, channel: channel, address: target))
        }
        user.requiresMethodRegistration = false
        users[user.username.lowercased()] = user
        flow.code = nil
        flow.stage = .completed
        return ["continuation_token": .string(store(flow, replacing: token, now: call.now))]
    }
}
