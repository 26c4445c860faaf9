public import Foundation

/// What a browser-based sign-in asks the provider for.
///
/// `openid` is always requested; the other scopes are sent in the order given, each once.
///
/// ```swift
/// var parameters = WebSignInParameters(scopes: ["profile", "offline_access"], loginHint: "ada@example.com")
/// parameters.prompt = .selectAccount
/// parameters.extraParameters = ["domain_hint": "example.com"]
/// ```
public struct WebSignInParameters: Sendable, Equatable {
    /// The `prompt` parameter (OpenID Connect Core §3.1.2.1): how the provider should treat an
    /// existing session. Use a named value, or ``init(rawValue:)`` for a combination such as
    /// `"login consent"` or a provider-specific value.
    public struct Prompt: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The value sent, such as `select_account`.
        public let rawValue: String

        /// A prompt value, sent as given.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// No user interface: fails with ``WebSignInError/isInteractionRequired`` when the user
        /// would have to interact.
        public static let none = Prompt(rawValue: "none")
        /// Ask for the user's credentials even when a session exists.
        public static let login = Prompt(rawValue: "login")
        /// Ask for consent even when it was given before.
        public static let consent = Prompt(rawValue: "consent")
        /// Let the user choose an account.
        public static let selectAccount = Prompt(rawValue: "select_account")
        /// Show the sign-up page (OpenID Connect Prompt Create).
        public static let create = Prompt(rawValue: "create")

