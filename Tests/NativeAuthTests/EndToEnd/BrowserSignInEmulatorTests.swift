import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// An agent that runs another, then lets the tenant's clock run past the code's lifetime before
/// handing the callback back.
struct SlowAgent: ExternalUserAgent {
    let browser: EmulatedBrowser
    let clock: ManualClock
    let delay: TimeInterval

    func authorize(url: URL, redirectURI: URL) async throws -> URL {
        let callback = try await browser.authorize(url: url, redirectURI: redirectURI)
        clock.advance(by: delay)
        return callback
    }
}

@Suite("Browser sign-in end to end on the emulator", .hangLimit)
struct BrowserSignInEmulatorTests {
    static let redirect = URL(string: "msauth.com.example.app://auth")!
    static let browserUser = "bo@example.com"

    let harness = EmulatorHarness(
        users: EmulatorHarness.defaultUsers + [
            EmulatedUser(
                username: BrowserSignInEmulatorTests.browserUser, password: EmulatorHarness.password,
                attributes: ["displayName": "Bo Browser"], requiresBrowser: true)
        ])

    var browser: EmulatedBrowser { EmulatedBrowser(tenant: harness.tenant, password: EmulatorHarness.password) }

    /// The native sign-in of the browser-only user, which must say the browser is required.
    func browserRequired() async throws -> SignInStartError {
        let error = try await #require(throws: SignInStartError.self) {
            try await harness.client.signIn(
                SignInParameters(username: Self.browserUser, scopes: ["api://contoso/read"]))
        }
        #expect(error.isBrowserRequired)
        return error
    }

    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    @Test func aBrowserRequiredUserContinuesInTheBrowserAndThenLivesLikeANativeAccount() async throws {
        let tenant = harness.tenant
        let error = try await browserRequired()
        let account = try await error.continueInBrowser(redirectURI: Self.redirect, using: browser)
        #expect(account.account.username == Self.browserUser)
        #expect(account.account.claims.preferredUsername == Self.browserUser)
        #expect(account.account.claims.tenantId == tenant.tenantId)
        #expect(account.account.claims.string("name") == "Bo Browser")
        let base = "/\(tenant.tenantId)"
        // Native initiate, then discovery at `{authority}/v2.0`, the page, the code exchange, and the
        // keys the signed ID token was checked with.
        #expect(
            paths == [
                "POST /contoso.onmicrosoft.com/oauth2/v2.0/initiate",
                "GET /contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration",
                "GET \(base)/oauth2/v2.0/authorize", "POST \(base)/login", "POST \(base)/oauth2/v2.0/token",
                "GET \(base)/discovery/v2.0/keys",
            ])
        // The browser asked for what a native sign-in asks for, so the account can refresh.
        let authorize = try #require(tenant.receivedRequests.first { $0.url.path.hasSuffix("/oauth2/v2.0/authorize") })
        let scope = URLComponents(url: authorize.url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "scope" }?.value
        #expect(scope == "openid api://contoso/read profile offline_access")
        #expect(authorize.url.query?.contains("login_hint=bo%40example.com") == true)

        // At the next launch a new client on the same store restores it with no request.
        let requests = tenant.receivedRequests.count
        let restored = try #require(try await harness.makeClient().currentAccount())
        #expect(restored.account == account.account)
        #expect(tenant.receivedRequests.count == requests)

        // It refreshes natively at the tenant's token endpoint, when forced and when expired.
        let first = try await restored.getAccessToken()
        #expect(tenant.receivedRequests.count == requests, "the first access token is cached")
        let forced = try await restored.getAccessToken(forceRefresh: true)
        #expect(forced.accessToken != first.accessToken)
        let refresh = try #require(tenant.receivedRequests.last)
        #expect(refresh.url == tenant.url(for: .token))
        #expect(formFields(refresh).contains("grant_type=refresh_token"))
        harness.clock.advance(by: 3600)
        let later = try await restored.getAccessToken()
        #expect(later.accessToken != forced.accessToken)
        #expect(later.expiresOn == harness.clock.now().addingTimeInterval(3600))
        // The access token works at the tenant's protected resource.
        let me = try await tenant.send(
            HTTPRequest(
                method: "GET", url: tenant.url(for: .resource),
                headers: ["Authorization": "Bearer \(later.accessToken)"]))
        #expect(me.statusCode == 200)

        // And it signs out like a native account.
        #expect(await restored.signOut().removedFromStore)
        #expect(try await harness.makeClient().currentAccount() == nil)

        // Nothing secret reached the log: passwords, codes, tokens, the authorization code.
        let codes = tenant.receivedRequests.flatMap { request in
            formFields(request).filter { $0.hasPrefix("code=") || $0.hasPrefix("code_verifier=") }
                .map { String($0.split(separator: "=", maxSplits: 1)[1]) }
        }
        let secrets = harness.secretsSeen(extra: codes).filter { $0.count >= 6 }
        let logs = harness.logger.records.map(\.description).joined(separator: "\n")
        for secret in secrets { #expect(!logs.contains(secret), "a secret reached the log") }
    }

    @Test func webAuthClientSignsInAndRefreshesAtTheEmulatorsIssuer() async throws {
        let tenant = harness.tenant
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = harness.clock
        let store = InMemoryCredentialStore()
        func client() throws -> WebAuthClient {
            try WebAuthClient(
                issuer: tenant.issuer, clientId: tenant.clientId,
                redirectURI: URL(string: "http://127.0.0.1:53124/callback")!, transport: tenant, credentialStore: store,
                configuration: configuration)
        }
        let account = try await client().signIn(
            WebSignInParameters(scopes: ["offline_access", "api://contoso/read"], loginHint: "ada@example.com"),
            using: browser)
        #expect(account.account.username == "ada@example.com")
        #expect(account.account.claims.string("name") == "Ada Lovelace")
        let first = try await account.getAccessToken()
        // A refresh's ID token is signed too, and the web client checks it (same sub).
        let forced = try await account.getAccessToken(forceRefresh: true)
        #expect(forced.accessToken != first.accessToken)
        harness.clock.advance(by: 3601)
        let restored = try #require(try await client().currentAccount())
        let later = try await restored.getAccessToken()
        #expect(later.accessToken != forced.accessToken)
        let refreshes = tenant.receivedRequests.filter {
            $0.url.path.hasSuffix("/oauth2/v2.0/token") && formFields($0).contains("grant_type=refresh_token")
        }
        #expect(refreshes.count == 2)
        #expect(refreshes.allSatisfy { $0.url.path.hasPrefix("/\(tenant.tenantId)/") })
    }

    @Test func theIDTokenSignatureIsReallyChecked() async throws {
        let tenant = harness.tenant
        // The same key id with another key: the signature no longer verifies.
        let keys = try await tenant.send(HTTPRequest(method: "GET", url: tenant.url(for: .keys)))
        let kid = try #require(try JSONWebKeySet(json: keys.body).keys.first?.keyID)
        tenant.force(
            .raw(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Data(WebTestSigner.jwks(kid: kid).utf8)),
            on: .keys, times: 2)
        let error = try await browserRequired()
        let refused = try await #require(throws: WebSignInError.self) {
            try await error.continueInBrowser(redirectURI: Self.redirect, using: browser)
        }
        #expect(refused.failedIDTokenCheck == .signature)
        #expect(try await harness.client.currentAccount() == nil)
    }

    @Test func anExpiredCodeIsRefusedAndNothingIsStored() async throws {
        let error = try await browserRequired()
        let slow = SlowAgent(browser: browser, clock: harness.clock, delay: 601)
        let refused = try await #require(throws: WebSignInError.self) {
            try await error.continueInBrowser(redirectURI: Self.redirect, using: slow)
        }
        #expect(refused.isInvalidGrant)
        #expect(refused.serverError == "invalid_grant")
        #expect(try await harness.client.currentAccount() == nil)
    }

    @Test func cancellingClosingAndAWrongPasswordAreTyped() async throws {
        let error = try await browserRequired()
        let denied = try await #require(throws: WebSignInError.self) {
            try await error.continueInBrowser(
                redirectURI: Self.redirect, using: EmulatedBrowser(tenant: harness.tenant, action: .cancel))
        }
        #expect(denied.isAccessDenied)
        let closed = try await #require(throws: WebSignInError.self) {
            try await error.continueInBrowser(
                redirectURI: Self.redirect, using: EmulatedBrowser(tenant: harness.tenant, action: .close))
        }
        #expect(closed.isCancelled)
        let wrong = try await #require(throws: WebSignInError.self) {
            try await error.continueInBrowser(
                redirectURI: Self.redirect, using: EmulatedBrowser(tenant: harness.tenant, password: "Not-It-1234"))
        }
        #expect(wrong.isInvalidCallback)
        #expect((wrong.underlyingError as? EmulatedBrowserError)?.message == "Your password is incorrect.")
        #expect(try await harness.client.currentAccount() == nil)
    }
}
