import AuthCrypto
import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// What a scripted provider's metadata says of pushed authorization requests (RFC 9126 §5).
enum PARMetadata: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// No `pushed_authorization_request_endpoint`.
    case none
    /// The endpoint, not required.
    case offered
    /// The endpoint and `require_pushed_authorization_requests: true`.
    case required
    /// `require_pushed_authorization_requests: true` and no endpoint: a provider that cannot be used.
    case requiredWithoutEndpoint

    var testDescription: String { rawValue }

    func provider(tokenAnswer: @escaping @Sendable (ScriptedOpenIDProvider.TokenExchange) -> HTTPResponse?)
        -> ScriptedOpenIDProvider
    {
        let endpoint = self == .offered || self == .required
        let required = self == .required || self == .requiredWithoutEndpoint
        return ScriptedOpenIDProvider(
            endpoints: .standard(par: endpoint),
            extraDiscovery: required ? #""require_pushed_authorization_requests":true"# : "",
            tokenAnswer: tokenAnswer)
    }
}

/// A client of the scripted provider with `policy` and `authentication`.
struct PARClient {
    let clock = TestClock()
    let store = InMemoryCredentialStore()
    let logger = InMemoryLogger(minimumLevel: .trace)

    func make(
        _ provider: any HTTPTransport, policy: PushedAuthorizationRequestPolicy = .whenAvailable,
        authentication: WebClientAuthentication = .none, timeout: TimeInterval? = nil
    ) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock
        configuration.logger = logger
        configuration.clientAuthentication = authentication
        configuration.pushedAuthorizationRequests = policy
        configuration.requestTimeout = timeout
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider, credentialStore: store,
            configuration: configuration)
    }

    /// Nothing was stored for the client.
    func storesNothing() async throws -> Bool {
        try await store.data(forKey: "nativeauth.web.\(ScriptedOpenIDProvider.issuer).web-app") == nil
    }
}

/// The query items of `url`, as (name, value) pairs in order.
func queryPairs(_ url: URL?) -> [String] {
    (url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []).map {
        "\($0.name)=\($0.value ?? "")"
    }
}

/// The fields of a form body, decoded, by name (the last value of a name wins).
func formFields(_ body: String) -> [String: String] {
    var components = URLComponents()
    components.percentEncodedQuery = body
    return Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { _, last in last }
}

@Suite("Web sign-in: pushed authorization requests (RFC 9126)", .hangLimit)
struct PushedAuthorizationTests {
    let harness = PARClient()

    /// What a policy does against each kind of metadata: push, put the parameters in the URL, or
    /// fail (with which question) before the browser opens.
    enum Outcome: Equatable {
        case pushed, inURL, unsupported
    }

    static let table: [(PushedAuthorizationRequestPolicy, PARMetadata, Outcome)] = [
        (.never, .none, .inURL), (.never, .offered, .inURL), (.never, .required, .unsupported),
        (.never, .requiredWithoutEndpoint, .unsupported),
        (.whenAvailable, .none, .inURL), (.whenAvailable, .offered, .pushed), (.whenAvailable, .required, .pushed),
        (.whenAvailable, .requiredWithoutEndpoint, .unsupported),
        (.required, .none, .unsupported), (.required, .offered, .pushed), (.required, .required, .pushed),
        (.required, .requiredWithoutEndpoint, .unsupported),
    ]

