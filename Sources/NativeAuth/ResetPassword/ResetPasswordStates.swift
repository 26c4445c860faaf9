public import Foundation

/// A code was sent to reset the user's password.
public final class ResetPasswordCodeRequiredState: CodeRequiredState {
    let codeCore: CodeStateCore
    var core: StateCore { codeCore.core }
    /// Where the code was sent, masked.
    public var sentTo: String { codeCore.sentTo }
    /// How the code was sent (email, SMS): the `channelTargetType` of the delegate callbacks.
    public var channelTargetType: ChannelType { codeCore.channel }
    /// How many characters the code has, when the server said.
    public var codeLength: Int? { codeCore.codeLength }

    init(codeCore: CodeStateCore) { self.codeCore = codeCore }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the code.
    ///
    /// - Returns: the state to submit the new password on.
    /// - Throws: ``VerifyCodeError``; a wrong or empty code leaves this state usable.
    @inline(never)
    public func submitCode(_ code: String) async throws(VerifyCodeError) -> ResetPasswordRequiredState {
        try await codeCore.submit(code, as: VerifyCodeError.self) { code, action throws(FlowError) in
            try await codeCore.engine.resetPassword.submitCode(code, action: action)
        }
    }

    /// Sends a new code; the previous one stops working.
    ///
    /// - Returns: a fresh state for the new code; this one is spent.
    /// - Throws: ``ResendCodeError``.
    @inline(never)
    public func resendCode() async throws(ResendCodeError) -> ResetPasswordCodeRequiredState {
        ResetPasswordCodeRequiredState(
            codeCore: try await codeCore.resend(as: ResendCodeError.self) { action throws(FlowError) in
                try await codeCore.engine.resetPassword.resendCode(action: action)
            })
    }

    /// Where the code went; never the code or token.
    public var description: String { codeCore.describe("ResetPasswordCodeRequiredState") }
}

/// The code was accepted: submit the new password.
public final class ResetPasswordRequiredState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// The protocol the state's action speaks, with the `update` link a V2 state follows.
    let engine: StepEngine
    /// Set while a submitted reset is still running on the server: the wait to resume.
    private let pending = ResetPasswordPending()

    init(core: StateCore, engine: StepEngine = .v1) {
        self.core = core
        self.engine = engine
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the new password and waits, polling at the server's interval on the configured
    /// clock, until the reset is done.
    ///
    /// - Returns: the state to sign the user in with one more request.
    /// - Throws: ``PasswordRequiredError``. A password the policy refuses, a failed reset
    ///   (``PasswordRequiredError/isPasswordResetFailed``) and a cancellation leave this state
    ///   usable. When an earlier call was interrupted while the server was still resetting (a
    ///   cancellation, a network failure, or no answer within six polls, five over native
    ///   authentication V2), the next call resumes waiting for that reset instead of submitting
    ///   `password` again.
    public func submitPassword(_ password: String) async throws(PasswordRequiredError) -> SignInAfterResetPasswordState
    {
        try await core.run(PasswordRequiredError.self) { action throws(FlowError) in
            guard !password.isEmpty else {
                throw action.flow.fail(.invalidPassword(nil), note: "The password is empty; nothing was sent.")
            }
            return try await engine.resetPassword.submitPassword(
                password, action: action, core: core, pending: pending)
        }
    }

    /// The state's name; never the token.
    public var description: String { "ResetPasswordRequiredState()" }
}

/// The password was reset: sign the user in with one request.
public final class SignInAfterResetPasswordState: Sendable, CustomStringConvertible {
    let base: SignInAfterFlow
    var core: StateCore { base.core }

    init(core: StateCore, engine: StepEngine = .v1) {
        base = SignInAfterFlow(
            core: core, engine: engine,
            unavailableNote: "The password was changed, but the server gave no token for sign-in after the reset.")
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Whether ``signIn(scopes:claims:)`` can sign the user in. `false` when the server changed
    /// the password but gave no token to continue with: ask the user to sign in with the new
    /// password.
    public var isSignInAvailable: Bool { base.isSignInAvailable }

    /// Signs the user in, with one request to the token endpoint.
    ///
    /// - Parameter scopes: scopes for the access token, beyond `openid profile offline_access`.
    /// - Throws: ``SignInAfterResetPasswordError``.
    public func signIn(scopes: [String] = []) async throws(SignInAfterResetPasswordError) -> SignInResult {
        try await signIn(scopes: scopes, claims: nil)
    }

    /// Signs the user in with the new password's flow, with one request to the token endpoint.
    ///
    /// - Parameters:
    ///   - scopes: scopes for the access token, beyond `openid profile offline_access`.
    ///   - claims: an OIDC claims request (JSON) to send with the token request.
    /// - Throws: ``SignInAfterResetPasswordError``; ``SignInAfterResetPasswordError/isSignInUnavailable``
    ///   when the server gave no token to continue with (see ``isSignInAvailable``).
    @inline(never)
    public func signIn(scopes: [String] = [], claims: String?) async throws(SignInAfterResetPasswordError)
        -> SignInResult
    {
        try await base.signIn(scopes: scopes, claims: claims, as: SignInAfterResetPasswordError.self)
    }

    /// The state's name; never the token.
    public var description: String { "SignInAfterResetPasswordState()" }
}
