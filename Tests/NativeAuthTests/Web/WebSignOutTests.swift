import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

extension ScriptedOpenIDProvider {
    /// A provider that also publishes `revocation_endpoint` and `end_session_endpoint` (when asked
    /// to). Sign-ins get a signed ID token; refresh answers carry `refreshIDToken` (none when empty),
    /// never signed here: signing in a debug build takes long enough to slow the whole test run.
    static func signOut(
        revocationEndpoint: Bool = true, endSessionEndpoint: Bool = true, refresh: String? = "web-refresh-1",
        refreshIDToken: String = ""
    ) -> ScriptedOpenIDProvider {
        let signIn = signingIn(refresh: refresh)
        return ScriptedOpenIDProvider(
            endpoints: .standard(revocation: revocationEndpoint, endSession: endSessionEndpoint)
        ) { exchange in
            exchange.grantType == "refresh_token"
                ? answer(idToken: refreshIDToken, refresh: nil, access: "web-access-2") : signIn(exchange)
        }
    }

    var revocations: [HTTPRequest] { requests(to: "/revoke") }
    var tokenRequests: [HTTPRequest] { requests(to: "/token") }
}

/// A browser for the end-session page: records what it was shown and comes back to the
/// redirect URI with the request's `state`, another one, none, or an error, or is closed.
final class LogoutAgent: ExternalUserAgent, Sendable {
    enum Behaviour: Sendable {
        case echo
        case state(String?)
        case raw(String)
        case error(String)
        case cancel
        case fail
    }

    let behaviour: Behaviour
    let shown = Locked<[(url: URL, redirectURI: URL)]>([])

    init(_ behaviour: Behaviour = .echo) { self.behaviour = behaviour }

    var lastURL: URL? { shown.current.last?.url }

    func parameter(_ name: String) -> String? {
        guard let url = lastURL else { return nil }
        return URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }

    func authorize(url: URL, redirectURI: URL) async throws -> URL {
        shown.withLock { $0.append((url, redirectURI)) }
        let state = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "state" }?.value
        var query: String?
        switch behaviour {
        case .echo: query = state.map { "state=" + FormBody.escape($0) }
        case .state(let forged): query = forged.map { "state=" + FormBody.escape($0) }
        case .raw(let raw): query = raw.replacingOccurrences(of: "{state}", with: FormBody.escape(state ?? ""))
        case .error(let error): query = "error=\(error)&error_description=nope&state=" + FormBody.escape(state ?? "")
        case .cancel: throw ExternalUserAgentError.cancelled
        case .fail: throw ExternalUserAgentError.timedOut
        }
        return URL(string: redirectURI.absoluteString + (query.map { "?" + $0 } ?? "")) ?? redirectURI
    }
}

@Suite("Web sign-out: revocation, end session, and always a local sign-out", .hangLimit)
struct WebSignOutTests {
    let clock = TestClock()
    let store = InMemoryCredentialStore()
    static let storeKey = "nativeauth.web.\(ScriptedOpenIDProvider.issuer).web-app"
    static let postLogout = URL(string: "com.example.app:/signed-out")!

