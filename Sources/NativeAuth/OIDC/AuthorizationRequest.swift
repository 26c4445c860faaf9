import Foundation

/// One authorization request (OpenID Connect, authorization code flow with PKCE): the URL to show
/// in the browser, and the one-time values the callback and the code exchange are checked with.
///
/// The response is asked for in the query of the redirect URI (the default `response_mode` of
/// `response_type=code`); responses in the fragment or posted forms are not supported. A class: it
/// never changes once built, and its many fields are shared rather than copied.
final class AuthorizationRequest: Sendable {
    /// The URL with every parameter in its query, for a request that is not pushed.
    let url: URL
    /// The authorization endpoint, with any query it came with.
    let endpoint: URL
    /// Every parameter of the request (`client_id`, `state`, `nonce`, the PKCE challenge, …) in
    /// the order of ``url``'s query, without `client-request-id`: what a pushed request sends in
    /// its body (RFC 9126 §2.1). Field names only may be logged.
    let parameters: FormBody
    let clientId: String
    let redirectURI: URL
    let state: Secret
    let nonce: Secret
    let pkce: PKCE
    let scopes: [String]
    let maxAge: Int?
    /// The `acr` values the ID token's `acr` must be one of, when it has one; empty for no check
    /// (``WebSignInParameters/requiresListedACR``).
    let requiredACRValues: [String]
    /// The issuer the callback's `iss` must equal.
    let issuer: String
    /// Whether the callback must carry `iss` (the provider announces RFC 9207).
    let issuerRequired: Bool
    let correlationId: UUID

    /// Builds a request with fresh `state`, `nonce` and PKCE verifier from `random` (the system's
    /// CSPRNG unless a test injects another source).
    ///
    /// - Throws: ``WebSignInError/isInvalidParameters`` when the parameters, the client id or the
    ///   redirect URI are not valid; nothing is sent.
    convenience init(
        metadata: ProviderMetadata, clientId: String, redirectURI: URL, parameters: WebSignInParameters,
        random: any WebRandomSource = SystemWebRandomSource()
    ) throws(WebSignInError) {
        try self.init(
            metadata: metadata, clientId: clientId, redirectURI: redirectURI, parameters: parameters,
            state: OAuthRandom.token(random: random), nonce: OAuthRandom.token(random: random),
            pkce: PKCE(random: random))
    }

    /// The provider's authorization endpoint, where a browser can be sent.
    ///
    /// - Throws: ``WebSignInError/isUnsupported`` when the metadata names none (a provider that
    ///   signs users in only at its authorization challenge endpoint),
    ///   ``WebSignInError/isInvalidParameters`` when it is not `https` (`http` on a loopback host).
    static func authorizationEndpoint(of metadata: ProviderMetadata, correlationId: UUID)
        throws(WebSignInError) -> URL
    {
        guard let endpoint = metadata.authorizationEndpoint else {
            throw WebSignInError(
                .unsupported,
                note: "The provider publishes no authorization_endpoint: it signs users in with signInFirstParty only.",
                correlationId: correlationId)
        }
        if EndpointPolicy.problem(with: endpoint, field: "authorization_endpoint") != nil {
            throw WebSignInError.invalidParameters(
                "The authorization endpoint must be https (http for loopback hosts only).",
                correlationId: correlationId)
        }
        return endpoint
    }

