import NativeAuth

/// A state that waits for an emailed code. Sign-in, sign-up and password reset each have one,
/// with the same shape; only what an accepted code leads to (`Next`) differs.
protocol CodeRequiredStep: Sendable {
    associatedtype Next
    var sentTo: String { get }
    var channelTargetType: ChannelType { get }
    var codeLength: Int? { get }
    func submitCode(_ code: String) async throws(VerifyCodeError) -> Next
    func resendCode() async throws(ResendCodeError) -> Self
}

extension SignInCodeRequiredState: CodeRequiredStep {}
extension SignUpCodeRequiredState: CodeRequiredStep {}
extension ResetPasswordCodeRequiredState: CodeRequiredStep {}

/// The last state of a sign-up or a password reset: one request signs the user in.
protocol SignInAfterFlowState: Sendable {
    associatedtype Failure: NativeAuthError
    func signIn(scopes: [String]) async throws(Failure) -> SignInResult
}

extension SignInAfterSignUpState: SignInAfterFlowState {}
extension SignInAfterResetPasswordState: SignInAfterFlowState {}

/// The steps that sign-in, sign-up and password reset share.
enum SharedSteps {
    /// Asks for the emailed code until the server accepts it, ``Prompt/maximumTries`` answers at
    /// most; "r" sends a new one.
    ///
    /// - Parameter flow: the flow's name in lower case, such as "sign-up", for the messages.
    /// - Returns: what the accepted code led to, or `nil` when the user cancelled or the flow ended.
    static func enterCode<State: CodeRequiredStep>(_ first: State, flow: String) async throws(EndOfInput)
        -> State.Next?
    {
        var state = first
        Terminal.say("A \(flow) code was sent by \(state.channelTargetType) to \(state.sentTo).")
        for _ in 1...Prompt.maximumTries {
            switch try Prompt.code(sentTo: state.sentTo, codeLength: state.codeLength) {
            case .cancel:
                Terminal.say("\(flow.capitalizedFirst) cancelled.")
                return nil
            case .resend:
                do {
                    state = try await state.resendCode()
                    Terminal.say("A new code was sent to \(state.sentTo); the previous one no longer works.")
                } catch {
                    Terminal.say("❌ " + ErrorMessage.of(error))
                    guard error.isStateStillUsable else { return nil }
                }
            case .code(let code):
                do {
                    return try await state.submitCode(code)
                } catch {
                    Terminal.say("❌ " + ErrorMessage.of(error))
                    guard error.isStateStillUsable else { return nil }
                }
            }
        }
        Terminal.say("Too many tries; \(flow) cancelled.")
        return nil
    }

    /// Asks for a new password until the server accepts it, saying why each one was refused,
    /// ``Prompt/maximumTries`` passwords at most. An empty answer cancels.
    ///
    /// - Parameters:
    ///   - flow: the flow's name in lower case, such as "password reset", for the messages.
    ///   - submit: sends the password and returns where that leads.
    static func choosePassword<Next>(
        _ question: String, flow: String, submit: (String) async throws(PasswordRequiredError) -> Next
    ) async throws(EndOfInput) -> Next? {
        for _ in 1...Prompt.maximumTries {
            guard let password = try Prompt.optionalPassword("\(question) (empty to cancel)") else {
                Terminal.say("\(flow.capitalizedFirst) cancelled.")
                return nil
            }
            do {
                return try await submitWhilePending(password, submit: submit)
            } catch {
                Terminal.say("❌ " + ErrorMessage.ofNewPassword(error))
                guard error.isStateStillUsable else { return nil }
            }
        }
        Terminal.say("Too many tries; \(flow) cancelled.")
        return nil
    }

    /// Submits `password`, and again while the server answers that it is still resetting (the
    /// state then keeps waiting for that reset rather than sending the password twice),
    /// ``Prompt/maximumTries`` times at most.
    private static func submitWhilePending<Next>(
        _ password: String, submit: (String) async throws(PasswordRequiredError) -> Next
    ) async throws(PasswordRequiredError) -> Next {
        for _ in 1..<Prompt.maximumTries {
            do {
                return try await submit(password)
            } catch  where error.isPasswordResetPending && !error.isCancelled {
                Terminal.say("⏳ The server is still changing the password; waiting a little longer…")
            }
        }
        return try await submit(password)
    }

    /// Signs in with the state a sign-up or a password reset ended in, then goes on exactly like
    /// any other sign-in (a second factor, a method to register).
    static func signIn(after state: some SignInAfterFlowState, scopes: [String], steps: SignInSteps)
        async throws(EndOfInput) -> UserAccountResult?
    {
        let result: SignInResult
        do {
            result = try await state.signIn(scopes: scopes)
        } catch {
            if error.isBrowserRequired, let account = await steps.ended(by: error) { return account }
            Terminal.say("❌ Signing in failed: " + ErrorMessage.common(error) + " Sign in from the menu.")
            return nil
        }
        return try await steps.continueFrom(result)
    }
}
