import Foundation

extension NativeAuthClient {
    /// A stream of session events: sign-in, token refresh, sign-out (also when the session ends
    /// on the server). Each call returns a new stream that receives the events from then on;
    /// it ends when the client is released.
    ///
    /// ```swift
    /// for await event in client.sessionEvents() {
    ///     if case .signedOut = event { showSignIn() }
    /// }
    /// ```
    public func sessionEvents() -> AsyncStream<SessionEvent> { core.events.stream() }

    /// Forgets the person's last confirmation (``NativeAuthConfiguration/userPresence``): the next
    /// refresh asks again, whatever the policy. Call it when the app goes to the background, for
    /// example. A confirmation under way is not cancelled.
    public func resetUserPresence() { core.accounts.presence.reset() }
}
