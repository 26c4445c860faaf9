import NativeAuth

/// The menu actions for new users and forgotten passwords.
extension DemoApp {
    /// Signs a new user up: the password can be given now or when the server asks for it; then
    /// the emailed code, the attributes the tenant requires, and sign-in.
    func signUp() async throws(EndOfInput) {
        var username = try Prompt.email("Email address: ")
        for _ in 1...Prompt.maximumTries {
            let password = try Prompt.optionalPassword("Password (empty: the server asks for it later)")
            let start: SignUpStartResult
            do {
                start = try await client.signUp(SignUpParameters(username: username, password: password))
            } catch {
                Terminal.say("❌ " + ErrorMessage.of(error))
                guard error.isStateStillUsable else { return }
                if error.isInvalidUsername { username = try Prompt.email("Email address: ") }
                continue
            }
            finishSignIn(try await SignUpSteps.continueFrom(start, scopes: scopes, then: signInSteps(for: username)))
            return
        }
        Terminal.say("Too many tries; sign-up cancelled.")
    }

    /// Resets a forgotten password with a code sent by email (or, over V2, to a method the user
    /// chooses), then signs the user in.
    func resetPassword() async throws(EndOfInput) {
        let username = try Prompt.text("Email address: ")
        var parameters = ResetPasswordParameters(username: username)
        parameters.selectsAuthMethod = client.configuration.protocolVersion == .v2
        let start: ResetPasswordStartResult
        do {
            start = try await client.resetPassword(parameters)
        } catch {
            Terminal.say("❌ " + ErrorMessage.of(error))
            return
        }
        finishSignIn(
            try await ResetPasswordSteps.continueFrom(start, scopes: scopes, then: signInSteps(for: username)))
    }
}