        /// The value sent.
        public var description: String { rawValue }
    }

    /// Scopes to request besides `openid`, which is always added. Entries may hold several
    /// space-separated scopes; duplicates are sent once, in first-seen order.
    public var scopes: [String]
    /// The user's identifier, to prefill the sign-in page (`login_hint`).
    public var loginHint: String?
    /// How the provider should treat an existing session (`prompt`).
    public var prompt: Prompt?
    /// The longest time since the user last authenticated, in seconds (`max_age`); 0 forces a
    /// fresh sign-in. Must not be negative.
    public var maxAge: Int?
    /// Requested authentication context classes, most preferred first (`acr_values`).
    public var acrValues: [String]
    /// Preferred languages of the sign-in page, most preferred first, as BCP 47 tags (`ui_locales`).
    public var uiLocales: [String]
    /// The API the access token is for, for providers that take `audience=` (such as Auth0).
    public var audience: String?
    /// Resource indicators (RFC 8707): the APIs the access token is for, sent as one `resource`
    /// parameter each. Each must be an absolute URL with no fragment.
    public var resource: [URL]
    /// More authorization request parameters, sent as given (such as `domain_hint`).
    ///
    /// The names the protocol itself sets are refused with ``WebSignInError/isInvalidParameters``:
    /// `response_type`, `response_mode`, `client_id`, `redirect_uri`, `scope`, `state`, `nonce`,
    /// `code_challenge`, `code_challenge_method`, `request`, `request_uri`, `client-request-id`,
    /// and those of the named properties above (`login_hint`, `prompt`, `max_age`, `acr_values`,
    /// `ui_locales`, `audience`, `resource`), in any letter case.
    public var extraParameters: [String: String]
    /// The sign-in's correlation id, sent as `client-request-id`; a new one when `nil`.
    public var correlationId: UUID?
    /// Whether the ID token's `acr`, when it has one, must be one of ``acrValues``: set for a
    /// step-up, whose values are a resource's requirement rather than a preference.
    var requiresListedACR = false

    /// Creates the parameters of a browser-based sign-in.
    ///
    /// Nothing is checked here; ``WebSignInError/isInvalidParameters`` reports a problem when the
    /// sign-in starts, before anything is sent.
    public init(
        scopes: [String] = [], loginHint: String? = nil, prompt: Prompt? = nil, maxAge: Int? = nil,
        acrValues: [String] = [], uiLocales: [String] = [], audience: String? = nil, resource: [URL] = [],
        extraParameters: [String: String] = [:], correlationId: UUID? = nil
    ) {
        self.scopes = scopes
        self.loginHint = loginHint
        self.prompt = prompt
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.uiLocales = uiLocales
        self.audience = audience
        self.resource = resource
        self.extraParameters = extraParameters
        self.correlationId = correlationId
    }

    /// Parameter names that ``extraParameters`` may not set, lower-cased.
    static let reservedNames = [
        "response_type", "response_mode", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method", "request", "request_uri", "client-request-id", "login_hint", "prompt", "max_age",
        "acr_values", "ui_locales", "audience", "resource",
    ]

    /// The scopes to send: `openid` first unless given, then the others in first-seen order, each once.
    var scopeList: [String] { Self.scopeList(scopes) }

    /// The scope list of `scopes`, as ``scopeList`` says. Static, like the checks below, so that
    /// the device code and first-party sign-ins share them without making a value of this type.
    static func scopeList(_ scopes: [String]) -> [String] {
        var seen: Set<String> = []
        var list: [String] = []
        let given = scopes.flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
        for scope in (given.contains("openid") ? [] : ["openid"]) + given where seen.insert(scope).inserted {
            list.append(scope)
        }
        return list
    }

    /// Checks what can be wrong before anything is sent.
    func validate() throws(WebSignInError) {
        try Self.check(scopes: scopes)
        if let maxAge, maxAge < 0 { throw .invalidParameters("maxAge must not be negative.") }
        if requiresListedACR, acrValues.contains(where: { !OAuthToken.isValid($0) }) {
            throw .invalidParameters(
                "An acrValues entry of a step-up is empty or holds a space, a quote, a backslash or a character outside ASCII."
            )
        }
        try Self.check(resource: resource)
        try Self.check(extraParameters, reserved: Self.reservedNames)
    }

    /// Checks that every scope of the list of `scopes` is a valid scope token.
    static func check(scopes: [String]) throws(WebSignInError) {
        for scope in scopeList(scopes) where !isValidScopeToken(scope) {
            throw .invalidParameters("A scope holds a character that OAuth does not allow (quote or backslash).")
        }
    }

    /// Checks that every resource is an absolute URL without a fragment (RFC 8707).
    static func check(resource: [URL]) throws(WebSignInError) {
        for url in resource {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            if url.scheme == nil || components?.fragment != nil {
                throw .invalidParameters("A resource must be an absolute URL without a fragment (RFC 8707).")
            }
        }
    }

    /// Checks the names of extra parameters: none empty, none among `reserved` (lower-cased) in
    /// any letter case. One body for the browser and the device code sign-ins' parameters.
    static func check(_ extraParameters: [String: String], reserved: [String]) throws(WebSignInError) {
        for name in extraParameters.keys {
            if name.isEmpty { throw .invalidParameters("An extra parameter has an empty name.") }
            if reserved.contains(name.lowercased()) {
                throw .invalidParameters(
                    "The extra parameter '\(name.prefix(40))' is set by the SDK or by a named property.")
            }
        }
    }

    /// RFC 6749 §3.3: `%x21 / %x23-5B / %x5D-7E`.
    static func isValidScopeToken(_ scope: String) -> Bool { OAuthToken.isValid(scope) }
}

extension WebSignInParameters: CustomStringConvertible {
    /// The scopes and which options are set; never the login hint or extra parameter values.
    public var description: String {
        var parts = ["scopes=\(scopeList.joined(separator: " "))"]
        if let prompt { parts.append("prompt=\(prompt)") }
        if let maxAge { parts.append("maxAge=\(maxAge)") }
        if loginHint != nil { parts.append("loginHint=<set>") }
        if !extraParameters.isEmpty { parts.append("extra=\(extraParameters.sortedKeys.joined(separator: ","))") }
        return "WebSignInParameters(\(parts.joined(separator: " ")))"
    }
}
