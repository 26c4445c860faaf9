import NativeAuth

/// Walks the user through every step sign-in can lead to, until they are signed in (the account
/// is returned) or the flow ends (`nil`, after saying why).
struct SignInSteps {
    /// How many wrong passwords the demo accepts before going back to the menu.
    static let passwordAttempts = 3

    /// Who is signing in, as typed.
    let username: String
    /// The scopes the sign-in that ends a password reset started from the password screen asks for.
    var scopes: [String] = []
    /// Continues in the browser after an error that says the browser is required, when the demo
    /// can; `nil` when it cannot.
    var continueInBrowser: ((any NativeAuthError) async -> UserAccountResult?)?

    /// Where a flow that cannot go on natively leads: to the browser when the server asks for it
    /// and the demo can open one, else back to the menu (`nil`).
    func ended(by error: some NativeAuthError) async -> UserAccountResult? {
        guard error.isBrowserRequired, let continueInBrowser else { return nil }
        return await continueInBrowser(error)
    }

    /// Continues from what ``NativeAuthClient/signIn(_:)`` returned.
    func continueFrom(_ start: SignInStartResult) async throws(EndOfInput) -> UserAccountResult? {
        switch start {
        case .codeRequired(let state, _, _, _):
            return try await enterCode(state)
        case .passwordRequired(let state):
            Terminal.say("The server asks for this account's password.")
            return try await enterPassword(state)
        case .completed(let account):
            return account
        case .awaitingMFA(let state, let methods):
            return try await chooseSecondFactor(state, methods: methods)
        case .strongAuthRegistrationRequired(let state, let methods):
            return try await registerMethod(state, methods: methods)
        case .authMethodSelectionRequired(let state, let methods):
            return try await chooseFirstFactor(state, methods: methods)
        @unknown default:
            Terminal.say("The server asked for a step this demo does not know; please sign in again.")
            return nil
        }
    }

    /// Asks which first factor to use, when the server offers several (native authentication V2).
    func chooseFirstFactor(_ state: AuthMethodSelectionRequiredState, methods: [AuthMethod])
        async throws(EndOfInput) -> UserAccountResult?
    {
        for _ in 1...Prompt.maximumTries {
            guard
                let method = try Prompt.choose(
                    "How do you want to sign in?", from: methods,
                    label: { $0.challengeType == "password" ? "The password" : Self.describe($0) })
            else {
                Terminal.say("Sign-in cancelled.")
                return nil
            }
            let chosen: SignInStartResult
            do {
                chosen = try await state.selectAuthMethod(method)
            } catch {
                Terminal.say("❌ " + ErrorMessage.of(error))
                if error.isStateStillUsable { continue }
                return await ended(by: error)
            }
            return try await continueFrom(chosen)
        }
        Terminal.say("Too many tries; sign-in cancelled.")
        return nil
    }

    /// Continues from what a code, a password or a second factor led to.
    func continueFrom(_ result: SignInResult) async throws(EndOfInput) -> UserAccountResult? {
        switch result {
        case .completed(let account):
            return account
        case .awaitingMFA(let state, let methods):
            return try await chooseSecondFactor(state, methods: methods)
        case .strongAuthRegistrationRequired(let state, let methods):
            return try await registerMethod(state, methods: methods)
        @unknown default:
            Terminal.say("The server asked for a step this demo does not know; please sign in again.")
            return nil
        }
    }

    // MARK: - First factor

    /// Asks for the emailed code until it is right; "r" sends a new one.
    func enterCode(_ state: SignInCodeRequiredState) async throws(EndOfInput) -> UserAccountResult? {
        guard let result = try await SharedSteps.enterCode(state, flow: "sign-in") else { return nil }
        return try await continueFrom(result)
    }

    /// Asks for the password until it is right, a few times at most; an empty answer is "Forgot
    /// your password?": a password reset for this user, started from the password state.
    func enterPassword(_ state: SignInPasswordRequiredState) async throws(EndOfInput) -> UserAccountResult? {
        for _ in 1...Self.passwordAttempts {
            guard let password = try Prompt.optionalPassword("Password (leave it empty if you forgot it)") else {
                Terminal.say("Let's reset the password of \(username).")
                let start: ResetPasswordStartResult
                do {
                    start = try await state.resetPassword(selectsAuthMethod: true)
                } catch {
                    Terminal.say("❌ " + ErrorMessage.of(error))
                    if error.isStateStillUsable { continue }
                    return await ended(by: error)
                }
                return try await ResetPasswordSteps.continueFrom(start, scopes: scopes, then: self)
            }
            let result: SignInResult
            do {
                result = try await state.submitPassword(password)
            } catch {
                Terminal.say("❌ " + ErrorMessage.of(error))
                if error.isStateStillUsable { continue }
                return await ended(by: error)
            }
            return try await continueFrom(result)
        }
        Terminal.say("Too many wrong passwords; back to the menu.")
        return nil
    }

