public import Foundation

/// The server wants the user's password to sign in.
public final class SignInPasswordRequiredState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// The protocol the state's action speaks, with the link a V2 state follows.
    let engine: StepEngine

    init(core: StateCore, engine: StepEngine = .v1) {
        self.core = core
        self.engine = engine
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the password.
    ///
    /// - Returns: where sign-in goes next: signed in, or a second factor or method registration.
    /// - Throws: ``PasswordRequiredError``. A wrong or empty password
    ///   (``PasswordRequiredError/isInvalidPassword``) leaves this state usable.
    public func submitPassword(_ password: String) async throws(PasswordRequiredError) -> SignInResult {
        try await core.run(PasswordRequiredError.self) { action throws(FlowError) in
            guard !password.isEmpty else {
                throw action.flow.fail(.invalidPassword(nil), note: "The password is empty; nothing was sent.")
            }
            return try await engine.signIn.submitPassword(Secret(password), action: action)
        }
    }

    /// The state's name; never the token.
    public var description: String { "SignInPasswordRequiredState()" }
}
