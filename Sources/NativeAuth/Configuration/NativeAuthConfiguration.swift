public import Foundation

/// What a ``NativeAuthClient`` needs to know about the app and its tenant.
///
/// ```swift
/// let configuration = try NativeAuthConfiguration(clientId: "00000000-…", tenantSubdomain: "contoso")
/// ```
public struct NativeAuthConfiguration: Sendable {
    /// The application (client) id registered in the tenant.
    public let clientId: String
    /// The authority every endpoint is relative to, without a trailing slash,
    /// such as `https://contoso.ciamlogin.com/contoso.onmicrosoft.com`.
    public let authority: URL
    /// The ways of signing in that the app's screens support.
    public let challengeTypes: Set<ChallengeType>
    /// The capabilities the app declares to the server.
    public let capabilities: Set<Capability>
    /// Extra headers sent with every request; every name starts with `x-`.
    public let customHeaders: [String: String]
    /// How long before its expiry a cached access token stops being handed out (default 300 s),
    /// at most half of the token's lifetime: a token is held to `min(tokenRefreshMargin,
    /// lifetime / 2)`, its lifetime being its expiry minus the moment it was received. A provider
    /// issuing 300-second tokens thus gets them refreshed after 150 s, not at every use; a 3600 s
    /// token keeps the whole 300 s margin. Tokens cached before the lifetime was kept are held to
    /// the whole margin.
    ///
    /// A value that is not finite, negative, or longer than a day is refused: the property keeps
    /// its previous value.
    public var tokenRefreshMargin: TimeInterval = 300 {
        didSet { if !(0...86_400).contains(tokenRefreshMargin) { tokenRefreshMargin = oldValue } }
    }
    /// The longest `Retry-After` (from a 429 or 503 answer) the SDK waits before retrying once by
    /// itself (default 10 s); a longer one is returned to the app as an error at once.
    ///
    /// A value that is not finite, negative, or longer than an hour is refused: the property keeps
    /// its previous value.
    public var maximumRetryWait: TimeInterval = 10 {
        didSet { if !(0...3_600).contains(maximumRetryWait) { maximumRetryWait = oldValue } }
    }
    /// The longest the SDK waits for the transport to answer one request before it reports a
    /// timeout (``NativeAuthError/isNetworkError``), whatever the transport does; a cancelled
    /// task ends its request at once. `nil` (the default) means the `URLSessionTransport`'s own
    /// timeout plus 5 s, or 35 s for other transports.
    ///
    /// A value that is not finite, not positive, or longer than ten minutes is refused: the
    /// property keeps its previous value.
    public var requestTimeout: TimeInterval? = nil {
        didSet {
            if let requestTimeout, !(requestTimeout > 0 && requestTimeout <= 600) { self.requestTimeout = oldValue }
        }
    }
    /// The native authentication protocol the client speaks: ``NativeAuthProtocol/v1`` (the
    /// default) or ``NativeAuthProtocol/v2``, Microsoft's server-driven protocol, which Microsoft
    /// marks as experimental. With `.v2`, sign-in, sign-up, sign-up-or-sign-in and password reset
    /// run over V2 and hand back the same states (Docs/NativeAuthV2.md); refresh, sign-out and
    /// browser sign-in are the same whichever protocol is chosen.
    public var protocolVersion: NativeAuthProtocol = .v1
    /// Receives the SDK's log records; `nil` (the default) logs nothing.
    public var logger: (any NativeAuthLogger)?
    /// Run in order on every request to the tenant (native endpoints, and the browser sign-in's
    /// discovery, token and key requests) before it goes to the transport; none by default.
    /// Each may add `x-` headers or refuse the request (see ``RequestInterceptor``).
    public var requestInterceptors: [any RequestInterceptor] = []
    /// The clock for token expiry and polling; the system clock by default.
    public var clock: any NativeAuthClock = SystemClock()
    /// Whether the stored refresh token is released only after the person confirms their presence
    /// (Face ID, Touch ID, the device passcode, …), and how long a confirmation lasts; `nil` (the
    /// default) asks nothing. Only a refresh asks: a cached access token that is still valid is
    /// handed out without a confirmation. See ``UserPresencePolicy``.
    public var userPresence: UserPresenceRequirement?
    /// The slice of the service the requests go to, as query parameters (`dc`, and `slice` with a
    /// refresh); `nil` (the default) adds none. MSAL's `sliceConfig`: only for a test slice or a
    /// data center Microsoft names. See ``SliceConfig``.
    public var sliceConfig: SliceConfig?

