import Foundation

/// Sign-up: `signup/v1.0/start`, `challenge` and `continue`. Unknown tokens are 55200, expired
/// ones 552003.
extension TenantState {
    static let flowInvalidToken = 55200
    static let flowExpiredToken = 552003

    mutating func signUpStart(_ call: Call) throws(APIError) -> JSONObject {
        let username = try required("username", in: call)
        guard Self.isEmailAddress(username) else {
            throw .invalidParameter("username", "it is not an email address")
        }
        let types = try challengeTypes(in: call)
        guard user(named: username) == nil else { throw .userAlreadyExists }
        guard settings.signUpEnabled else { throw .signUpDisabled }
        var password: String?
        if let given = call.form["password"], !given.isEmpty {
            try checkPasswordPolicy(given, username: username, previous: [])
            password = given
        }
        var attributes: [String: String] = [:]
        if let json = call.form["attributes"] {
            attributes = try validatedAttributes(json)
        }
        guard types.contains("oob") else {
            return Self.redirect("Sign-up verifies the email address with a code; the client did not offer oob.")
        }
        var flow = Flow(
            kind: .signUp, username: username, stage: .started, capabilities: capabilities(in: call),
            offeredChallengeTypes: types)
        flow.password = password
        flow.attributes = attributes
        return ["continuation_token": .string(store(flow, replacing: nil, now: call.now))]
    }

    mutating func signUpChallenge(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try flow(
            for: call, kinds: [.signUp], invalidCode: Self.flowInvalidToken, expiredCode: Self.flowExpiredToken)
        try require(
            flow, at: [.started, .codeSent, .credentialRequired, .passwordChallenged], code: Self.flowInvalidToken)
        let types = try challengeTypes(in: call)
        if flow.stage == .credentialRequired || flow.stage == .passwordChallenged {
            guard types.contains("password") else {
                discard(token)
                return Self.redirect("A password is required and the client did not offer the password challenge.")
            }
            flow.stage = .passwordChallenged
            return [
                "continuation_token": .string(store(flow, replacing: token, now: call.now)),
                "challenge_type": "password",
            ]
        }
        guard types.contains("oob") else {
            discard(token)
            return Self.redirect("Sign-up verifies the email address with a code; the client did not offer oob.")
        }
        flow.code = sendCode(to: flow.username, purpose: "signUp", now: call.now)
        flow.stage = .codeSent
        let newToken = store(flow, replacing: token, now: call.now)
        return oobChallengeBody(continuationToken: newToken, channel: "email", address: flow.username)
    }

    mutating func signUpContinue(_ call: Call) throws(APIError) -> JSONObject {
        var (token, flow) = try flow(
            for: call, kinds: [.signUp], invalidCode: Self.flowInvalidToken, expiredCode: Self.flowExpiredToken)
        let grantType = try required("grant_type", in: call)
        switch grantType {
        case "oob":
            try require(flow, at: [.codeSent], code: Self.flowInvalidToken)
            guard try required("oob", in: call) == flow.code else { throw .invalidCode }
            flow.code = nil
        case "password":
            try require(flow, at: [.credentialRequired, .passwordChallenged], code: Self.flowInvalidToken)
            let password = try required("password", in: call)
            try checkPasswordPolicy(password, username: flow.username, previous: [])
            flow.password = password
        case "attributes":
            try require(flow, at: [.attributesRequired], code: Self.flowInvalidToken)
            let attributes = try validatedAttributes(try required("attributes", in: call))
            flow.attributes.merge(attributes) { _, new in new }
        default:
            throw .unsupportedGrantType(grantType)
        }
        return try nextSignUpStep(call, token: token, flow: flow)
    }

    /// After a verified step: ask for a password, then for missing attributes, then create the user.
    private mutating func nextSignUpStep(_ call: Call, token: String, flow: Flow) throws(APIError) -> JSONObject {
        var flow = flow
        if flow.password == nil, flow.offeredChallengeTypes.contains("password") {
            flow.stage = .credentialRequired
            throw .credentialRequired(continuationToken: store(flow, replacing: token, now: call.now))
        }
        let missing = settings.requiredSignUpAttributes.filter { attribute in
            attribute.required && (flow.attributes[attribute.name] ?? "").isEmpty
        }
        if !missing.isEmpty {
            flow.stage = .attributesRequired
            throw .attributesRequired(
                continuationToken: store(flow, replacing: token, now: call.now), attributes: missing)
        }
        guard user(named: flow.username) == nil else { throw .userAlreadyExists }
        users[flow.username.lowercased()] = EmulatedUser(
            username: flow.username, password: flow.password, attributes: flow.attributes)
        flow.stage = .completed
        flow.password = nil
        var body: JSONObject = ["continuation_token": .string(store(flow, replacing: token, now: call.now))]
        if settings.includeOptionalFields {
            body["expires_in"] = .integer(Int(settings.continuationTokenLifetime.rounded(.down)))
        }
        return body
    }

