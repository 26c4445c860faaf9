public import Foundation

/// What a device code sign-in (RFC 8628) asks the provider for.
///
/// `openid` is always requested; the other scopes are sent in the order given, each once, as with
/// ``WebSignInParameters``.
///
/// ```swift
/// let parameters = WebDeviceSignInParameters(scopes: ["offline_access", "api.read"])
/// ```
public struct WebDeviceSignInParameters: Sendable, Equatable {
    /// Scopes to request besides `openid`, which is always added. Entries may hold several
    /// space-separated scopes; duplicates are sent once, in first-seen order.
    public var scopes: [String] {
        get { fields.scopes }
        set { fields = Fields(newValue, audience, resource, extraParameters, correlationId) }
    }
    /// The API the access token is for, for providers that take `audience=` (such as Auth0).
    public var audience: String? {
        get { fields.audience }
        set { fields = Fields(scopes, newValue, resource, extraParameters, correlationId) }
    }
    /// Resource indicators (RFC 8707): the APIs the access token is for, sent as one `resource`
    /// parameter each. Each must be an absolute URL with no fragment.
    public var resource: [URL] {
        get { fields.resource }
        set { fields = Fields(scopes, audience, newValue, extraParameters, correlationId) }
    }
    /// More device authorization request parameters, sent as given.
    ///
    /// The names the protocol itself sets are refused with ``WebSignInError/isInvalidParameters``:
    /// `client_id`, `scope`, `grant_type`, `device_code`, `client-request-id`, and those of the
    /// named properties above (`audience`, `resource`), in any letter case.
    public var extraParameters: [String: String] {
        get { fields.extraParameters }
        set { fields = Fields(scopes, audience, resource, newValue, correlationId) }
    }
    /// The sign-in's correlation id, sent as `client-request-id`; a new one when `nil`.
    public var correlationId: UUID? {
        get { fields.correlationId }
        set { fields = Fields(scopes, audience, resource, extraParameters, newValue) }
    }

    /// The values, behind one reference: a value is one pointer to copy and destroy. A setter
    /// makes new fields, so that copies never share a change.
    private var fields: Fields

    private final class Fields: Sendable {
        let scopes: [String]
        let audience: String?
        let resource: [URL]
        let extraParameters: [String: String]
        let correlationId: UUID?

        init(
            _ scopes: [String], _ audience: String?, _ resource: [URL], _ extraParameters: [String: String],
            _ correlationId: UUID?
        ) {
            self.scopes = scopes
            self.audience = audience
            self.resource = resource
            self.extraParameters = extraParameters
            self.correlationId = correlationId
        }
    }

    /// Creates the parameters of a device code sign-in.
    ///
    /// Nothing is checked here; ``WebSignInError/isInvalidParameters`` reports a problem when the
    /// sign-in starts, before anything is sent.
    public init(
        scopes: [String] = [], audience: String? = nil, resource: [URL] = [],
        extraParameters: [String: String] = [:], correlationId: UUID? = nil
    ) {
        fields = Fields(scopes, audience, resource, extraParameters, correlationId)
    }

    /// Whether both hold the same values.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.scopes == rhs.scopes && lhs.audience == rhs.audience && lhs.resource == rhs.resource
            && lhs.extraParameters == rhs.extraParameters && lhs.correlationId == rhs.correlationId
    }

    /// Parameter names that ``extraParameters`` may not set, lower-cased.
    static let reservedNames = [
        "client_id", "scope", "grant_type", "device_code", "client-request-id", "audience", "resource",
    ]

    /// The scopes to send: `openid` first unless given, then the others in first-seen order, each
    /// once, as for a browser sign-in.
    var scopeList: [String] { WebSignInParameters.scopeList(scopes) }

    /// Checks what can be wrong before anything is sent: the scopes and resources as a browser
    /// sign-in's, then the extra parameter names.
    func validate() throws(WebSignInError) {
        try WebSignInParameters.check(scopes: scopes)
        try WebSignInParameters.check(resource: resource)
        try WebSignInParameters.check(extraParameters, reserved: Self.reservedNames)
    }
}

extension WebDeviceSignInParameters: CustomStringConvertible {
    /// The scopes and which options are set; never the extra parameter values.
    public var description: String {
        var parts = ["scopes=\(scopeList.joined(separator: " "))"]
        if audience != nil { parts.append("audience=<set>") }
        if !resource.isEmpty { parts.append("resources=\(resource.count)") }
        if !extraParameters.isEmpty { parts.append("extra=\(extraParameters.sortedKeys.joined(separator: ","))") }
        return "WebDeviceSignInParameters(\(parts.joined(separator: " ")))"
    }
}
