import Foundation

/// A successful device authorization answer (RFC 8628 §3.2), parsed.
///
/// `verification_url` is read when `verification_uri` is missing: Google (and Entra's v1
/// endpoint) spell it that way, and other clients (such as the Rust `oauth2` crate) accept both.
/// A class: the answer never changes once read, and the state and poller share a reference.
final class DeviceAuthorizationAnswer: Sendable {
    /// The code the client polls with: a secret, never logged or described.
    let deviceCode: Secret
    /// The code the user types at the verification page.
    let userCode: String
    let verificationURI: URL
    /// The verification page with the user code in it, when the provider sent a usable one.
    let verificationURIComplete: URL?
    /// Seconds the device and user codes live; always more than zero.
    let expiresIn: Int
    /// Seconds to wait between polls: the provider's `interval`, 5 when it sent none, at least 1.
    let interval: Int
    /// The provider's `Date` header, for clock-skew correction.
    let serverDate: Date?

    /// RFC 8628 §3.2: "If no value is provided, clients MUST use 5 as the default."
    static let defaultInterval = 5

    /// Parses the device authorization endpoint's answer.
    ///
    /// - Throws: the typed error of an error answer (``WebSignInError/oauth(error:description:uri:status:correlationId:)``),
    ///   ``WebSignInError/isServerError`` for a 429 or 5xx without an OAuth error, and
    ///   ``WebSignInError/isUnexpectedResponse`` for anything else that is not a usable answer.
    init(_ response: HTTPResponse, correlationId: UUID?) throws(WebSignInError) {
        let status = response.statusCode
        func unexpected(_ note: String) -> WebSignInError {
            WebSignInError(.unexpectedResponse, note: note, httpStatusCode: status, correlationId: correlationId)
        }
        let fields = WireObject(
            try WebHTTP.object(of: response, from: "device authorization endpoint", correlationId: correlationId))
        guard let deviceCode = Self.text(fields, "device_code") else {
            throw unexpected("The answer has no 'device_code'.")
        }
        guard let userCode = Self.text(fields, "user_code") else { throw unexpected("The answer has no 'user_code'.") }
        guard let verification = Self.text(fields, "verification_uri") ?? Self.text(fields, "verification_url") else {
            throw unexpected("The answer has no 'verification_uri'.")
        }
        guard let verificationURI = Self.pageURL(verification) else {
            throw unexpected("The 'verification_uri' is not an absolute http or https URL.")
        }
        guard fields.members["expires_in"] != nil else { throw unexpected("The answer has no 'expires_in'.") }
        guard let expiresIn = fields.int("expires_in"), expiresIn > 0 else {
            throw unexpected("The 'expires_in' is not a positive whole number of seconds.")
        }
        var interval = Self.defaultInterval
        if fields.members["interval"] != nil, fields.members["interval"] != .null {
            guard let given = fields.int("interval"), given >= 0 else {
                throw unexpected("The 'interval' is not a whole number of seconds.")
            }
            // Never poll in a tight loop, whatever the provider says.
            interval = max(given, 1)
        }
        self.deviceCode = Secret(deviceCode)
        self.userCode = userCode
        self.verificationURI = verificationURI
        // Optional: a malformed one is left out rather than failing the sign-in.
        verificationURIComplete = Self.text(fields, "verification_uri_complete").flatMap(Self.pageURL)
        self.expiresIn = expiresIn
        self.interval = interval
        serverDate = response.header("Date").flatMap(HTTPDate.parse)
    }

    /// A non-empty string (or number) member, trimmed.
    private static func text(_ fields: WireObject, _ key: String) -> String? {
        guard let value = fields.string(key) else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A page the user can open: an absolute `http` or `https` URL with a host.
    private static func pageURL(_ text: String) -> URL? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { return nil }
        return components.url
    }
}
