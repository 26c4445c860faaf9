import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// The cookie browser of the test server, keeping every URL it was shown and every callback it
/// came back with.
final class RecordingCookieAgent: ExternalUserAgent, Sendable {
    let browser: CookieBrowserAgent
    private let seen = Locked<(shown: [URL], callbacks: [URL])>(([], []))

    init(cookie: String) { browser = CookieBrowserAgent(cookie: cookie) }

    var shown: [URL] { seen.current.shown }
    var callbacks: [URL] { seen.current.callbacks }

    func authorize(url: URL, redirectURI: URL) async throws -> URL {
        seen.withLock { $0.shown.append(url) }
        let callback = try await browser.authorize(url: url, redirectURI: redirectURI)
        seen.withLock { $0.callbacks.append(callback) }
        return callback
    }
}

/// Pushed authorization requests (RFC 9126) against the real server. Tests/OIDCServer/setup.py
/// runs a second instance of its OpenID Connect plugin at `{server}/api/oidc-par` with
/// `oauth-par-allowed`, `oauth-par-required` (so `require_pushed_authorization_requests: true`),
/// `oauth-par-duration` 90 s and `oauth-par-request_uri-prefix` `urn:ietf:params:oauth:request_uri:`;
/// the first instance keeps PAR off, so the other live suites run as before.
///
/// Known glewlwyd 2.7.5 behaviour these tests pin down:
/// - every refusal at its PAR endpoint (a missing PKCE challenge, a wrong client secret, an unknown
///   client) is a bare `403` with no body, where RFC 9126 §2.3 has `400`/`401` with an OAuth error:
///   the SDK reports it as `isConfigurationError` with the status;
/// - it reads `login_hint`, `prompt`, `max_age`, `display` and `ui_locales` of a pushed request as
///   unknown extra parameters: it does not apply them, and copies them into the redirect back to the
///   app (`…/callback?state=…&login_hint=…&code=…`), which the SDK ignores;
/// - a `request_uri` may be used again until the sign-in it started is complete (RFC 9126 §4
///   allows it, for a reloaded page); then, like an unknown one, another client's, or a request
///   without one, the authorization endpoint answers with a `403` page and does not redirect.
@Suite(
    "Pushed authorization requests against a real OpenID Connect server (glewlwyd)",
    .enabled(if: OIDCServerEnvironment.issuer != nil, OIDCServerEnvironment.skipReason),
    .serialized, .oidcServerExclusive, .hangLimit)
struct OIDCServerPushedAuthorizationTests {
    let login = OIDCTestLogin(issuer: OIDCServerEnvironment.issuer ?? URL(fileURLWithPath: "/"))
    /// The issuer of the plugin instance that requires pushed requests.
    var parIssuer: URL { login.api.appendingPathComponent("oidc-par") }

