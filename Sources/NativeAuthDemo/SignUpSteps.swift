import NativeAuth

/// Walks a new user through every step sign-up can lead to (the emailed code, a password,
/// attributes), then signs them in. Each step returns the signed-in account, or `nil` after
/// saying why the flow ended.
enum SignUpSteps {
    /// Continues from what ``NativeAuthClient/signUp(_:)`` returned.
    ///
    /// - Parameter steps: the sign-in that follows, once the account exists.
    static func continueFrom(_ start: SignUpStartResult, scopes: [String], then steps: SignInSteps)
        async throws(EndOfInput) -> UserAccountResult?
    {
        switch start {
        case .codeRequired(let state, _, _, _):
            guard let result = try await SharedSteps.enterCode(state, flow: "sign-up") else { return nil }
            return try await continueFrom(result, scopes: scopes, then: steps)
        case .attributesInvalid(let names):
            Terminal.say("❌ The server refused these attributes: \(names.joined(separator: ", ")). Please start again.")
            return nil
        case .passwordRequired(let state):
            return try await continueFrom(SignUpResult.passwordRequired(state), scopes: scopes, then: steps)
        @unknown default:
            Terminal.say("The server asked for a step this demo does not know; please sign up again.")
            return nil
        }
    }

    /// Continues from what a code, a password or attributes led to.
    static func continueFrom(_ result: SignUpResult, scopes: [String], then steps: SignInSteps)
        async throws(EndOfInput) -> UserAccountResult?
    {
        switch result {
        case .completed(let state):
            Terminal.say("✅ Account created.")
            return try await SharedSteps.signIn(after: state, scopes: scopes, steps: steps)
        case .passwordRequired(let state):
            Terminal.say("The server asks you to choose a password.")
            let next = try await SharedSteps.choosePassword("Password", flow: "sign-up", submit: state.submitPassword)
            guard let next else { return nil }
            return try await continueFrom(next, scopes: scopes, then: steps)
        case .attributesRequired(let attributes, let state):
            return try await enterAttributes(attributes, state: state, scopes: scopes, then: steps)
        case .codeRequired(let state, _, _, _):
            guard let result = try await SharedSteps.enterCode(state, flow: "sign-up") else { return nil }
            return try await continueFrom(result, scopes: scopes, then: steps)
        @unknown default:
            Terminal.say("The server asked for a step this demo does not know; please sign up again.")
            return nil
        }
    }

    /// Asks for each attribute the server wants; when some values are refused, asks for those again.
    static func enterAttributes(
        _ required: [RequiredAttribute], state: SignUpAttributesRequiredState, scopes: [String],
        then steps: SignInSteps
    ) async throws(EndOfInput) -> UserAccountResult? {
        Terminal.say("The server needs a few details about you.")
        var values = UserAttributes()
        var asking = required
        for _ in 1...Prompt.maximumTries {
            for attribute in asking {
                values[attribute.name] = try value(of: attribute)
            }
            let result: SignUpResult
            do {
                result = try await state.submitAttributes(values)
            } catch {
                Terminal.say("❌ " + ErrorMessage.of(error))
                guard error.isStateStillUsable else { return nil }
                let refused = required.filter { error.invalidAttributes.contains($0.name) }
                asking = refused.isEmpty ? required : refused
                continue
            }
            return try await continueFrom(result, scopes: scopes, then: steps)
        }
        Terminal.say("Too many tries; sign-up cancelled.")
        return nil
    }

    /// Asks for one attribute by name, showing the pattern it must match; `nil` skips an optional one.
    static func value(of attribute: RequiredAttribute) throws(EndOfInput) -> UserAttributeValue? {
        var question = attribute.name
        if let regex = attribute.regex { question += " (\(AttributeRule.prompt(regex)))" }
        if !attribute.isRequired { question += " (optional, Enter to skip)" }
        for _ in 1...Prompt.maximumTries {
            let answer = try Terminal.read(question + ": ")
            if answer.isEmpty {
                if !attribute.isRequired { return nil }
                Terminal.say("   \(attribute.name) is required (Ctrl-D quits).")
                continue
            }
            switch attribute.type.lowercased() {
            case "boolean":
                switch answer.lowercased() {
                case "y", "yes", "true": return .bool(true)
                case "n", "no", "false": return .bool(false)
                default: Terminal.say("   Please answer yes or no.")
                }
            case "int", "integer":
                if let number = Int(answer) { return .int(number) }
                Terminal.say("   Please enter a whole number.")
            default:
                return .string(answer)
            }
        }
        throw Prompt.gaveUp()
    }
}

/// Words for the patterns a tenant checks sign-up attributes against, so a prompt says what to type.
enum AttributeRule {
    /// Patterns with a plain description: the two-letter country code of the demo's tenant.
    static let known = ["[A-Z]{2}": "two capital letters, such as GB", "^[A-Z]{2}$": "two capital letters, such as GB"]

    /// `regex` in words when it is a known one (`two capital letters, such as GB`), else `must match …`.
    static func describe(_ regex: String) -> String {
        known[regex] ?? "must match \(regex)"
    }

    /// What a prompt shows: the words and the pattern (`two capital letters, such as GB; must match
    /// [A-Z]{2}`), or the pattern alone.
    static func prompt(_ regex: String) -> String {
        known[regex].map { "\($0); must match \(regex)" } ?? "must match \(regex)"
    }
}
