import NativeAuth

/// Walks the user through a password reset (the emailed code, then the new password), then signs
/// them in. Returns the signed-in account, or `nil` after saying why the flow ended.
enum ResetPasswordSteps {
    /// Continues from what ``NativeAuthClient/resetPassword(_:)`` returned.
    ///
    /// - Parameter steps: the sign-in that follows, once the password is changed.
    static func continueFrom(_ start: ResetPasswordStartResult, scopes: [String], then steps: SignInSteps)
        async throws(EndOfInput) -> UserAccountResult?
    {
        let codeState: ResetPasswordCodeRequiredState
        switch start {
        case .codeRequired(let state, _, _, _):
            codeState = state
        case .authMethodSelectionRequired(let state, let methods):
            guard let chosen = try await chooseRecoveryMethod(state, methods: methods) else { return nil }
            return try await continueFrom(chosen, scopes: scopes, then: steps)
        @unknown default:
            Terminal.say("The server asked for a step this demo does not know; please start again.")
            return nil
        }
        guard let passwordState = try await SharedSteps.enterCode(codeState, flow: "password reset") else {
            return nil
        }
        let changed = try await SharedSteps.choosePassword("New password", flow: "password reset") {
            password throws(PasswordRequiredError) in
            Terminal.say("Sending the new password; changing it takes the server a few seconds…")
            return try await passwordState.submitPassword(password)
        }
        guard let changed else { return nil }
        Terminal.say("✅ Password changed.")
        return try await SharedSteps.signIn(after: changed, scopes: scopes, steps: steps)
    }

    /// Asks where the code goes, when the server offers several recovery methods (native
    /// authentication V2, with ``ResetPasswordParameters/selectsAuthMethod``).
    static func chooseRecoveryMethod(_ state: ResetPasswordAuthMethodSelectionRequiredState, methods: [AuthMethod])
        async throws(EndOfInput) -> ResetPasswordStartResult?
    {
        for _ in 1...Prompt.maximumTries {
            guard
                let method = try Prompt.choose(
                    "Where should the code go?", from: methods, label: { SignInSteps.describe($0) })
            else {
                Terminal.say("Password reset cancelled.")
                return nil
            }
            do {
                return try await state.selectAuthMethod(method)
            } catch {
                Terminal.say("❌ " + ErrorMessage.of(error))
                if error.isStateStillUsable { continue }
                return nil
            }
        }
        Terminal.say("Too many tries; password reset cancelled.")
        return nil
    }
}
