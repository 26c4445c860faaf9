public import Foundation

/// Signs users in with OpenID Connect in a browser: the authorization code flow with PKCE, against
/// any provider that publishes discovery metadata, or Entra when native sign-in cannot go on.
///
/// The result is the same ``UserAccountResult`` as the native flows: restored at launch, access
/// tokens cached and refreshed one at a time, session events, `authorize`/`send`, sign-out.
///
/// ```swift
/// let client = try WebAuthClient(
///     issuer: URL(string: "https://login.example.com")!, clientId: "my-app",
///     redirectURI: URL(string: "http://127.0.0.1/callback")!)
/// let agent = LoopbackUserAgent()
/// let account = try await client.signIn(WebSignInParameters(scopes: ["offline_access"]), using: agent)
/// ```
public final class WebAuthClient: Sendable {
    /// The provider's issuer, as configured.
    public let issuer: URL
    /// The application's client id at the provider.
    public let clientId: String
    /// The redirect URI registered for the application.
    public let redirectURI: URL
    let provider: WebProvider
    let accounts: AccountManager
    let events = SessionEventHub()

    /// Creates a client for the provider at `issuer`.
    ///
    /// Nothing is sent until the first sign-in, which fetches the provider's metadata
    /// (`{issuer}/.well-known/openid-configuration`) once.
    ///
    /// - Parameters:
    ///   - issuer: the provider's issuer; https, or http on a loopback host for local tests.
    ///   - clientId: the application's client id; must not be empty.
    ///   - redirectURI: the redirect URI registered for the application (a custom scheme, an https
    ///     URL, or `http://127.0.0.1:PORT/path` for the loopback agent).
    ///   - transport: where requests go; `URLSessionTransport` by default.
    ///   - credentialStore: where the account is kept; `nil` (the default) means the platform's
    ///     default store, ``NativeAuthClient/defaultCredentialStore(applicationName:)``.
    ///   - configuration: the refresh margin, clock, logger and client authentication; the defaults by default.
    /// - Throws: ``WebSignInError`` with ``WebSignInError/isInvalidParameters`` or
    ///   ``WebSignInError/isDiscoveryFailed`` for an unusable issuer, client id or redirect URI.
    public convenience init(
        issuer: URL, clientId: String, redirectURI: URL, transport: any HTTPTransport = URLSessionTransport(),
        credentialStore: (any CredentialStore)? = nil,
        configuration: WebAuthConfiguration = WebAuthConfiguration()
    ) throws(WebSignInError) {
        try AuthorizationRequest.check(clientId: clientId, redirectURI: redirectURI)
        let pipeline = Self.pipeline(transport, configuration)
        let discovery = try ProviderDiscovery(issuer: issuer, pipeline: pipeline)
        self.init(
            discovery: discovery, pipeline: pipeline,
            clientId: clientId, redirectURI: redirectURI, credentialStore: credentialStore,
            configuration: configuration)
    }

    /// Creates a client for a provider that publishes no discovery document, from the metadata the
    /// app built (``ProviderMetadata/init(issuer:authorizationEndpoint:tokenEndpoint:jwksURI:endSessionEndpoint:revocationEndpoint:registrationEndpoint:deviceAuthorizationEndpoint:userinfoEndpoint:)``).
    ///
    /// No discovery request is ever sent: every sign-in, refresh and sign-out uses `metadata` as
    /// it is. ``issuer`` is `metadata.issuer`, which ID tokens' `iss` must equal; the ID tokens
    /// are checked against `metadata.jwksURI`'s keys (none: every sign-in fails with
    /// ``WebSignInError/isInvalidIDToken``). A metadata without an `authorizationEndpoint` serves
    /// ``signInFirstParty(_:)`` only (a browser sign-in is ``WebSignInError/isUnsupported``).
    ///
    /// - Parameters:
    ///   - metadata: the provider's issuer and endpoints.
    ///   - clientId: the app's client id, as for
    ///     ``init(issuer:clientId:redirectURI:transport:credentialStore:configuration:)``.
    ///   - redirectURI: where the provider sends the browser back, as for that initializer.
    ///   - transport: sends the requests; `URLSessionTransport` by default.
    ///   - credentialStore: where the account is kept; the platform's default store by default.
    ///   - configuration: the refresh margin, clock, logger and client authentication; the
    ///     defaults by default.
    /// - Throws: ``WebSignInError/isInvalidParameters`` for an issuer that is not an absolute
    ///   `https` URL (`http` on a loopback host) without query, an endpoint that is not `https`
    ///   (`http` on a loopback host only), or an unusable client id or redirect URI.
    public convenience init(
        metadata: ProviderMetadata, clientId: String, redirectURI: URL,
        transport: any HTTPTransport = URLSessionTransport(), credentialStore: (any CredentialStore)? = nil,
        configuration: WebAuthConfiguration = WebAuthConfiguration()
    ) throws(WebSignInError) {
        try AuthorizationRequest.check(clientId: clientId, redirectURI: redirectURI)
        let pipeline = Self.pipeline(transport, configuration)
        let discovery = try ProviderDiscovery(metadata: metadata, pipeline: pipeline)
        self.init(
            discovery: discovery, pipeline: pipeline,
            clientId: clientId, redirectURI: redirectURI, credentialStore: credentialStore,
            configuration: configuration)
    }

