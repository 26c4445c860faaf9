import Foundation

/// What the states that sign a user in after another flow share (``SignInAfterSignUpState``,
/// ``SignInAfterResetPasswordState``; MSAL's `SignInAfterPreviousFlowBaseState`): one sign-in with
/// the continuation token the flow ended with. Each state adds only its error type and the note of
/// the error when the server gave no token.
/// A class: it never changes once built, and its fields are shared rather than copied.
final class SignInAfterFlow: Sendable {
    let core: StateCore
    /// The protocol the sign-in speaks: V2 resumes authorization and exchanges the code.
    let engine: StepEngine
    /// The note of ``ErrorKind/signInUnavailable``: what the flow did, though no token came.
    let unavailableNote: String

    init(core: StateCore, engine: StepEngine, unavailableNote: String) {
        self.core = core
        self.engine = engine
        self.unavailableNote = unavailableNote
    }

    /// Whether the server gave a token to sign in with.
    var isSignInAvailable: Bool { !core.currentToken.isEmpty }

    /// Signs the user in, failing with `E`.
    func signIn<E: DetailedError>(scopes: [String], claims: String?, as errorType: E.Type) async throws(E)
        -> SignInResult
    {
        try await core.run(E.self) { action throws(FlowError) in
            try await signIn(scopes: scopes, claims: claims, action: action)
        }
    }

    /// One request with the state's token: to the token endpoint over V1; over V2, the authorization
    /// resumed and its code exchanged. Either way the account is kept as every sign-in keeps it.
    private func signIn(scopes: [String], claims: String?, action: StateCore.Action) async throws(FlowError)
        -> SignInResult
    {
        let token = action.token
        let flow = action.flow.with(
            scopes: scopes, claims: try FlowContext.validClaims(claims, correlationId: action.flow.correlationId))
        guard !token.isEmpty else {
            throw FlowError(.signInUnavailable, correlationId: flow.correlationId, note: unavailableNote)
        }
        return try await engine.signIn.signIn(continuationToken: token, flow: flow)
    }
}
