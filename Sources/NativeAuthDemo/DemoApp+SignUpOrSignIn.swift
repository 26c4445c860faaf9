import NativeAuth

extension SignUpOrSignInCodeRequiredState: CodeRequiredStep {}

/// The menu action for "sign in, or sign up if the address is new".
extension DemoApp {
    /// Sends a code whether the address is new or known; the same code screen signs the user in,
    /// creating the account first when the address was new.
    func signUpOrSignIn() async throws(EndOfInput) {
        let username = try Prompt.email("Email address: ")
        let startedOn = client
        let start: SignUpOrSignInStartResult
        do {
            start = try await startedOn.signUpOrSignIn(SignUpOrSignInParameters(username: username, scopes: scopes))
        } catch  where error.isBrowserRequired {
            finishSignIn(await continueInBrowser(after: error, username: username, startedOn: startedOn))
            return
        } catch {
            Terminal.say("❌ " + ErrorMessage.of(error))
            return
        }
        let steps = signInSteps(for: username)
        switch start {
        case .codeRequired(let state, _, _, _):
            Terminal.say(
                state.isNewUser ? "📝 \(username) is new here: the code creates the account." : "👋 Welcome back.")
            guard let result = try await SharedSteps.enterCode(state, flow: state.isNewUser ? "sign-up" : "sign-in")
            else { return }
            finishSignIn(try await continueFrom(result, steps: steps))
        case .passwordRequired(let state):
            Terminal.say("This account signs in with a password.")
            finishSignIn(try await steps.enterPassword(state))
        case .attributesInvalid(let names):
            Terminal.say("❌ The server refused these attributes: \(names.joined(separator: ", ")).")
        case .newUserPasswordRequired(let state):
            Terminal.say("📝 \(username) is new here.")
            finishSignIn(
                try await SignUpSteps.continueFrom(SignUpResult.passwordRequired(state), scopes: scopes, then: steps))
        @unknown default:
            Terminal.say("The server asked for a step this demo does not know; please start again.")
        }
    }

    /// Continues from what the accepted code led to.
    private func continueFrom(_ result: SignUpOrSignInResult, steps: SignInSteps) async throws(EndOfInput)
        -> UserAccountResult?
    {
        switch result {
        case .completed(let account, let accountCreated):
            if accountCreated { Terminal.say("✅ Account created.") }
            return account
        case .awaitingMFA(let state, let methods):
            return try await steps.continueFrom(SignInResult.awaitingMFA(state, methods: methods))
        case .strongAuthRegistrationRequired(let state, let methods):
            return try await steps.continueFrom(SignInResult.strongAuthRegistrationRequired(state, methods: methods))
        case .newUserPasswordRequired(let state):
            return try await SignUpSteps.continueFrom(SignUpResult.passwordRequired(state), scopes: scopes, then: steps)
        case .newUserAttributesRequired(let attributes, let state):
            return try await SignUpSteps.continueFrom(
                SignUpResult.attributesRequired(attributes, state), scopes: scopes, then: steps)
        @unknown default:
            Terminal.say("The server asked for a step this demo does not know; please start again.")
            return nil
        }
    }
}