    /// Creates a configuration from an authority URL.
    ///
    /// Accepted authorities: `https://{sub}.ciamlogin.com/{sub}.onmicrosoft.com`,
    /// `https://{sub}.ciamlogin.com/` (the path defaults to `/{sub}.onmicrosoft.com`),
    /// `https://{sub}.ciamlogin.com/{tenant-id}`, and any other https host (a custom domain).
    /// `http` is accepted only for loopback hosts, for local test servers.
    ///
    /// - Parameters:
    ///   - clientId: the application id; must not be empty.
    ///   - authority: the tenant's authority.
    ///   - challengeTypes: the ways of signing in the app supports; at least one.
    ///   - capabilities: the capabilities the app declares.
    ///   - customHeaders: extra headers for every request. Names must start with `x-`; the prefixes
    ///     `x-ms-`, `x-client-`, `x-broker-` and `x-app-` are reserved for the SDK.
    /// - Throws: ``NativeAuthConfigurationError`` naming what is wrong.
    public init(
        clientId: String, authority: URL, challengeTypes: Set<ChallengeType> = [.oob, .password],
        capabilities: Set<Capability> = [], customHeaders: [String: String] = [:]
    ) throws(NativeAuthConfigurationError) {
        let trimmedId = clientId.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmedId.isEmpty else { throw NativeAuthConfigurationError(.emptyClientId) }
        guard trimmedId.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw NativeAuthConfigurationError(.invalidClientId)
        }
        guard !challengeTypes.isEmpty else { throw NativeAuthConfigurationError(.noChallengeTypes) }
        self.clientId = trimmedId
        self.authority = try Self.normalize(authority)
        self.challengeTypes = challengeTypes
        self.capabilities = capabilities
        self.customHeaders = try Self.validate(customHeaders)
    }

    /// Creates a configuration for `https://{tenantSubdomain}.ciamlogin.com/{tenantSubdomain}.onmicrosoft.com`.
    ///
    /// - Throws: ``NativeAuthConfigurationError`` when the subdomain is not a DNS label or another
    ///   argument is invalid.
    public init(
        clientId: String, tenantSubdomain: String, challengeTypes: Set<ChallengeType> = [.oob, .password],
        capabilities: Set<Capability> = [], customHeaders: [String: String] = [:]
    ) throws(NativeAuthConfigurationError) {
        let label = tenantSubdomain.lowercased()
        guard !label.isEmpty, label.utf8.count <= 63, label.utf8.allSatisfy(Self.isLabelByte),
            !label.hasPrefix("-"), !label.hasSuffix("-"),
            let url = URL(string: "https://\(label).ciamlogin.com/\(label).onmicrosoft.com")
        else { throw NativeAuthConfigurationError(.invalidTenantSubdomain) }
        try self.init(
            clientId: clientId, authority: url, challengeTypes: challengeTypes, capabilities: capabilities,
            customHeaders: customHeaders)
    }

    /// Whether `byte` may be in a DNS label as the tenant's subdomain: a lowercase ASCII letter, a
    /// digit or `-`. A byte of a non-ASCII character is none of these.
    private static func isLabelByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): true
        default: false
        }
    }

    static var reservedHeaderPrefixes: [String] { AppHeader.reservedPrefixes }

    static func normalize(_ authority: URL) throws(NativeAuthConfigurationError) -> URL {
        guard var components = URLComponents(url: authority, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { throw NativeAuthConfigurationError(.invalidAuthority) }
        guard components.user == nil, components.password == nil, components.query == nil,
            components.fragment == nil
        else { throw NativeAuthConfigurationError(.invalidAuthority) }
        switch scheme {
        case "https": break
        case "http" where isLoopback(host): break
        case "http": throw NativeAuthConfigurationError(.insecureAuthority)
        default: throw NativeAuthConfigurationError(.invalidAuthority)
        }
        var path = components.path
        while path.hasSuffix("/") { path.removeLast() }
        let ciamSuffix = ".ciamlogin.com"
        if host.hasSuffix(ciamSuffix) {
            let subdomain = String(host.dropLast(ciamSuffix.count))
            guard !subdomain.isEmpty else { throw NativeAuthConfigurationError(.invalidAuthority) }
            guard !subdomain.contains(".") else {
                throw NativeAuthConfigurationError(.multiLabelCIAMHost(subdomain))
            }
            if path.isEmpty { path = "/\(subdomain).onmicrosoft.com" }
        }
        components.scheme = scheme
        components.host = host
        components.path = path
        guard let url = components.url else { throw NativeAuthConfigurationError(.invalidAuthority) }
        return url
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    static func validate(_ headers: [String: String]) throws(NativeAuthConfigurationError) -> [String: String] {
        for (name, value) in headers {
            switch AppHeader.problem(name: name, value: value) {
            case nil: continue
            case .invalidName: throw NativeAuthConfigurationError(.invalidHeaderName(name))
            case .reservedName(let prefix):
                throw NativeAuthConfigurationError(.reservedHeaderName(name, prefix: prefix))
            case .invalidValue: throw NativeAuthConfigurationError(.invalidHeaderValue(name))
            }
        }
        return headers
    }
}

/// Why a ``NativeAuthConfiguration`` could not be made.
public struct NativeAuthConfigurationError: Error, LocalizedError, CustomStringConvertible, Sendable, Equatable {
    enum Code: Equatable, Sendable {
        case emptyClientId
        case invalidClientId
        case invalidAuthority
        case insecureAuthority
        case invalidTenantSubdomain
        case multiLabelCIAMHost(String)
        case noChallengeTypes
        case invalidHeaderName(String)
        case reservedHeaderName(String, prefix: String)
        case invalidHeaderValue(String)
    }

    let code: Code

    init(_ code: Code) { self.code = code }

    /// The client id is empty or holds characters a client id cannot have.
    public var isInvalidClientId: Bool { code == .emptyClientId || code == .invalidClientId }
    /// The authority is not a URL the SDK can use (including plain `http` to a non-loopback host).
    public var isInvalidAuthority: Bool {
        switch code {
        case .invalidAuthority, .insecureAuthority, .invalidTenantSubdomain, .multiLabelCIAMHost: true
        default: false
        }
    }
    /// No challenge type was given; at least one of `oob` and `password` is needed.
    public var isMissingChallengeTypes: Bool { code == .noChallengeTypes }
    /// A custom header's name or value is not allowed.
    public var isInvalidHeader: Bool {
        switch code {
        case .invalidHeaderName, .reservedHeaderName, .invalidHeaderValue: true
        default: false
        }
    }

    /// What is wrong, in plain language.
    public var description: String {
        switch code {
        case .emptyClientId: "The client id is empty."
        case .invalidClientId: "The client id holds spaces or characters that are not printable ASCII."
        case .invalidAuthority:
            "The authority is not a valid https URL without query, fragment or user info (for example https://contoso.ciamlogin.com/contoso.onmicrosoft.com)."
        case .insecureAuthority: "The authority uses http; only https is allowed, except for loopback hosts."
        case .invalidTenantSubdomain: "The tenant subdomain is not a valid DNS label."
        case .multiLabelCIAMHost(let subdomain):
            "The authority's host puts '\(subdomain)' before .ciamlogin.com; a ciamlogin.com host has exactly one label there, the tenant subdomain (for example https://contoso.ciamlogin.com/)."
        case .noChallengeTypes:
            "At least one challenge type (\(ChallengeType.allCases.map(\.rawValue).joined(separator: " or "))) is required."
        case .invalidHeaderName(let name): "The custom header name '\(name)' is invalid: it must start with 'x-'."
        case .reservedHeaderName(let name, let prefix):
            "The custom header name '\(name)' uses the prefix '\(prefix)', which is reserved for the SDK."
        case .invalidHeaderValue(let name):
            "The value of the custom header '\(name)' holds a line break or control character."
        }
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }
}
