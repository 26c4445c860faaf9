import Foundation

/// What an operating-system authentication session waits for before it closes and reports the URL.
enum WebAuthenticationCallback: Sendable, Equatable {
    /// Any URL with this scheme (`com.example.app`, no `://`).
    case customScheme(String)
    /// An `https` URL on this host and path (needs an associated domain; iOS 17.4+, macOS 14.4+).
    case https(host: String, path: String)
}

/// One session to present.
struct WebAuthenticationSessionRequest: Sendable, Equatable {
    var url: URL
    var callback: WebAuthenticationCallback
    var prefersEphemeralSession: Bool
}

/// How an operating-system session ended without a callback, in terms that do not need the
/// operating system's types.
enum WebAuthenticationSessionFailure: Error {
    /// The user closed the sheet or declined to continue.
    case canceledLogin
    /// The session had no presentation context (no window to show its sheet over).
    case presentationContextNotProvided
    /// The presentation context was not usable.
    case presentationContextInvalid
    /// Any other error, as the operating system reported it.
    case other(any Error)
}

/// The seam between ``WebAuthenticationSessionCore`` (all the logic, compiled and tested on every
/// platform) and the operating system's session (`ASWebAuthenticationSession`, a thin layer).
protocol WebAuthenticationSessionDriver: Sendable {
    /// Whether the system can wait for ``WebAuthenticationCallback/https(host:path:)`` callbacks.
    var supportsHTTPSCallbacks: Bool { get }

    /// Creates and starts one session showing `request.url`.
    ///
    /// - Returns: A handle that cancels the session, or `nil` when the session would not start.
    ///   `completion` is called at most once, with the callback URL or why there is none; not at
    ///   all when the session did not start or was cancelled through the handle.
    @MainActor
    func start(
        _ request: WebAuthenticationSessionRequest,
        completion: @escaping @Sendable (Result<URL, WebAuthenticationSessionFailure>) -> Void
    ) -> (any WebAuthenticationSessionHandle)?
}

/// Cancels one started session.
protocol WebAuthenticationSessionHandle: Sendable {
    /// Dismisses the session's sheet; its completion is then no longer needed.
    @MainActor func cancel()
}
