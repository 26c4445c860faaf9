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
}