    /// Builds a request with the given one-time values.
    init(
        metadata: ProviderMetadata, clientId: String, redirectURI: URL, parameters: WebSignInParameters,
        state: Secret, nonce: Secret, pkce: PKCE
    ) throws(WebSignInError) {
        let correlationId = parameters.correlationId ?? UUID()
        do {
            try parameters.validate()
            try Self.check(clientId: clientId, redirectURI: redirectURI)
        } catch {
            throw error.with(correlationId: correlationId)
        }
        let endpoint = try Self.authorizationEndpoint(of: metadata, correlationId: correlationId)
        let scopes = parameters.scopeList
        var form = FormBody()
        form.add("response_type", "code")
        form.add("client_id", clientId)
        form.add("redirect_uri", redirectURI.absoluteString)
        form.add("scope", scopes.joined(separator: " "))
        form.add("state", secret: state)
        form.add("nonce", secret: nonce)
        form.add("code_challenge", pkce.challenge)
        form.add("code_challenge_method", PKCE.method)
        if let loginHint = parameters.loginHint, !loginHint.isEmpty { form.add("login_hint", loginHint) }
        if let prompt = parameters.prompt, !prompt.rawValue.isEmpty { form.add("prompt", prompt.rawValue) }
        if let maxAge = parameters.maxAge { form.add("max_age", String(maxAge)) }
        if !parameters.acrValues.isEmpty { form.add("acr_values", parameters.acrValues.joined(separator: " ")) }
        if !parameters.uiLocales.isEmpty { form.add("ui_locales", parameters.uiLocales.joined(separator: " ")) }
        if let audience = parameters.audience, !audience.isEmpty { form.add("audience", audience) }
        for resource in parameters.resource { form.add("resource", resource.absoluteString) }
        for name in parameters.extraParameters.sortedKeys {
            form.add(name, parameters.extraParameters[name, default: ""])
        }
        var query = form.fields.map { ($0.name, $0.value) }
        query.append(("client-request-id", correlationId.uuidString.lowercased()))
        guard let url = Self.url(endpoint, adding: query) else {
            throw WebSignInError.invalidParameters(
                "The authorization URL could not be built.", correlationId: correlationId)
        }
        self.url = url
        self.endpoint = endpoint
        self.parameters = form
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.state = state
        self.nonce = nonce
        self.pkce = pkce
        self.scopes = scopes
        self.maxAge = parameters.maxAge
        requiredACRValues = parameters.requiresListedACR ? parameters.acrValues : []
        issuer = metadata.issuer
        issuerRequired = metadata.authorizationResponseIssParameterSupported
        self.correlationId = correlationId
    }

    /// Reads the callback URL the browser was redirected to; see ``AuthorizationCallback``.
    func callback(from url: URL) throws(WebSignInError) -> AuthorizationCallback {
        try AuthorizationCallback(
            url: url, redirectURI: redirectURI, expectedState: state, expectedIssuer: issuer,
            issuerRequired: issuerRequired, correlationId: correlationId)
    }

    /// The URL for the browser once the request was pushed (RFC 9126 §4): the authorization
    /// endpoint with only `client_id` and `request_uri` added to its query.
    func url(requestURI: String) throws(WebSignInError) -> URL {
        guard let url = Self.url(endpoint, adding: [("client_id", clientId), ("request_uri", requestURI)]) else {
            throw WebSignInError(
                .unexpectedResponse, note: "The authorization URL could not be built with the 'request_uri'.",
                correlationId: correlationId)
        }
        return url
    }

    /// The client id must not be empty; the redirect URI must be absolute, without a fragment.
    static func check(clientId: String, redirectURI: URL) throws(WebSignInError) {
        guard !clientId.isEmpty else { throw .invalidParameters("The client id is empty.") }
        let components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        guard redirectURI.scheme?.isEmpty == false, components?.fragment == nil else {
            throw .invalidParameters("The redirect URI must be an absolute URI without a fragment.")
        }
    }

    /// `endpoint` with `parameters` appended to its query (an existing query is kept), each name
    /// and value percent-encoded except RFC 3986's unreserved characters.
    static func url(_ endpoint: URL, adding parameters: [(String, String)]) -> URL? {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else { return nil }
        let added = parameters.map { FormBody.escape($0.0) + "=" + FormBody.escape($0.1) }.joined(separator: "&")
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + added
        } else {
            components.percentEncodedQuery = added
        }
        return components.url
    }
}

extension AuthorizationRequest: CustomStringConvertible, CustomReflectable {
    /// Shows the description only: the URL carries the state and nonce.
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// The endpoint, client id and scopes; never the state, nonce or verifier.
    var description: String {
        let endpoint = "\(url.scheme ?? "")://\(url.host ?? "")\(url.path)"
        return
            "AuthorizationRequest(endpoint: \(endpoint), client: \(clientId), scopes: \(scopes.joined(separator: " ")))"
    }
}