    @Test("each setting against each kind of metadata", arguments: table)
    func policyAgainstMetadata(policy: PushedAuthorizationRequestPolicy, metadata: PARMetadata, outcome: Outcome)
        async throws
    {
        let provider = metadata.provider(tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let client = try harness.make(provider, policy: policy)
        let agent = InstantAgent(provider: provider)
        do {
            let account = try await client.signIn(WebSignInParameters(scopes: ["offline_access"]), using: agent)
            #expect(outcome == .pushed || outcome == .inURL, "\(policy) against \(metadata) signed in")
            #expect(account.account.username == "ada@example.com")
        } catch {
            switch outcome {
            case .unsupported: #expect(error.isUnsupported, "\(error)")
            case .pushed, .inURL: Issue.record("\(policy) against \(metadata): \(error)")
            }
            #expect(!error.isServerError, "the provider said nothing: the client refused")
            #expect(agent.shownURLs.isEmpty, "no browser")
            #expect(provider.count("/token") == 0)
            #expect(try await harness.storesNothing())
        }
        #expect(provider.count("/par") == (outcome == .pushed ? 1 : 0))
        if outcome == .inURL {
            let shown = try #require(agent.shownURLs.first)
            #expect(queryPairs(shown).contains { $0.hasPrefix("code_challenge=") })
            #expect(!queryPairs(shown).contains { $0.hasPrefix("request_uri=") })
        }
    }

    @Test func thePushedBodyHoldsEveryParameterAndTheBrowserOnlyClientIdAndRequestURI() async throws {
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let client = try harness.make(provider)
        let agent = InstantAgent(provider: provider)
        var parameters = WebSignInParameters(scopes: ["offline_access", "api.read"], loginHint: "ada@example.com")
        parameters.prompt = .login
        parameters.acrValues = ["urn:mace:incommon:iap:silver"]
        parameters.uiLocales = ["fr-CA", "en"]
        parameters.audience = "https://api.example.com"
        parameters.resource = [URL(string: "https://api.example.com/v1")!]
        parameters.extraParameters = ["domain_hint": "example.com", "tenant": "main & co"]
        let correlationId = UUID()
        parameters.correlationId = correlationId
        _ = try await client.signIn(parameters, using: agent)

        let push = try #require(provider.requests(to: "/par").first)
        #expect(push.method == "POST")
        #expect(push.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(push.header("client-request-id") == correlationId.uuidString.lowercased())
        #expect(push.header("Authorization") == nil, "a public client sends no credentials")
        let body = ScriptedOpenIDProvider.body(push)
        let fields = formFields(body)
        #expect(fields["response_type"] == "code")
        #expect(fields["client_id"] == "web-app")
        #expect(fields["redirect_uri"] == "com.example.app:/callback")
        #expect(fields["scope"] == "openid offline_access api.read")
        #expect(fields["code_challenge_method"] == "S256")
        #expect(fields["login_hint"] == "ada@example.com")
        #expect(fields["prompt"] == "login")
        #expect(fields["acr_values"] == "urn:mace:incommon:iap:silver")
        #expect(fields["ui_locales"] == "fr-CA en")
        #expect(fields["audience"] == "https://api.example.com")
        #expect(fields["resource"] == "https://api.example.com/v1")
        #expect(fields["domain_hint"] == "example.com")
        #expect(fields["tenant"] == "main & co")
        for name in ["state", "nonce", "code_challenge"] { #expect(fields[name]?.isEmpty == false, "\(name)") }
        #expect(fields["client-request-id"] == nil, "the correlation id goes as a header")
        #expect(fields["client_secret"] == nil && fields["request_uri"] == nil)

        // The browser gets the authorization endpoint with client_id and the request_uri, nothing else.
        let shown = try #require(agent.shownURLs.first)
        #expect(shown.path == "/authorize" && shown.host == "login.example.com")
        #expect(queryPairs(shown) == ["client_id=web-app", "request_uri=urn:ietf:params:oauth:request_uri:pushed-1"])

        // The code exchange proves the pushed PKCE challenge: its verifier hashes to it.
        let exchange = formFields(try #require(provider.forms(to: "/token").first))
        let verifier = try #require(exchange["code_verifier"])
        #expect(Base64URL.encode(Data(SHA256.hash(Array(verifier.utf8)))) == fields["code_challenge"])
        #expect(exchange["redirect_uri"] == "com.example.app:/callback")

        // The log names the fields it pushed, never their one-time values.
        let logs = harness.logger.records.map(\.description).joined(separator: "\n")
        #expect(logs.contains("pushed authorization request") && logs.contains("code_challenge"))
        for value in [fields["state"], fields["nonce"], verifier].compactMap(\.self) {
            #expect(!logs.contains(value))
        }
    }

    @Test func anAuthorizationEndpointWithAQueryKeepsItAndAnyRequestURIStringIsUsed() async throws {
        var endpoints = ScriptedOpenIDProvider.Endpoints.standard(par: true)
        endpoints.authorization = ScriptedOpenIDProvider.issuer + "/authorize?tenant=main"
        let provider = ScriptedOpenIDProvider(endpoints: endpoints, tokenAnswer: ScriptedOpenIDProvider.signingIn())
        // Not a URN, with characters a query must escape: RFC 9126 leaves the form to the provider.
        provider.parAnswer.withLock { $0 = provider.pushing(requestURI: { "https://login.example.com/r/\($0)?a=b&c" }) }
        let agent = InstantAgent(provider: provider)
        _ = try await harness.make(provider, policy: .required).signIn(WebSignInParameters(), using: agent)
        let shown = try #require(agent.shownURLs.first)
        #expect(
            queryPairs(shown) == [
                "tenant=main", "client_id=web-app", "request_uri=https://login.example.com/r/1?a=b&c",
            ])
        #expect(shown.absoluteString.contains("request_uri=https%3A%2F%2Flogin.example.com%2Fr%2F1%3Fa%3Db%26c"))
    }

    @Test(
        "a confidential client authenticates its push as it does at the token endpoint",
        arguments: [WebClientAuthentication.clientSecretBasic("par secret:1"), .clientSecretPost("par secret:1")])
    func confidentialClient(authentication: WebClientAuthentication) async throws {
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let agent = InstantAgent(provider: provider)
        _ = try await harness.make(provider, authentication: authentication).signIn(
            WebSignInParameters(), using: agent)
        let push = try #require(provider.requests(to: "/par").first)
        let token = try #require(provider.requests(to: "/token").first)
        let fields = formFields(ScriptedOpenIDProvider.body(push))
        #expect(fields["client_id"] == "web-app", "the authorization request names its client")
        switch authentication {
        case .clientSecretBasic:
            let expected = "Basic " + Data("web-app:par+secret%3A1".utf8).base64EncodedString()
            #expect(push.header("Authorization") == expected)
            #expect(token.header("Authorization") == expected)
            #expect(fields["client_secret"] == nil)
        default:
            #expect(push.header("Authorization") == nil)
            #expect(fields["client_secret"] == "par secret:1")
        }
        let shown = try #require(agent.shownURLs.first)
        #expect(!shown.absoluteString.contains("secret"), "the secret never reaches the browser")
        let logs = harness.logger.records.map(\.description).joined(separator: "\n")
        #expect(logs.contains("pushed authorization request") && logs.contains(authentication.methodName))
        #expect(!logs.contains("par secret") && !logs.contains("par+secret"))
    }

    @Test func theCallbackIsCheckedAsEverAndEachSignInPushesAFreshRequest() async throws {
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let client = try harness.make(provider)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider, state: "forged"))
            Issue.record("expected a state mismatch")
        } catch {
            #expect(error.isStateMismatch)
        }
        #expect(provider.count("/token") == 0)
        #expect(try await harness.storesNothing())
        // A nonce other than the pushed one is refused in the ID token.
        provider.tokenAnswer.withLock {
            $0 = { _ in
                ScriptedOpenIDProvider.answer(
                    idToken: WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: "another-nonce")))
            }
        }
        do {
            _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
            Issue.record("expected a nonce refusal")
        } catch {
            #expect(error.failedIDTokenCheck == .nonce)
        }
        provider.tokenAnswer.withLock { $0 = ScriptedOpenIDProvider.signingIn() }
        let agent = InstantAgent(provider: provider)
        _ = try await client.signIn(WebSignInParameters(), using: agent)
        let states = provider.forms(to: "/par").compactMap { formFields($0)["state"] }
        #expect(states.count == 3 && Set(states).count == 3, "a fresh state with each push")
        #expect(agent.values("request_uri") == ["urn:ietf:params:oauth:request_uri:pushed-3"])
    }

    @Test func interceptorsSeeThePushAndARefusalNamesItsEndpoint() async throws {
        struct Refusing: RequestInterceptor {
            let seen: LockedValue<[String]>
            func intercept(_ request: inout InterceptedRequest) async throws {
                seen.withLock { $0.append(request.endpoint.name) }
                if request.endpoint == .pushedAuthorizationRequest { throw URLError(.userAuthenticationRequired) }
            }
        }
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let seen = LockedValue<[String]>([])
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.requestInterceptors = [Refusing(seen: seen)]
        let client = try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: harness.store, configuration: configuration)
        let agent = InstantAgent(provider: provider)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: agent)
            Issue.record("expected the interceptor's refusal")
        } catch {
            #expect(error.isNetworkError)
            #expect(error.endpoint == .pushedAuthorizationRequest)
            #expect(error.description.contains("endpoint=pushed_authorization_request"))
        }
        #expect(seen.current == ["discovery", "pushed_authorization_request"])
        #expect(agent.shownURLs.isEmpty && provider.count("/par") == 0)
    }

    @Test func discoveryReadsTheMetadataAndRefusesAnInsecureEndpointOrAWrongType() async throws {
        let base = ScriptedOpenIDProvider.issuer
        let members = [
            #""pushed_authorization_request_endpoint":"\#(base)/par","require_pushed_authorization_requests":true"#,
            #""pushed_authorization_request_endpoint":"http://login.example.com/par""#,
            #""require_pushed_authorization_requests":"true""#,
        ]
        var outcomes: [String] = []
        for extra in members {
            let provider = ScriptedOpenIDProvider(extraDiscovery: extra)
            do {
                let metadata = try await ProviderDiscovery(issuer: URL(string: base)!, transport: provider).metadata()
                #expect(metadata.pushedAuthorizationRequestEndpoint?.absoluteString == base + "/par")
                #expect(metadata.requirePushedAuthorizationRequests)
                outcomes.append("read")
            } catch {
                #expect(error.isDiscoveryFailed)
                outcomes.append(
                    error.description.contains("pushed_authorization_request_endpoint") ? "insecure" : "type")
            }
        }
        #expect(outcomes == ["read", "insecure", "type"])
        let plain = try await ProviderDiscovery(
            issuer: URL(string: base)!, transport: ScriptedOpenIDProvider()
        ).metadata()
        #expect(plain.pushedAuthorizationRequestEndpoint == nil && !plain.requirePushedAuthorizationRequests)
    }
}
