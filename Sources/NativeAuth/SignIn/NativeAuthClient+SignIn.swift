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
            throw SignInStartError(details: error.details).continuing(
                core.context(
                    username: parameters.username, scopes: parameters.scopes, correlationId: error.correlationId))
        }
    }
}
