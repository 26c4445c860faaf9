public import Foundation

/// Shows the provider's authorization page to the user and hands back where the provider sent the
/// browser when it was done.
///
/// A web sign-in builds the authorization URL, asks an agent to show it, and reads the code (or the
/// error) from the callback URL the agent returns. The SDK ships two agents:
///
/// - ``LoopbackUserAgent`` for desktop and command-line apps on macOS and Linux: it opens the
///   system browser and receives the redirect on `http://127.0.0.1:<port>/<path>` (RFC 8252 §7.3).
/// - `WebAuthenticationSessionUserAgent` on Apple platforms: `ASWebAuthenticationSession`, with a
///   custom-scheme or (where the OS allows) an `https` redirect.
///
/// Write your own to show the page some other way, or to script a sign-in in tests:
///
/// ```swift
/// struct ScriptedAgent: ExternalUserAgent {
///     func authorize(url: URL, redirectURI: URL) async throws -> URL {
///         URL(string: redirectURI.absoluteString + "?code=abc&state=xyz") ?? redirectURI
///     }
/// }
/// ```
///
/// Throw ``ExternalUserAgentError`` so the caller can tell a user who cancelled
/// (``ExternalUserAgentError/isCancelled``) from a failure.
public protocol ExternalUserAgent: Sendable {
    /// Shows `url` and returns the callback URL the provider redirected to (it starts with `redirectURI`).
    func authorize(url: URL, redirectURI: URL) async throws -> URL
}