    func client(
        issuer: URL, clientId: String = OIDCTestLogin.clientId, store: InMemoryCredentialStore = .init(),
        policy: PushedAuthorizationRequestPolicy = .whenAvailable, authentication: WebClientAuthentication = .none
    ) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.pushedAuthorizationRequests = policy
        configuration.clientAuthentication = authentication
        return try WebAuthClient(
            issuer: issuer, clientId: clientId, redirectURI: OIDCTestLogin.redirectURI,
            transport: URLSessionTransport(timeout: TestBounds.requestDeadline), credentialStore: store,
            configuration: configuration)
    }

    @Test func discoveryNamesTheEndpointAndTheRequirementOnlyWhereTheyAreOn() async throws {
        let par = try await ProviderDiscovery(issuer: parIssuer, transport: login.transport).metadata()
        #expect(par.pushedAuthorizationRequestEndpoint?.absoluteString == parIssuer.absoluteString + "/par")
        #expect(par.requirePushedAuthorizationRequests)
        let plain = try await login.metadata()
        #expect(plain.pushedAuthorizationRequestEndpoint == nil)
        #expect(!plain.requirePushedAuthorizationRequests)
    }

    @Test func aPublicClientPushesSignsInAndRefreshes() async throws {
        let store = InMemoryCredentialStore()
        let client = try client(issuer: parIssuer, store: store)
        let agent = RecordingCookieAgent(cookie: try await login.sessionCookie())
        var parameters = WebSignInParameters(scopes: OIDCTestLogin.scopes, loginHint: "alice")
        parameters.extraParameters = ["ui_theme": "dark"]
        let account = try await client.signIn(parameters, using: agent)
        #expect(account.account.claims.string("iss") == parIssuer.absoluteString)
        #expect(account.account.claims.subject?.isEmpty == false)

        // The browser was shown client_id and a request_uri of the server's form, nothing else.
        let shown = try #require(agent.shown.first)
        #expect(shown.path == parIssuer.path + "/auth")
        let items = URLComponents(url: shown, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.map(\.name) == ["client_id", "request_uri"])
        #expect(items.first?.value == OIDCTestLogin.clientId)
        #expect(items.last?.value?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)
        // The server's quirk: pushed extra parameters come back in the redirect, which the SDK ignores.
        let callback = try #require(agent.callbacks.first)
        #expect(callback.query?.contains("login_hint=alice") == true, "\(callback)")

        let refreshed = try await account.getAccessToken(forceRefresh: true)
        #expect(!refreshed.accessToken.isEmpty)
        #expect(try await login.storedRefreshToken(store, parIssuer) != nil)
    }

    @Test(
        "a confidential client authenticates its push",
        arguments: [WebClientAuthentication.clientSecretBasic("conf-secret"), .clientSecretPost("conf-secret")])
    func aConfidentialClientPushes(authentication: WebClientAuthentication) async throws {
        let client = try client(issuer: parIssuer, clientId: "conf-app", authentication: authentication)
        let agent = RecordingCookieAgent(cookie: try await login.sessionCookie(consentingFor: "conf-app"))
        let account = try await client.signIn(WebSignInParameters(scopes: OIDCTestLogin.scopes), using: agent)
        #expect(account.account.claims.string("aud") == "conf-app")
        #expect(agent.shown.count == 1)
        #expect(agent.shown.first?.absoluteString.contains("conf-secret") == false)
    }

    @Test func aWrongSecretIsRefusedAtThePushWithNothingStored() async throws {
        let store = InMemoryCredentialStore()
        let client = try client(
            issuer: parIssuer, clientId: "conf-app", store: store, authentication: .clientSecretBasic("wrong-secret"))
        let agent = RecordingCookieAgent(cookie: try await login.sessionCookie(consentingFor: "conf-app"))
        do {
            _ = try await client.signIn(WebSignInParameters(scopes: OIDCTestLogin.scopes), using: agent)
            Issue.record("a wrong secret was accepted")
        } catch {
            #expect(error.isConfigurationError, "\(error)")
            #expect(error.httpStatusCode == 403, "glewlwyd refuses with a bare 403")
            #expect(!error.description.contains("wrong-secret"))
        }
        #expect(agent.shown.isEmpty)
        #expect(try await client.currentAccount() == nil)
    }

    @Test func neverPushingAgainstTheServerThatRequiresItFailsBeforeTheBrowser() async throws {
        let client = try client(issuer: parIssuer, policy: .never)
        let agent = RecordingCookieAgent(cookie: try await login.sessionCookie())
        do {
            _ = try await client.signIn(WebSignInParameters(scopes: OIDCTestLogin.scopes), using: agent)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isUnsupported, "\(error)")
        }
        #expect(agent.shown.isEmpty)
        // The server would have refused it: a request in the URL gets its bare 403.
        let metadata = try await ProviderDiscovery(issuer: parIssuer, transport: login.transport).metadata()
        let plain = try AuthorizationRequest(
            metadata: metadata, clientId: OIDCTestLogin.clientId, redirectURI: OIDCTestLogin.redirectURI,
            parameters: WebSignInParameters(scopes: OIDCTestLogin.scopes, extraParameters: ["g_continue": ""]))
        let answer = try await login.transport.send(
            HTTPRequest(method: "GET", url: plain.url, headers: ["Cookie": try await login.sessionCookie()]))
        #expect(answer.statusCode == 403)
    }

    @Test func requiringPushesAtTheServerWithoutThemFailsBeforeTheBrowser() async throws {
        let client = try client(issuer: login.issuer, policy: .required)
        let agent = RecordingCookieAgent(cookie: try await login.sessionCookie())
        do {
            _ = try await client.signIn(WebSignInParameters(scopes: OIDCTestLogin.scopes), using: agent)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isUnsupported, "\(error)")
        }
        #expect(agent.shown.isEmpty)
        // The default policy signs in there as before, with the parameters in the URL.
        let account = try await self.client(issuer: login.issuer).signIn(
            WebSignInParameters(scopes: OIDCTestLogin.scopes), using: agent)
        #expect(account.account.claims.string("iss") == login.issuer.absoluteString)
        #expect(agent.shown.first?.query?.contains("code_challenge=") == true)
    }

    @Test func aRequestURIOfACompletedSignInIsNotAcceptedAgain() async throws {
        let client = try client(issuer: parIssuer)
        let cookie = try await login.sessionCookie()
        let agent = RecordingCookieAgent(cookie: cookie)
        _ = try await client.signIn(WebSignInParameters(scopes: OIDCTestLogin.scopes), using: agent)
        let used = try #require(agent.shown.first)
        do {
            _ = try await agent.browser.authorize(url: used, redirectURI: OIDCTestLogin.redirectURI)
            Issue.record("a used request_uri was accepted")
        } catch {
            #expect((error as? URLError)?.code == .badServerResponse, "the server stays on its 403 page")
        }
    }
}

extension OIDCTestLogin {
    /// The refresh token stored for native-app's account of `issuer`.
    func storedRefreshToken(_ store: InMemoryCredentialStore, _ issuer: URL) async throws -> String? {
        let key = "nativeauth.web.\(issuer.absoluteString).\(Self.clientId)"
        let data = try #require(try await store.data(forKey: key))
        return try JSONValue.parse(data)["refreshToken"]?.stringValue
    }
}