    /// Whether `value` looks like `local@domain.tld`.
    static func isEmailAddress(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !value.contains(where: \.isWhitespace) else { return false }
        let domain = parts[1]
        return domain.contains(".") && !domain.hasPrefix(".") && !domain.hasSuffix(".")
    }

    // MARK: - Attributes

    /// The attributes of an `attributes` form value (a JSON object), as strings. Values that are not
    /// strings, numbers or booleans, values of the wrong type for a configured attribute, and values
    /// that do not match its regex fail with `attribute_validation_failed`.
    func validatedAttributes(_ json: String) throws(APIError) -> [String: String] {
        let parsed: JSON
        do throws(JSONParser.Failure) {
            parsed = try JSONParser.parse(json)
        } catch {
            throw .invalidParameter("attributes", "it is not valid JSON (at byte \(error.offset))")
        }
        guard case .object(let object) = parsed else {
            throw .invalidParameter("attributes", "it is not a JSON object")
        }
        var attributes: [String: String] = [:]
        var invalid: [String] = []
        for (name, value) in object.pairs {
            let definition = settings.requiredSignUpAttributes.first { $0.name == name }
            guard let text = Self.attributeText(value, type: definition?.type ?? "string"),
                Self.matches(text, regex: definition?.regex)
            else {
                invalid.append(name)
                continue
            }
            attributes[name] = text
        }
        guard invalid.isEmpty else { throw .attributeValidationFailed(invalid) }
        return attributes
    }

    private static func attributeText(_ value: JSON, type: String) -> String? {
        switch (type.lowercased(), value) {
        case ("boolean", .bool(let flag)): return flag ? "true" : "false"
        case ("boolean", .string(let text)): return ["true", "false"].contains(text) ? text : nil
        case ("int", .integer(let number)), ("integer", .integer(let number)): return String(number)
        case ("int", .string(let text)), ("integer", .string(let text)): return Int(text).map(String.init)
        case ("boolean", _), ("int", _), ("integer", _): return nil
        case (_, .string(let text)): return text
        case (_, .integer(let number)): return String(number)
        case (_, .double(let number)): return String(number)
        case (_, .bool(let flag)): return flag ? "true" : "false"
        case (_, .null), (_, .array), (_, .object): return nil
        }
    }

    private static func matches(_ text: String, regex: String?) -> Bool {
        guard let regex else { return true }
        guard let expression = try? NSRegularExpression(pattern: "^(?:\(regex))$") else { return false }
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, range: range) != nil
    }

    // MARK: - Password policy

    /// Refuses a password that breaks the tenant's policy, with the matching `password_*` suberror.
    /// `previous` holds the passwords a reset must not reuse (current and history).
    func checkPasswordPolicy(_ password: String, username: String, previous: [String]) throws(APIError) {
        if password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .passwordPolicy("password_is_invalid", "The password contains characters that are not allowed.")
        }
        if password.count < settings.passwordMinLength {
            throw .passwordPolicy(
                "password_too_short",
                "The password is too short: use at least \(settings.passwordMinLength) characters.")
        }
        if password.count > settings.passwordMaxLength {
            throw .passwordPolicy(
                "password_too_long", "The password is too long: use at most \(settings.passwordMaxLength) characters.")
        }
        let banned = Set(settings.bannedPasswords.map { $0.lowercased() })
        if banned.contains(password.lowercased()) {
            throw .passwordPolicy("password_banned", "The password is too common and is not allowed.")
        }
        var kinds = 0
        if password.contains(where: \.isLowercase) { kinds += 1 }
        if password.contains(where: \.isUppercase) { kinds += 1 }
        if password.contains(where: \.isNumber) { kinds += 1 }
        if password.contains(where: { !$0.isLetter && !$0.isNumber }) { kinds += 1 }
        if kinds < 3 {
            throw .passwordPolicy(
                "password_too_weak",
                "The password is too weak: use three of lowercase letters, uppercase letters, digits and symbols.")
        }
        if previous.contains(password) {
            throw .passwordPolicy("password_recently_used", "The password has been used recently; choose another one.")
        }
    }
}
