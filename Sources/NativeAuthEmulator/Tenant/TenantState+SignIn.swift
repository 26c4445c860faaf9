import Foundation

/// Sign-in: `oauth2/v2.0/initiate`, `challenge` and `introspect`, and what follows a first factor.
/// Unknown tokens are 55000, expired ones 552003.
extension TenantState {
    static let signInInvalidToken = 55000
    static let signInExpiredToken = 552003
    /// The `redirect_reason` for a user marked ``EmulatedUser/requiresBrowser``.
    static let browserRequiredReason = "This account must sign in through the browser."

    mutating func signInInitiate(_ call: Call) throws(APIError) -> JSONObject {
        let username = try required("username", in: call)
        let types = try challengeTypes(in: call)
        guard let user = user(named: username) else { throw .userNotFound }
        if user.requiresBrowser { return Self.redirect(Self.browserRequiredReason) }
        guard Self.usableSignInType(for: user, offered: types) != nil else {
            return Self.redirect("The client offered no challenge type this user can sign in with.")
        }
        let flow = Flow(
            kind: .signIn, username: user.username, stage: .initiated, capabilities: capabilities(in: call),
            offeredChallengeTypes: types)
        return ["continuation_token": .string(store(flow, replacing: nil, now: call.now))]
    }

    /// The first factor a user signs in with: the password when the client offers it and the user
    /// has one, else an email code; `nil` when the client offers neither usable type.
    static func usableSignInType(for user: EmulatedUser, offered: Set<String>) -> String? {
        if user.password != nil, offered.contains("password") { return "password" }
        if offered.contains("oob") { return "oob" }
        return nil
    }

    mutating func signInChallenge(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try flow(
            for: call, kinds: [.signIn], invalidCode: Self.signInInvalidToken, expiredCode: Self.signInExpiredToken)
        try require(
            flow, at: [.initiated, .passwordChallenged, .oobChallenged, .mfaRequired, .mfaChallenged],
            code: Self.signInInvalidToken)
        let types = try challengeTypes(in: call)
        guard let user = user(named: flow.username) else { throw .userNotFound }

        if user.requiresBrowser {
            discard(token)
            return Self.redirect(Self.browserRequiredReason)
        }
        if flow.stage == .mfaRequired || flow.stage == .mfaChallenged {
            return try mfaChallenge(call, token: token, flow: flow, user: user, types: types)
        }
        switch Self.usableSignInType(for: user, offered: types) {
        case "password":
            flow.stage = .passwordChallenged
            flow.code = nil
            let newToken = store(flow, replacing: token, now: call.now)
            return ["continuation_token": .string(newToken), "challenge_type": "password"]
        case "oob":
            flow.code = sendCode(to: user.username, purpose: "signIn", now: call.now)
            flow.stage = .oobChallenged
            let newToken = store(flow, replacing: token, now: call.now)
            return oobChallengeBody(continuationToken: newToken, channel: "email", address: user.username)
        default:
            discard(token)
            return Self.redirect("The client offered no challenge type this user can sign in with.")
        }
    }

    private mutating func mfaChallenge(
        _ call: Call, token: String, flow: Flow, user: EmulatedUser, types: Set<String>
    ) throws(APIError) -> JSONObject {
        guard types.contains("oob") else {
            discard(token)
            return Self.redirect("Multi-factor authentication needs a challenge type the client did not offer.")
        }
        let methods = mfaMethods(of: user)
        let method: EmulatedAuthMethod
        if let id = call.form["id"], !id.isEmpty {
            guard let chosen = methods.first(where: { $0.id == id }) else {
                throw .invalidParameter("id", "no authentication method has this id")
            }
            method = chosen
        } else {
            guard let first = methods.first else { throw .missingParameter("id") }
            method = first
        }
        guard !settings.blockedMethodIds.contains(method.id) else { throw .methodBlocked }
        var flow = flow
        flow.code = sendCode(to: method.address, purpose: "mfa", now: call.now)
        flow.methodId = method.id
        flow.stage = .mfaChallenged
        let newToken = store(flow, replacing: token, now: call.now)
        return oobChallengeBody(continuationToken: newToken, channel: method.channel, address: method.address)
    }

    mutating func signInIntrospect(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try flow(
            for: call, kinds: [.signIn], invalidCode: Self.signInInvalidToken, expiredCode: Self.signInExpiredToken)
        try require(flow, at: [.mfaRequired, .mfaChallenged], code: Self.signInInvalidToken)
        guard let user = user(named: flow.username) else { throw .userNotFound }
        flow.stage = .mfaRequired
        flow.code = nil
        flow.methodId = nil
        let newToken = store(flow, replacing: token, now: call.now)
        let methods: [JSON] = mfaMethods(of: user).map { method in
            .object([
                "id": .string(method.id),
                "challenge_type": "oob",
                "challenge_channel": .string(method.channel),
                "login_hint": .string(Encoding.maskedLabel(method.address)),
            ])
        }
        return ["continuation_token": .string(newToken), "methods": .array(methods)]
    }

    /// The methods a user can do MFA with.
    func mfaMethods(of user: EmulatedUser) -> [EmulatedAuthMethod] {
        user.mfaMethods
    }

    /// What follows a verified first factor (a password, an email code, or a finished sign-up or
    /// reset): method registration, MFA, or the tokens.
    mutating func afterFirstFactor(_ call: Call, token: String, flow: Flow) throws(APIError) -> JSONObject {
        guard let user = user(named: flow.username) else { throw .userNotFound }
        var flow = flow
        flow.code = nil
        let needsRegistration =
            user.requiresMethodRegistration || (settings.mfaRequiredForAll && user.mfaMethods.isEmpty)
        if needsRegistration {
            guard flow.capabilities.contains("registration_required") else {
                discard(token)
                return Self.redirect("The user must register a strong authentication method in the browser.")
            }
            flow.kind = .registration
            flow.stage = .registrationRequired
            throw .registrationRequired(continuationToken: store(flow, replacing: token, now: call.now))
        }
        if !user.mfaMethods.isEmpty || settings.mfaRequiredForAll {
            guard flow.capabilities.contains("mfa_required") else {
                discard(token)
                return Self.redirect("Multi-factor authentication is required and must be done in the browser.")
            }
            flow.kind = .signIn
            flow.stage = .mfaRequired
            throw .mfaRequired(continuationToken: store(flow, replacing: token, now: call.now))
        }
        discard(token)
        return try issueTokens(for: user, scopes: scopes(in: call), now: call.now)
    }
}
