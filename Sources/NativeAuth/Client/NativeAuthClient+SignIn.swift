import Foundation

extension NativeAuthClient {
    /// Starts signing a user in.
    ///
    /// With only a username the server sends a one-time code or asks for the password. With a
    /// password too, the user is signed in at once when the server accepts passwords; when it
    /// chooses a code instead, the password is ignored and a code is required.
    ///
    /// - Throws: ``SignInStartError``: an empty username or password is refused before any request.
    public func signIn(_ parameters: SignInParameters) async throws(SignInStartError) -> SignInStartResult {
        do {
            return try await SignInFlow.start(parameters, client: core)
        } catch {
            throw SignInStartError(error).continuing(
                core.context(
                    username: parameters.username, scopes: parameters.scopes, correlationId: error.correlationId))
        }
    }
}

extension NativeAuthClient {
    /// Starts signing a user in and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``signIn(_:)``.
    public func signIn(parameters: SignInParameters, delegate: any SignInStartDelegate) {
        var parameters = parameters
        let correlationId = parameters.correlationId ?? UUID()
        parameters.correlationId = correlationId
        reportToDelegate(correlationId: correlationId) { [parameters] () async throws(SignInStartError) in
            try await self.signIn(parameters)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignInStartError(error: error)
        }
    }
}