    // MARK: - Multi-factor authentication

    /// Lets the user choose where the second-factor code goes, then asks for it.
    func chooseSecondFactor(_ state: AwaitingMFAState, methods: [AuthMethod]) async throws(EndOfInput)
        -> UserAccountResult?
    {
        Terminal.say("🔐 This account needs a second factor.")
        guard !methods.isEmpty else {
            Terminal.say("❌ The server offered no method for the second factor; sign in with the browser instead.")
            return nil
        }
        for _ in 1...Prompt.maximumTries {
            guard let method = try Prompt.choose("Where should the code go?", from: methods, label: Self.describe)
            else {
                Terminal.say("Sign-in cancelled.")
                return nil
            }
            let challenged: MFARequiredState
            do {
                challenged = try await state.requestChallenge(authMethod: method)
            } catch {
                Terminal.say("❌ " + ErrorMessage.of(error))
                if error.isStateStillUsable { continue }
                return await ended(by: error)
            }
            return try await enterSecondFactorCode(challenged, method: method)
        }
        Terminal.say("Too many tries; sign-in cancelled.")
        return nil
    }

    /// Asks for the second-factor code until it is right, ``Prompt/maximumTries`` answers at most;
    /// "r" sends a new one to the same method.
    func enterSecondFactorCode(_ first: MFARequiredState, method: AuthMethod) async throws(EndOfInput)
        -> UserAccountResult?
    {
        var state = first
        Terminal.say("A verification code was sent by \(state.channelTargetType) to \(state.sentTo).")
        for _ in 1...Prompt.maximumTries {
            switch try Prompt.code(sentTo: state.sentTo, codeLength: state.codeLength) {
            case .cancel:
                Terminal.say("Sign-in cancelled.")
                return nil
            case .resend:
                do {
                    state = try await state.requestChallenge(authMethod: method)
                    Terminal.say("A new code was sent to \(state.sentTo); the previous one no longer works.")
                } catch {
                    Terminal.say("❌ " + ErrorMessage.of(error))
                    guard error.isStateStillUsable else { return await ended(by: error) }
                }
            case .code(let code):
                let result: SignInResult
                do {
                    result = try await state.submitChallenge(code)
                } catch {
                    Terminal.say("❌ " + ErrorMessage.of(error))
                    if error.isStateStillUsable { continue }
                    return await ended(by: error)
                }
                return try await continueFrom(result)
            }
        }
        Terminal.say("Too many tries; sign-in cancelled.")
        return nil
    }

    // MARK: - Registering a strong authentication method

    /// Lets the user choose a kind of method and a contact to register, then verifies it.
    func registerMethod(_ state: RegisterStrongAuthState, methods: [AuthMethod]) async throws(EndOfInput)
        -> UserAccountResult?
    {
        Terminal.say("🛡  Before signing in, this account must register a strong authentication method.")
        guard !methods.isEmpty else {
            Terminal.say("❌ The server offered no method to register; sign in with the browser instead.")
            return nil
        }
        guard let method = try Prompt.choose("What would you like to register?", from: methods, label: Self.describe)
        else {
            Terminal.say("Sign-in cancelled.")
            return nil
        }
        for _ in 1...Prompt.maximumTries {
            let contact = try askContact(for: method)
            let result: RegisterStrongAuthChallengeResult
            do {
                result = try await state.challengeAuthMethod(authMethod: method, verificationContact: contact)
            } catch {
                Terminal.say("❌ " + ErrorMessage.of(error))
                if error.isStateStillUsable { continue }
                return await ended(by: error)
            }
            return try await continueRegistration(result, method: method, contact: contact)
        }
        Terminal.say("Too many tries; sign-in cancelled.")
        return nil
    }

