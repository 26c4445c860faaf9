import Foundation

/// Decides whether a URL is a callback to a redirect URI: the same scheme and host (both compared
/// case-insensitively), the same port (an absent port counts as the scheme's default) and exactly
/// the same path. The callback's query and fragment are free (they carry the response); the
/// redirect URI's own query is not compared.
///
/// Pure and shared by every agent: the loopback agent checks the URL it rebuilt, the
/// authentication-session agent checks the URL the operating system handed back.
enum CallbackURLMatcher {
    /// Whether `url` is a callback to `redirectURI`.
    static func matches(_ url: URL, redirectURI: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == redirectURI.scheme?.lowercased() else {
            return false
        }
        guard url.host?.lowercased() == redirectURI.host?.lowercased() else { return false }
        guard effectivePort(url, scheme: scheme) == effectivePort(redirectURI, scheme: scheme) else { return false }
        return normalizedPath(url, scheme: scheme) == normalizedPath(redirectURI, scheme: scheme)
    }

    /// The default port of `scheme` when it has a well-known one.
    static func defaultPort(forScheme scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }

    private static func effectivePort(_ url: URL, scheme: String) -> Int? {
        url.port ?? defaultPort(forScheme: scheme)
    }

    /// The path as sent (percent-encoded); for `http` and `https` an empty path is `/`.
    private static func normalizedPath(_ url: URL, scheme: String) -> String {
        let path = url.path(percentEncoded: true)
        if path.isEmpty && defaultPort(forScheme: scheme) != nil { return "/" }
        return path
    }
}
