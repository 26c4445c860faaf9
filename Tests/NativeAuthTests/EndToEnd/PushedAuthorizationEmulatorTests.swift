import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A browser that does something before it runs another: waits on the tenant's clock (the user
/// took that long to open it), or loads the URL once already (a second window with the same URL).
struct HesitantAgent: ExternalUserAgent {
    let browser: EmulatedBrowser
    let clock: ManualClock
    var delay: TimeInterval = 0
    var loadsTwice = false

    func authorize(url: URL, redirectURI: URL) async throws -> URL {
        clock.advance(by: delay)
        if loadsTwice { _ = try await browser.tenant.send(HTTPRequest(method: "GET", url: url)) }
        return try await browser.authorize(url: url, redirectURI: redirectURI)
    }
}

@Suite("Pushed authorization requests end to end on the emulator", .hangLimit)
struct PushedAuthorizationEmulatorTests {
    static let redirect = URL(string: "msauth.com.example.app://auth")!
    let harness = EmulatorHarness(
        users: EmulatorHarness.defaultUsers + [
            EmulatedUser(username: "bo@example.com", password: EmulatorHarness.password, requiresBrowser: true)
        ])

    var tenant: EmulatedTenant { harness.tenant }
    var browser: EmulatedBrowser { EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password) }
    var paths: [String] { tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    func webClient(
        _ mode: EmulatorSettings.PushedAuthorizationRequests, policy: PushedAuthorizationRequestPolicy = .whenAvailable
    ) throws -> WebAuthClient {
        tenant.configure { $0.pushedAuthorizationRequests = mode }
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = harness.clock
        configuration.pushedAuthorizationRequests = policy
        return try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: Self.redirect, transport: tenant,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
    }

    @Test func aWebClientPushesSignsInAndRefreshes() async throws {
        let client = try webClient(.offered)
        var parameters = WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com")
        parameters.uiLocales = ["en"]
        let account = try await client.signIn(parameters, using: browser)
        #expect(account.account.username == "ada@example.com")
        let base = "/\(tenant.tenantId)"
        #expect(
            paths == [
                "GET \(base)/v2.0/.well-known/openid-configuration", "POST \(base)/oauth2/v2.0/par",
                "GET \(base)/oauth2/v2.0/authorize", "POST \(base)/login", "POST \(base)/oauth2/v2.0/token",
                "GET \(base)/discovery/v2.0/keys",
            ])
        let authorize = try #require(tenant.receivedRequests.first { $0.url.path.hasSuffix("/authorize") })
        let names = URLComponents(url: authorize.url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name)
        #expect(names == ["client_id", "request_uri"])
        let push = try #require(tenant.receivedRequests.first { $0.url.path.hasSuffix("/par") })
        let body = String(decoding: push.body ?? Data(), as: UTF8.self)
        #expect(body.contains("login_hint=ada%40example.com") && body.contains("code_challenge_method=S256"))
        harness.clock.advance(by: 3600)
        let token = try await account.getAccessToken()
        #expect(!token.accessToken.isEmpty)
    }

    @Test func whatEachPolicyDoesAtATenantThatRequiresPushes() async throws {
        do {
            _ = try await webClient(.required, policy: .never).signIn(WebSignInParameters(), using: browser)
            Issue.record("expected a refusal")
        } catch let error as WebSignInError {
            #expect(error.isUnsupported, "\(error)")
        }
        #expect(!paths.contains { $0.hasSuffix("/authorize") || $0.hasSuffix("/par") }, "\(paths)")
        let account = try await webClient(.required, policy: .required).signIn(
            WebSignInParameters(loginHint: "ada@example.com"), using: browser)
        #expect(account.account.username == "ada@example.com")
        do {
            _ = try await webClient(.off, policy: .required).signIn(WebSignInParameters(), using: browser)
            Issue.record("expected a refusal")
        } catch let error as WebSignInError {
            #expect(error.isUnsupported, "\(error)")
        }
    }

    @Test func theNativeClientsBrowserFallbackPushesToo() async throws {
        tenant.configure { $0.pushedAuthorizationRequests = .required }
        let error = try await #require(throws: SignInStartError.self) {
            try await harness.client.signIn(SignInParameters(username: "bo@example.com"))
        }
        #expect(error.isBrowserRequired)
        let account = try await error.continueInBrowser(redirectURI: Self.redirect, using: browser)
        #expect(account.account.username == "bo@example.com")
        #expect(paths.contains("POST /\(tenant.tenantId)/oauth2/v2.0/par"))
    }

    @Test(
        "a request_uri the tenant no longer takes (expired, or used) is isExpired, and nothing is stored",
        arguments: [HesitantAgentKind.late, .loadedTwice])
    func aRequestURITheTenantNoLongerTakes(kind: HesitantAgentKind) async throws {
        let client = try webClient(.offered)
        let agent = HesitantAgent(
            browser: browser, clock: harness.clock, delay: kind == .late ? 60 : 0, loadsTwice: kind == .loadedTwice)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: agent)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isExpired && error.isServerError, "\(error)")
            #expect(error.serverError == "invalid_request_uri")
            #expect(error.serverErrorDescription?.contains(kind == .late ? "expired" : "already used") == true)
        }
        #expect(!paths.contains { $0.hasSuffix("/token") }, "no code, no exchange")
        #expect(try await client.currentAccount() == nil)
    }

    enum HesitantAgentKind: String, Sendable, CustomTestStringConvertible {
        case late, loadedTwice
        var testDescription: String { rawValue }
    }
}