    /// The one request pipeline of a client: the app's transport, interceptors and deadline.
    private static func pipeline(_ transport: any HTTPTransport, _ configuration: WebAuthConfiguration)
        -> RequestPipeline
    {
        RequestPipeline(
            transport: transport, interceptors: configuration.requestInterceptors,
            log: Log(logger: configuration.logger), retry: .never, requestTimeout: configuration.requestTimeout)
    }

    private init(
        discovery: ProviderDiscovery, pipeline: RequestPipeline, clientId: String, redirectURI: URL,
        credentialStore: (any CredentialStore)?, configuration: WebAuthConfiguration
    ) {
        let issuer = discovery.issuer
        self.issuer = issuer
        self.clientId = clientId
        self.redirectURI = redirectURI
        let log = pipeline.log
        let dpop = configuration.dpop.map { DPoPContext(provider: $0.keyProvider) }
        let clock = ServerTimeClock.resolve(configuration.clock, transport: pipeline.transport)
        let provider = WebProvider(
            discovery: discovery, clientId: clientId, pipeline: pipeline, clock: clock,
            authentication: configuration.clientAuthentication,
            pushedAuthorization: configuration.pushedAuthorizationRequests, dpop: dpop,
            idTokenAlgorithms: configuration.idTokenAlgorithms)
        self.provider = provider
        let link = WebAccountsLink()
        accounts = AccountManager(
            clientId: clientId, clock: clock, margin: configuration.tokenRefreshMargin,
            userPresence: configuration.userPresence,
            store: credentialStore ?? PlatformCredentialStore.make(applicationName: nil),
            redeemer: WebRefreshRedeemer(provider: provider, redirectURI: redirectURI, link: link), log: log,
            events: events, storeKey: "nativeauth.web.\(issuer.absoluteString).\(clientId)", dpop: dpop)
        link.connect(accounts)
    }

    /// Where this client signs users in and keeps their account.
    var site: WebSignInSite { WebSignInSite(provider: provider, accounts: accounts, redirectURI: redirectURI) }

    /// Signs the user in through `agent`: builds the authorization request (PKCE S256, `state`,
    /// `nonce`), pushes it when ``WebAuthConfiguration/pushedAuthorizationRequests`` says so, lets
    /// the agent show it, checks the callback, exchanges the code and verifies the ID token. The
    /// account replaces any earlier one of this client.
    ///
    /// - Throws: ``WebSignInError``: ``WebSignInError/isCancelled`` when the user closed the
    ///   browser, ``WebSignInError/isAccessDenied`` when they declined,
    ///   ``WebSignInError/isStateMismatch``, ``WebSignInError/isInvalidIDToken`` (with
    ///   ``WebSignInError/failedIDTokenCheck``), ``WebSignInError/isDiscoveryFailed``, a refused
    ///   pushed request (``WebSignInError/isConfigurationError``, ``WebSignInError/isExpired``, …),
    ///   ``WebSignInError/isUnsupported`` when the provider and
    ///   ``WebAuthConfiguration/pushedAuthorizationRequests`` cannot agree, …
    ///   Nothing is stored on a failure.
    public func signIn(_ parameters: WebSignInParameters, using agent: any ExternalUserAgent)
        async throws(WebSignInError) -> UserAccountResult
    {
        try await site.signIn(parameters, using: agent)
    }

    /// The signed-in account from the credential store, with no network request; `nil` when none.
    ///
    /// - Throws: ``CredentialStoreError`` when the store cannot be read (the account is not lost).
    public func currentAccount() async throws(CredentialStoreError) -> UserAccountResult? {
        guard let record = try await accounts.current() else { return nil }
        return UserAccountResult(record: record, manager: accounts)
    }

    /// The session's events (signed in, token refreshed, signed out), from now on.
    public func sessionEvents() -> AsyncStream<SessionEvent> { events.stream() }

    /// Forgets the person's last confirmation (``WebAuthConfiguration/userPresence``): the next
    /// refresh asks again, whatever the policy. Call it when the app goes to the background, for
    /// example. A confirmation under way is not cancelled.
    public func resetUserPresence() { accounts.presence.reset() }
}

