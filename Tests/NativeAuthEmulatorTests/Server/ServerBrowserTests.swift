import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// `EmulatorServerBrowser`, the headless browser for a served tenant, as the agent of the SDK's
/// browser sign-ins, over real loopback HTTP.
@Suite("Emulator server: the headless browser", .hangLimit)
struct ServerBrowserTests {
    static let redirect = URL(string: "http://127.0.0.1:8765/callback")!
    static let browserUser = "bo@contoso.com"
    static let browserPassword = "Browser-Only-1"

    /// A served tenant whose browser-only user was added through the control API, as a test in
    /// another process would.
    func served() async throws -> ServedTenant {
        let served = try ServedTenant()
        let created = try await served.control(
            "POST", "/users",
            #"{"username":"\#(Self.browserUser)","password":"\#(Self.browserPassword)","requiresBrowser":true}"#)
        #expect(created.status == 201)
        #expect(created["requiresBrowser"] as? Bool == true)
        return served
    }

    func browser(_ served: ServedTenant, password: String?, username: String? = nil) -> EmulatorServerBrowser {
        EmulatorServerBrowser(username: username, password: password, transport: served.transport)
    }

    @Test("a browser-only user's native sign-in goes on in the headless browser over HTTP, then calls the API")
    func nativeBrowserFallbackOverHTTP() async throws {
        let served = try await served()
        let tenant = served.tenant
        let client = try served.client()
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: Self.browserUser, scopes: ["api://contoso/read"]))
        }
        #expect(error.isBrowserRequired)

        let account = try await error.continueInBrowser(
            redirectURI: Self.redirect, using: browser(served, password: Self.browserPassword))
        #expect(account.account.username == Self.browserUser)
        #expect(account.account.claims.issuer == tenant.issuerIdentifier)
        let base = "/\(tenant.tenantId)"
        #expect(
            tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } == [
                "POST /contoso.onmicrosoft.com/oauth2/v2.0/initiate",
                "GET /contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration",
                "GET \(base)/oauth2/v2.0/authorize", "POST \(base)/login", "POST \(base)/oauth2/v2.0/token",
                "GET \(base)/discovery/v2.0/keys",
            ])

        // The account's access token opens the protected resource, at {authority}/emulator/me.
        let token = try await account.getAccessToken()
        let me = try await served.transport.send(
            HTTPRequest(
                method: "GET", url: served.server.url(for: .resource),
                headers: ["Authorization": "Bearer \(token.accessToken)"]))
        #expect(me.statusCode == 200)
        let body = try #require(try JSONSerialization.jsonObject(with: me.body) as? [String: Any])
        #expect(body["username"] as? String == Self.browserUser)
        #expect(
            served.server.url(for: .resource).absoluteString == served.server.authority.absoluteString + "/emulator/me")
        await served.server.stop()
    }

    @Test("a WebAuthClient signs in through it; MFA and passwordless codes come from the control API")
    func webClientWithCodes() async throws {
        let served = try ServedTenant()
        let issuer = try #require(URL(string: served.server.authority.absoluteString + "/v2.0"))
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = served.harness.clock

        // Alan: password, then the code sent to his first method, a phone the page shows masked.
        let alanClient = try WebAuthClient(
            issuer: issuer, clientId: served.tenant.clientId, redirectURI: Self.redirect,
            transport: served.transport, credentialStore: InMemoryCredentialStore(), configuration: configuration)
        var parameters = WebSignInParameters(scopes: ["offline_access", "api://contoso/read"])
        parameters.loginHint = Fixture.alan
        let alan = try await alanClient.signIn(parameters, using: browser(served, password: Fixture.alanPassword))
        #expect(alan.account.username == Fixture.alan)
        #expect(served.tenant.outbox.last?.purpose == "mfa")
        #expect(served.tenant.outbox.last?.to == "+447700900123")

        // Grace: passwordless; the username typed, not prefilled.
        let graceClient = try WebAuthClient(
            issuer: issuer, clientId: served.tenant.clientId, redirectURI: Self.redirect,
            transport: served.transport, credentialStore: InMemoryCredentialStore(), configuration: configuration)
        let grace = try await graceClient.signIn(
            WebSignInParameters(scopes: ["offline_access"]),
            using: browser(served, password: nil, username: Fixture.grace))
        #expect(grace.account.username == Fixture.grace)
        #expect(served.tenant.outbox.last?.to == Fixture.grace)
        await served.server.stop()
    }

    @Test("a wrong password is the page's message; Cancel is access denied; closing is cancelled")
    func refusalsAndCancelling() async throws {
        let served = try await served()
        let client = try served.client()
        func fallback() async throws -> SignInStartError {
            try await #require(throws: SignInStartError.self) {
                try await client.signIn(SignInParameters(username: Self.browserUser))
            }
        }
        let wrong = try await #require(throws: WebSignInError.self) {
            try await fallback().continueInBrowser(
                redirectURI: Self.redirect, using: browser(served, password: "Not-The-Password-1"))
        }
        #expect(wrong.isInvalidCallback)
        let pageError = try #require(wrong.underlyingError as? EmulatedBrowserError)
        #expect(pageError.message == "Your password is incorrect.")
        #expect(pageError.statusCode == 200)

        let denied = try await #require(throws: WebSignInError.self) {
            try await fallback().continueInBrowser(
                redirectURI: Self.redirect,
                using: EmulatorServerBrowser(action: .cancel, transport: served.transport))
        }
        #expect(denied.isAccessDenied)

        let closed = try await #require(throws: WebSignInError.self) {
            try await fallback().continueInBrowser(
                redirectURI: Self.redirect,
                using: EmulatorServerBrowser(action: .close, transport: served.transport))
        }
        #expect(closed.isCancelled)
        await served.server.stop()
    }

    @Test("an error page, a redirect URI the tenant refuses, and a control API it cannot reach are typed errors")
    func errorPages() async throws {
        let served = try ServedTenant { $0.redirectURIs = [Self.redirect.absoluteString] }
        let authorize = served.server.url(for: .authorize)
        func url(_ query: String) throws -> URL { try #require(URL(string: authorize.absoluteString + "?" + query)) }
        let challenge = String(repeating: "a", count: 43)
        let valid =
            "client_id=\(served.tenant.clientId)&response_type=code&scope=openid&code_challenge=\(challenge)"
            + "&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback"

        // An unregistered redirect URI: the tenant shows an error page and never redirects.
        let elsewhere = "http://127.0.0.1:9/other"
        let page = try await #require(throws: EmulatedBrowserError.self) {
            try await browser(served, password: Fixture.adaPassword).authorize(
                url: try url(valid.replacingOccurrences(of: "%2Fcallback", with: "%2Fother")),
                redirectURI: URL(string: elsewhere)!)
        }
        #expect(page.statusCode == 400)
        #expect(page.message.contains("AADSTS50011"))

        // A code page, with the control API somewhere that is not a control API.
        let lost = EmulatorServerBrowser(
            username: Fixture.grace, password: nil,
            controlURL: served.server.baseURL.appendingPathComponent("nowhere"), transport: served.transport)
        let noCode = try await #require(throws: EmulatedBrowserError.self) {
            try await lost.authorize(url: try url(valid), redirectURI: Self.redirect)
        }
        #expect(noCode.message.contains("control API"))

        // A URL that is not http is refused before anything is sent.
        let before = served.tenant.receivedRequests.count
        await #expect(throws: EmulatedBrowserError.self) {
            try await browser(served, password: nil).authorize(
                url: URL(string: "file:///etc/passwd")!, redirectURI: Self.redirect)
        }
        #expect(served.tenant.receivedRequests.count == before)
        await served.server.stop()
    }

    @Test("as a LoopbackUserAgent's opener it delivers the callback to the agent's listener")
    func loopbackOpener() async throws {
        let served = try await served()
        let client = try served.client()
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: Self.browserUser))
        }
        let browser = browser(served, password: Self.browserPassword)
        let agent = LoopbackUserAgent(timeout: TestBounds.wait, openBrowser: browser.open)
        let redirect = try agent.prepare()
        let account = try await error.continueInBrowser(redirectURI: redirect, using: agent)
        #expect(account.account.username == Self.browserUser)
        await served.server.stop()
    }

    @Test("its description and mirror never hold the password")
    func privacy() {
        let browser = EmulatorServerBrowser(username: "ada@contoso.com", password: "Hunter2-Secret!")
        var dumped = ""
        dump(browser, to: &dumped)
        for text in [browser.description, String(reflecting: browser), dumped] {
            #expect(!text.contains("Hunter2-Secret!"))
            #expect(text.contains("ada@contoso.com"))
        }
    }
}