    func client(
        _ provider: ScriptedOpenIDProvider, authentication: WebClientAuthentication = .none,
        logger: (any NativeAuthLogger)? = nil
    ) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock
        configuration.clientAuthentication = authentication
        configuration.logger = logger
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider, credentialStore: store,
            configuration: configuration)
    }

    /// Signed once per run: a browser sign-in signs a token for its nonce, which takes long in a
    /// debug build, so most tests start from a stored account instead.
    static let idToken = WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: "stored"))
    static let newerIDToken = WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: "", iat: 1_800_000_100))

    func signIn(_ client: WebAuthClient, _ provider: ScriptedOpenIDProvider) async throws -> UserAccountResult {
        try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"]), using: InstantAgent(provider: provider))
    }

    /// An account as a sign-in stores it (store format version 1), restored by `client`.
    func storedAccount(_ client: WebAuthClient, refreshToken: String? = "web-refresh-1") async throws
        -> UserAccountResult
    {
        let refresh = refreshToken.map { "\"" + $0 + "\"" } ?? "null"
        let record = """
            {"accessTokens":{"":{"expiresOn":1800003600,"scopes":["offline_access"],"token":"web-access-1"}},\
            "idToken":"\(Self.idToken)","identifier":"user-1","refreshToken":\(refresh),\
            "signInScopes":["offline_access"],"username":"ada@example.com","version":1}
            """
        try await store.setData(Data(record.utf8), forKey: Self.storeKey)
        return try #require(try await client.currentAccount())
    }

    /// Checks that the account is gone: from the client, from the store, and a signedOut event came.
    func expectSignedOut(
        _ client: WebAuthClient, _ result: WebSignOutResult, events: inout AsyncStream<SessionEvent>.Iterator,
        signedIn: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(result.local.wasSignedIn, sourceLocation: sourceLocation)
        #expect(result.local.removedFromStore, sourceLocation: sourceLocation)
        #expect(try await client.currentAccount() == nil, sourceLocation: sourceLocation)
        #expect(try await store.data(forKey: Self.storeKey) == nil, sourceLocation: sourceLocation)
        if signedIn {
            guard case .signedIn? = await events.next() else { throw TestFailure("signedIn event") }
        }
        guard case .signedOut(_, .requested)? = await events.next() else { throw TestFailure("signedOut event") }
    }

    @Test func revokesTheRefreshTokenWithHTTPBasicAndSignsOutLocally() async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        let client = try client(provider, authentication: .clientSecretBasic("s3cr&t ü"))
        var events = client.sessionEvents().makeAsyncIterator()
        let account = try await signIn(client, provider)
        let result = await client.signOut(account)

        guard case .done = result.revocation else { throw TestFailure("revocation: \(result.revocation)") }
        guard case .skipped = result.endSession else { throw TestFailure("endSession: \(result.endSession)") }
        #expect(result.isComplete)
        let revocation = try #require(provider.revocations.first)
        #expect(provider.revocations.count == 1)
        #expect(revocation.method == "POST")
        #expect(ScriptedOpenIDProvider.body(revocation) == "token=web-refresh-1&token_type_hint=refresh_token")
        #expect(revocation.header("Content-Type") == "application/x-www-form-urlencoded")
        // RFC 6749 §2.3.1: id and secret form-urlencoded, then base64.
        let expected = "Basic " + Data("web-app:s3cr%26t+%C3%BC".utf8).base64EncodedString()
        #expect(revocation.header("Authorization") == expected)
        // The code exchange is authenticated the same way, without client_id in the body.
        let exchange = try #require(provider.tokenRequests.first)
        #expect(exchange.header("Authorization") == expected)
        #expect(!ScriptedOpenIDProvider.body(exchange).contains("client_id"))
        try await expectSignedOut(client, result, events: &events, signedIn: true)
    }

    @Test(arguments: [
        (WebClientAuthentication.none, "token=web-refresh-1&token_type_hint=refresh_token&client_id=web-app"),
        (
            WebClientAuthentication.clientSecretPost("p+s w"),
            "token=web-refresh-1&token_type_hint=refresh_token&client_id=web-app&client_secret=p%2Bs%20w"
        ),
    ])
    func publicAndPostClientsSendTheirIdInTheBody(authentication: WebClientAuthentication, form: String)
        async throws
    {
        let provider = ScriptedOpenIDProvider.signOut()
        let client = try client(provider, authentication: authentication)
        let account = try await storedAccount(client)
        _ = try await account.getAccessToken(forceRefresh: true)
        let result = await client.signOut(account)
        guard case .done = result.revocation else { throw TestFailure("revocation: \(result.revocation)") }
        let revocation = try #require(provider.revocations.first)
        #expect(ScriptedOpenIDProvider.body(revocation) == form)
        #expect(revocation.header("Authorization") == nil)
        // Token and refresh requests carry the same client authentication.
        for request in provider.tokenRequests {
            let body = ScriptedOpenIDProvider.body(request)
            #expect(body.contains("client_id=web-app"))
            #expect(body.contains("client_secret=") == (authentication != .none))
            #expect(request.header("Authorization") == nil)
        }
        #expect(provider.tokenRequests.count == 1)
    }

    static let refusals: [(String, @Sendable () throws -> HTTPResponse, @Sendable (WebSignInError) -> Bool)] = [
        (
            "invalid_client",
            {
                HTTPResponse(
                    statusCode: 401, headers: ["Content-Type": "application/json"],
                    body: Data(#"{"error":"invalid_client","error_description":"who are you"}"#.utf8))
            },
            { $0.isConfigurationError && $0.serverError == "invalid_client" && $0.httpStatusCode == 401 }
        ),
        ("bare 401", { HTTPResponse(statusCode: 401) }, { $0.isConfigurationError && $0.httpStatusCode == 401 }),
        (
            "unsupported_token_type",
            {
                HTTPResponse(statusCode: 400, body: Data(#"{"error":"unsupported_token_type"}"#.utf8))
            },
            { $0.isServerError && $0.serverError == "unsupported_token_type" }
        ),
        ("503", { HTTPResponse(statusCode: 503) }, { $0.isServerError && $0.httpStatusCode == 503 }),
        ("redirect", { HTTPResponse(statusCode: 302, headers: ["Location": "/x"]) }, { $0.isUnexpectedResponse }),
        ("no connection", { throw URLError(.notConnectedToInternet) }, { $0.isNetworkError }),
        // Judged by its status, whatever the size of the body.
        (
            "500 with a 2 MiB body", { HTTPResponse(statusCode: 500, body: Data(count: 2 << 20)) },
            { $0.isServerError && $0.httpStatusCode == 500 }
        ),
    ]

    @Test func aRevocationAnsweredWithAnOversizedBodyIsJudgedByItsStatus() async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        provider.revokeAnswer.withLock { $0 = { HTTPResponse(statusCode: 200, body: Data(count: 2 << 20)) } }
        let client = try client(provider)
        let result = await client.signOut(try await storedAccount(client))
        #expect(result.revocation.error == nil, "\(String(describing: result.revocation))")
    }

    @Test(arguments: refusals)
    func failedRevocationStillSignsOutLocally(
        what: String, answer: @escaping @Sendable () throws -> HTTPResponse,
        check: @Sendable (WebSignInError) -> Bool
    ) async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        provider.revokeAnswer.withLock { $0 = answer }
        let client = try client(provider)
        var events = client.sessionEvents().makeAsyncIterator()
        let account = try await storedAccount(client)
        let result = await client.signOut(account)
        let error = try #require(result.revocation.error, "\(what)")
        #expect(check(error), "\(what): \(error)")
        #expect(!result.isComplete)
        try await expectSignedOut(client, result, events: &events)
        // Nothing is left to refresh with.
        await #expect(throws: RetrieveAccessTokenError.self) {
            _ = try await account.getAccessToken(forceRefresh: true)
        }
    }

    @Test func endSessionOpensTheProviderWithHintClientRedirectAndState() async throws {
        // A refresh brings a new ID token: the newest is the hint.
        let newer = Self.newerIDToken
        let provider = ScriptedOpenIDProvider.signOut(refreshIDToken: newer)
        let client = try client(provider)
        let account = try await storedAccount(client)
        _ = try await account.getAccessToken(forceRefresh: true)

        let agent = LogoutAgent()
        let result = await client.signOut(account, endingSessionUsing: agent, postLogoutRedirectURI: Self.postLogout)
        guard case .done = result.endSession else { throw TestFailure("endSession: \(result.endSession)") }
        guard case .done = result.revocation else { throw TestFailure("revocation: \(result.revocation)") }
        #expect(result.isComplete)
        let shown = try #require(agent.shown.current.first)
        #expect(agent.shown.current.count == 1)
        #expect(shown.redirectURI == Self.postLogout)
        let components = try #require(URLComponents(url: shown.url, resolvingAgainstBaseURL: false))
        #expect(components.host == "login.example.com")
        #expect(components.path == "/logout")
        #expect(agent.parameter("tenant") == "main", "the endpoint's own query is kept")
        #expect(agent.parameter("id_token_hint") == newer)
        #expect(agent.parameter("id_token_hint") != account.idToken)
        #expect(agent.parameter("client_id") == "web-app")
        #expect(agent.parameter("post_logout_redirect_uri") == Self.postLogout.absoluteString)
        let state = try #require(agent.parameter("state"))
        #expect(state.count == 43)
        #expect(try await client.currentAccount() == nil)

        // Another sign-out uses a fresh state, and the client's redirect URI when none is given.
        let restarted = try self.client(provider)
        let again = try await storedAccount(restarted)
        let second = LogoutAgent()
        _ = await restarted.signOut(again, endingSessionUsing: second)
        #expect(second.parameter("state") != state)
        #expect(second.shown.current.first?.redirectURI.absoluteString == "com.example.app:/callback")
        #expect(second.parameter("post_logout_redirect_uri") == "com.example.app:/callback")
    }

    static let badCallbacks: [(String, LogoutAgent.Behaviour, @Sendable (WebSignInError) -> Bool)] = [
        ("another state", .state("forged"), { $0.isStateMismatch }),
        ("no state", .state(nil), { $0.isStateMismatch }),
        ("state twice", .raw("state={state}&state={state}"), { $0.isInvalidCallback }),
        ("error", .error("access_denied"), { $0.isAccessDenied && $0.serverErrorDescription == "nope" }),
        ("cancelled", .cancel, { $0.isCancelled }),
        ("agent failed", .fail, { $0.isInvalidCallback && $0.underlyingError is ExternalUserAgentError }),
    ]

    @Test(arguments: badCallbacks)
    func failedEndSessionIsReportedAndTheAccountIsGone(
        what: String, behaviour: LogoutAgent.Behaviour, check: @Sendable (WebSignInError) -> Bool
    ) async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        let client = try client(provider)
        var events = client.sessionEvents().makeAsyncIterator()
        let account = try await storedAccount(client)
        let result = await client.signOut(
            account, endingSessionUsing: LogoutAgent(behaviour), postLogoutRedirectURI: Self.postLogout)
        let error = try #require(result.endSession.error, "\(what)")
        #expect(check(error), "\(what): \(error)")
        guard case .done = result.revocation else { throw TestFailure("revocation: \(result.revocation)") }
        #expect(!result.isComplete)
        try await expectSignedOut(client, result, events: &events)
    }

    @Test func callbackToAnotherURIIsRefused() async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        let client = try client(provider)
        let account = try await storedAccount(client)
        struct Elsewhere: ExternalUserAgent {
            func authorize(url: URL, redirectURI: URL) async throws -> URL {
                URL(string: "com.example.app:/other?state=x")!
            }
        }
        let result = await client.signOut(
            account, endingSessionUsing: Elsewhere(), postLogoutRedirectURI: Self.postLogout)
        #expect(result.endSession.error?.isInvalidCallback == true)
    }

    @Test func providerWithoutEndpointsIsNotSupportedAndSignsOutLocally() async throws {
        let provider = ScriptedOpenIDProvider.signOut(revocationEndpoint: false, endSessionEndpoint: false)
        let client = try client(provider)
        var events = client.sessionEvents().makeAsyncIterator()
        let account = try await storedAccount(client)
        let agent = LogoutAgent()
        let result = await client.signOut(account, endingSessionUsing: agent)
        guard case .notSupported = result.revocation else { throw TestFailure("revocation: \(result.revocation)") }
        guard case .notSupported = result.endSession else { throw TestFailure("endSession: \(result.endSession)") }
        #expect(result.isComplete)
        #expect(agent.shown.current.isEmpty)
        #expect(provider.revocations.isEmpty)
        try await expectSignedOut(client, result, events: &events)
    }

    @Test func withoutARefreshTokenOrAnAgentNothingIsSent() async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        let client = try client(provider)
        let account = try await storedAccount(client, refreshToken: nil)
        let before = provider.requests.count
        let result = await client.signOut(account)
        guard case .skipped = result.revocation else { throw TestFailure("revocation: \(result.revocation)") }
        guard case .skipped = result.endSession else { throw TestFailure("endSession: \(result.endSession)") }
        #expect(provider.requests.count == before)
        #expect(try await client.currentAccount() == nil)
    }

    @Test func signingOutTwiceEndsTheSessionWithTheAccountsOwnIDToken() async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        let client = try client(provider)
        let account = try await storedAccount(client)
        _ = await account.signOut()
        let agent = LogoutAgent()
        let result = await client.signOut(account, endingSessionUsing: agent, postLogoutRedirectURI: Self.postLogout)
        #expect(!result.local.wasSignedIn)
        guard case .skipped = result.revocation else { throw TestFailure("revocation: \(result.revocation)") }
        guard case .done = result.endSession else { throw TestFailure("endSession: \(result.endSession)") }
        #expect(agent.parameter("id_token_hint") == account.idToken)
        #expect(provider.revocations.isEmpty)
    }

    @Test func unreachableProviderFailsBothStepsAfterTheLocalSignOut() async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        let account = try await storedAccount(try client(provider))
        // A new client on the same store: the account is restored, its provider's metadata is not cached.
        provider.discoveryFails.withLock { $0 = true }
        let restarted = try self.client(provider)
        let restored = try #require(try await restarted.currentAccount())
        #expect(restored.account.identifier == account.account.identifier)
        let agent = LogoutAgent()
        let result = await restarted.signOut(restored, endingSessionUsing: agent)
        #expect(result.revocation.error?.isDiscoveryFailed == true)
        #expect(result.endSession.error?.isDiscoveryFailed == true)
        #expect(agent.shown.current.isEmpty)
        #expect(result.local.wasSignedIn && result.local.removedFromStore)
        #expect(try await restarted.currentAccount() == nil)
    }

    @Test func accountOfAnotherClientIsSignedOutLocallyOnly() async throws {
        let provider = ScriptedOpenIDProvider.signOut()
        let first = try client(provider)
        let account = try await signIn(first, provider)
        let otherStore = InMemoryCredentialStore()
        let other = try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider, credentialStore: otherStore)
        let agent = LogoutAgent()
        let result = await other.signOut(account, endingSessionUsing: agent)
        #expect(result.local.wasSignedIn)
        #expect(result.revocation.error?.isInvalidParameters == true)
        #expect(result.endSession.error?.isInvalidParameters == true)
        #expect(provider.revocations.isEmpty)
        #expect(agent.shown.current.isEmpty)
        #expect(try await first.currentAccount() == nil)
    }

    /// A record as version 1 of the store format writes it: the ID token has always been kept with
    /// the account, so accounts stored before sign-out existed end the session with their hint.
    @Test func recordStoredByAnEarlierVersionSignsOutWithItsTokens() async throws {
        let idToken = Self.idToken
        let record = """
            {"accessTokens":{"":{"expiresOn":1800003600,"scopes":["offline_access"],\
            "token":"stored-access"}},"idToken":"\(idToken)","identifier":"user-1","refreshToken":"stored-refresh",\
            "signInScopes":["offline_access"],"username":"ada@example.com","version":1}
            """
        try await store.setData(Data(record.utf8), forKey: Self.storeKey)
        let provider = ScriptedOpenIDProvider.signOut()
        let client = try client(provider)
        let account = try #require(try await client.currentAccount())
        #expect(try await account.getAccessToken().accessToken == "stored-access")
        let agent = LogoutAgent()
        let result = await client.signOut(account, endingSessionUsing: agent, postLogoutRedirectURI: Self.postLogout)
        #expect(result.isComplete)
        #expect(ScriptedOpenIDProvider.body(provider.revocations.first).hasPrefix("token=stored-refresh&"))
        #expect(agent.parameter("id_token_hint") == idToken)
        #expect(try await store.data(forKey: Self.storeKey) == nil)
    }

    @Test func noSecretReachesALogOrADescription() async throws {
        let logger = InMemoryLogger(minimumLevel: .trace)
        let provider = ScriptedOpenIDProvider.signOut()
        let secret = "client-secret-value-7"
        let client = try client(provider, authentication: .clientSecretBasic(secret), logger: logger)
        let account = try await storedAccount(client)
        _ = try await account.getAccessToken(forceRefresh: true)
        let agent = LogoutAgent(.state("forged"))
        let result = await client.signOut(account, endingSessionUsing: agent, postLogoutRedirectURI: Self.postLogout)
        provider.revokeAnswer.withLock { $0 = { HTTPResponse(statusCode: 401) } }
        let restarted = try self.client(provider, authentication: .clientSecretBasic(secret), logger: logger)
        let again = try await storedAccount(restarted)
        let refused = await restarted.signOut(again, endingSessionUsing: LogoutAgent(.cancel))

        let state = try #require(agent.parameter("state"))
        let basic = try #require(provider.revocations.first?.header("Authorization"))
        let secrets = [secret, "web-refresh-1", "web-access-1", account.idToken, state, basic]
        var texts = logger.records.map(\.description)
        texts += [result.description, refused.description, "\(result.revocation)", "\(refused.revocation)"]
        texts += [result.endSession.error, refused.revocation.error, refused.endSession.error].compactMap { $0 }
            .flatMap { [$0.description, $0.debugDescription, $0.errorDescription ?? ""] }
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clientAuthentication = .clientSecretBasic(secret)
        var dumped = ""
        dump(configuration, to: &dumped)
        texts += [
            dumped, "\(configuration.clientAuthentication)", String(reflecting: configuration.clientAuthentication),
        ]
        for request in provider.requests {
            var requestDump = ""
            dump(request, to: &requestDump)
            texts += [requestDump, "\(request)", String(reflecting: request)]
        }
        #expect(!logger.records.isEmpty)
        #expect(logger.records.contains { $0.message == "token revocation" })
        for text in texts {
            for value in secrets {
                #expect(!text.contains(value), "a secret in: \(text.prefix(200))")
            }
        }
    }
}