    /// Continues from a registration challenge: a code to enter, or done when the contact was
    /// already verified.
    func continueRegistration(_ result: RegisterStrongAuthChallengeResult, method: AuthMethod, contact: String)
        async throws(EndOfInput) -> UserAccountResult?
    {
        switch result {
        case .completed(let account):
            Terminal.say("\(contact) was already verified, so it is registered at once.")
            return account
        case .verificationRequired(let state, let sentTo, _, let codeLength):
            return try await verifyRegistration(
                state, sentTo: sentTo, codeLength: codeLength, method: method, contact: contact)
        @unknown default:
            Terminal.say("The server asked for a step this demo does not know; please sign in again.")
            return nil
        }
    }

    /// Asks for the code sent to the contact being registered, ``Prompt/maximumTries`` answers at
    /// most; "r" sends a new one.
    func verifyRegistration(
        _ first: RegisterStrongAuthVerificationRequiredState, sentTo firstSentTo: String, codeLength: Int?,
        method: AuthMethod, contact: String
    ) async throws(EndOfInput) -> UserAccountResult? {
        var state = first
        var sentTo = firstSentTo
        var length = codeLength
        Terminal.say("A code was sent to \(sentTo) to check that it is yours.")
        for _ in 1...Prompt.maximumTries {
            switch try Prompt.code(sentTo: sentTo, codeLength: length) {
            case .cancel:
                Terminal.say("Sign-in cancelled.")
                return nil
            case .resend:
                let resent: RegisterStrongAuthChallengeResult
                do {
                    resent = try await state.challengeAuthMethod(authMethod: method, verificationContact: contact)
                } catch {
                    Terminal.say("❌ " + ErrorMessage.of(error))
                    guard error.isStateStillUsable else { return await ended(by: error) }
                    continue
                }
                switch resent {
                case .verificationRequired(let newState, let newSentTo, _, let newLength):
                    (state, sentTo, length) = (newState, newSentTo, newLength)
                    Terminal.say("A new code was sent to \(sentTo); the previous one no longer works.")
                default:
                    return try await continueRegistration(resent, method: method, contact: contact)
                }
            case .code(let code):
                let result: SignInResult
                do {
                    result = try await state.submitChallenge(code)
                } catch {
                    Terminal.say("❌ " + ErrorMessage.of(error))
                    if error.isStateStillUsable { continue }
                    return await ended(by: error)
                }
                Terminal.say("✅ \(contact) is registered.")
                return try await continueFrom(result)
            }
        }
        Terminal.say("Too many tries; sign-in cancelled.")
        return nil
    }

    // MARK: - Wording

    /// A method as the user sees it in a list, such as "email to a***e@ex***e.com".
    static func describe(_ method: AuthMethod) -> String {
        switch method.channelTargetType {
        case .email: "Email to \(method.loginHint)"
        case .sms: "Text message to \(method.loginHint)"
        case .other(let name): "\(name) to \(method.loginHint)"
        }
    }

    /// Asks for the contact to register, saying where the code will go: for an email method, the
    /// address typed (Enter: the one signed in with, already verified, so it registers at once).
    func askContact(for method: AuthMethod) throws(EndOfInput) -> String {
        let name = Self.contactName(of: method)
        guard method.channelTargetType == .email, EmailAddress.problem(with: username) == nil else {
            Terminal.say("The code to confirm it goes to the \(name) you type.")
            return try Prompt.text("\(name.capitalizedFirst) to register: ")
        }
        Terminal.say("The code to confirm it goes to the address you type. Press Enter to register \(username),")
        Terminal.say("the address you are signing in with: it is already verified, so no code is needed.")
        for _ in 1...Prompt.maximumTries {
            let answer = try Terminal.read("Email address to register [\(username)]: ")
            if answer.isEmpty { return username }
            guard let problem = EmailAddress.problem(with: answer) else { return answer }
            Terminal.say("   That does not look like an email address: \(problem).")
        }
        throw Prompt.gaveUp()
    }

    /// What the user types to register `method`.
    static func contactName(of method: AuthMethod) -> String {
        switch method.channelTargetType {
        case .email: "email address"
        case .sms: "phone number (international format, such as +15551234567)"
        case .other(let name): "\(name) contact"
        }
    }
}

extension String {
    /// The string with its first letter in upper case.
    var capitalizedFirst: String {
        guard let first else { return self }
        return first.uppercased() + dropFirst()
    }
}