/// Settings of a ``WebAuthClient`` besides its provider.
public struct WebAuthConfiguration: Sendable {
    /// How long before its expiry a cached access token stops being handed out (default 300 s),
    /// at most half of the token's lifetime: a token is held to `min(tokenRefreshMargin,
    /// lifetime / 2)`, its lifetime being its expiry minus the moment it was received. A provider
    /// issuing 300-second tokens thus gets them refreshed after 150 s, not at every use; a 3600 s
    /// token keeps the whole 300 s margin.
    /// Tokens cached before the lifetime was kept are held to the whole margin.
    public var tokenRefreshMargin: TimeInterval = 300
    /// The clock for token expiry and the ID token's times; the system clock by default. Left
    /// so, a client whose transport keeps its server's time (``ServerClockTransport``: an
    /// in-process emulated tenant) reads that time instead.
    public var clock: any NativeAuthClock = SystemClock()
    /// Whether the stored refresh token is released only after the person confirms their presence,
    /// and how long a confirmation lasts; `nil` (the default) asks nothing. See
    /// ``NativeAuthConfiguration/userPresence``.
    public var userPresence: UserPresenceRequirement?
    /// Receives the SDK's log records; `nil` (the default) logs nothing.
    public var logger: (any NativeAuthLogger)?
    /// How the client authenticates at the token, revocation and pushed authorization request
    /// endpoints: ``WebClientAuthentication/none`` (a public client, the default), or a client
    /// secret for a confidential client.
    public var clientAuthentication: WebClientAuthentication = .none
    /// Whether sign-ins push their authorization request to the provider first (RFC 9126) and
    /// open the browser with only `client_id` and `request_uri`:
    /// ``PushedAuthorizationRequestPolicy/whenAvailable`` (the default) when the provider's metadata
    /// names a `pushed_authorization_request_endpoint`, ``PushedAuthorizationRequestPolicy/required``
    /// always, ``PushedAuthorizationRequestPolicy/never`` never. A provider that requires pushed
    /// requests gets them unless this is `never`, which then fails the sign-in before the browser
    /// opens (``WebSignInError/isUnsupported``).
    public var pushedAuthorizationRequests: PushedAuthorizationRequestPolicy = .whenAvailable
    /// Run in order on every request to the provider (discovery, token, device authorization,
    /// pushed authorization request, revocation, keys) before it goes to the transport; none by default. Each may add `x-`
    /// headers or refuse the request (see ``RequestInterceptor``).
    public var requestInterceptors: [any RequestInterceptor] = []
    /// The longest the SDK waits for the transport to answer one request to the provider
    /// (discovery, keys, token, device authorization, pushed authorization request, revocation)
    /// before it reports a timeout
    /// (``WebSignInError/isNetworkError``), whatever the transport does; a cancelled task ends its
    /// request at once. `nil` (the default) means the `URLSessionTransport`'s own timeout plus 5 s,
    /// or 35 s for other transports.
    ///
    /// A value that is not finite, not positive, or longer than ten minutes is refused: the
    /// property keeps its previous value.
    public var requestTimeout: TimeInterval? = nil {
        didSet {
            if let requestTimeout, !(requestTimeout > 0 && requestTimeout <= 600) { self.requestTimeout = oldValue }
        }
    }

    /// Binds the tokens to a key the client holds (DPoP, RFC 9449): every token request and every
    /// `UserAccountResult.authorize(_:scopes:)` or ``UserAccountResult/send(_:scopes:using:)`` request
    /// carries a proof signed with the account's key, and the access token goes out as
    /// `Authorization: DPoP`. `nil` (the default) keeps bearer tokens. See Docs/DPoP.md.
    public var dpop: DPoPConfiguration? = nil

    /// The signature algorithms an ID token may be signed with: by default every one the SDK
    /// verifies (``supportedIDTokenAlgorithms``: RS256, PS256, ES256 and EdDSA). Whatever the set,
    /// the algorithm is the one of the provider's key for the token's `kid`, never the token's
    /// word alone, and `none` and HMAC are always refused. A client held to the FAPI 2.0 Security
    /// Profile sets ``fapiIDTokenAlgorithms`` (no RS256). A token signed with an algorithm outside
    /// the set fails its check (``WebSignInError/isInvalidIDToken``, ``IDTokenCheck/algorithm``).
    ///
    /// A set that is empty or names an algorithm the SDK does not verify is refused: the property
    /// keeps its previous value.
    public var idTokenAlgorithms: Set<String> = WebAuthConfiguration.supportedIDTokenAlgorithms {
        didSet {
            if idTokenAlgorithms.isEmpty || !idTokenAlgorithms.isSubset(of: Self.supportedIDTokenAlgorithms) {
                idTokenAlgorithms = oldValue
            }
        }
    }

    /// Every ID token signature algorithm the SDK verifies (RFC 7518 §3.3, §3.4, §3.5; RFC 8037).
    public static let supportedIDTokenAlgorithms: Set<String> = IDTokenValidator.supportedAlgorithms
    /// The algorithms the FAPI 2.0 Security Profile allows (§5.4): PS256, ES256 and EdDSA.
    public static let fapiIDTokenAlgorithms: Set<String> = ["PS256", "ES256", "EdDSA"]

    /// The default settings.
    public init() {}
}
