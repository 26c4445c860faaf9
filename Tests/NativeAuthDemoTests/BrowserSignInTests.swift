import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuthDemo

/// The demo's browser path on the embedded emulator: the tenant is served on 127.0.0.1, the
/// demo's client moves there, and `LoopbackUserAgent` gets the callback from a browser played
/// over HTTP (no real browser is opened).
@Suite("Demo: sign-in with the browser on the emulated tenant", .hangLimit)
struct BrowserSignInTests {
    static let browserUser = "bo@example.com"
    static let browserPassword = "Browser-Only-1"

    /// The demo on the emulated tenant, in memory, with a browser user added and `browser` as the
    /// user's browser.
    func demo(
        browser: (EmulatedTenant) -> LoopbackUserAgent.BrowserOpener
    ) throws -> (app: DemoApp, route: EmulatorBrowserRoute) {
        let placeholder = BrowserSettings(open: { _ in }, timeout: TestBounds.wait)
        let app = DemoMain.emulatorApp(scopes: ["api://demo/notes.read"], storage: .memory, browser: placeholder)
        let route = try #require(app.emulatorRoute)
        route.requestTimeout = TestBounds.requestDeadline
        route.tenant.addUser(
            EmulatedUser(username: Self.browserUser, password: Self.browserPassword, requiresBrowser: true))
        let settings = BrowserSettings(open: browser(route.tenant), timeout: TestBounds.wait)
        let configured = DemoApp(
            client: app.client, transport: app.transport, resourceURL: app.resourceURL, scopes: app.scopes,
            browser: settings, emulatorRoute: route)
        return (configured, route)
    }

    static let passwords = [
        "ada@example.com": EmulatorSetup.demoPassword, browserUser: browserPassword,
    ]

    @Test("the menu entry serves the tenant, moves the client there and signs in through the loopback agent")
    func menuEntrySignsIn() async throws {
        var browser: FormPostingBrowser?
        let (app, route) = try demo { tenant in
            let made = FormPostingBrowser(tenant: tenant, passwords: Self.passwords)
            browser = made
            return made.opener
        }
        let before = app.client
        #expect(route.server == nil)  // nothing is served until a browser sign-in needs it

        let account = try #require(await app.signInWithBrowser(loginHint: "ada@example.com"))
        #expect(account.account.username == "ada@example.com")
        #expect(account.account.claims.preferredUsername == "ada@example.com")

        // The tenant is served on loopback, and the demo's client now talks to it there.
        let server = try #require(route.server)
        #expect(app.client !== before)
        #expect(app.client === route.servedClient)
        #expect(app.client.configuration.authority == server.authority)
        #expect(server.authority.host == "127.0.0.1")

        // The browser was shown the served tenant's authorization page, with the user's address.
        let shown = try #require(browser?.shownURLs.first)
        #expect(shown.host == "127.0.0.1" && shown.port == Int(server.port))
        #expect(shown.absoluteString.contains("login_hint=ada%40example.com"))

        // The account is the demo's: restored by its client, with a token for the demo's scope.
        let current = try #require(try await app.client.currentAccount())
        #expect(current.account.username == "ada@example.com")
        let token = try await current.getAccessToken()
        #expect(!token.accessToken.isEmpty)
        await app.shutdown()
    }

    @Test("a native sign-in the tenant sends to the browser goes on there by itself, the first time and later")
    func browserRequiredFallsBack() async throws {
        let (app, route) = try demo { tenant in
            FormPostingBrowser(tenant: tenant, passwords: Self.passwords).opener
        }
        let inProcess = app.client

        // First time: the native start runs in process; the browser sign-in starts on the served tenant.
        guard case .inBrowser(let first?) = await app.startSignIn(SignInParameters(username: Self.browserUser))
        else {
            Issue.record("the sign-in did not go on in the browser")
            return
        }
        #expect(first.account.username == Self.browserUser)
        #expect(app.client !== inProcess)
        let initiated = route.tenant.receivedRequests.filter { $0.url.path.hasSuffix("/oauth2/v2.0/initiate") }
        #expect(initiated.count == 1)
        await first.signOut()

        // Later: the native start runs on the served client, and its error continues in the browser.
        guard case .inBrowser(let second?) = await app.startSignIn(SignInParameters(username: Self.browserUser))
        else {
            Issue.record("the second sign-in did not go on in the browser")
            return
        }
        #expect(second.account.username == Self.browserUser)
        #expect(app.client === route.servedClient)
        #expect(try await app.client.currentAccount()?.account.username == Self.browserUser)
        await app.shutdown()
    }

    @Test("the demo users include one the tenant sends to the browser, so the fallback can be tried")
    func demoBrowserUser() async throws {
        let (app, _) = try demo { tenant in
            FormPostingBrowser(tenant: tenant, passwords: ["hedy@example.com": EmulatorSetup.demoPassword]).opener
        }
        #expect(EmulatorSetup.users.contains { $0.user.requiresBrowser && $0.user.username == "hedy@example.com" })
        guard case .inBrowser(let account?) = await app.startSignIn(SignInParameters(username: "hedy@example.com"))
        else {
            Issue.record("hedy's sign-in did not go on in the browser")
            return
        }
        #expect(account.account.username == "hedy@example.com")
        await app.shutdown()
    }

    @Test("a passwordless user signs in on the served page with the code the tenant emailed")
    func passwordlessInBrowser() async throws {
        let (app, route) = try demo { tenant in
            FormPostingBrowser(tenant: tenant, passwords: [:]).opener
        }
        let account = try #require(await app.signInWithBrowser(loginHint: "grace@example.com"))
        #expect(account.account.username == "grace@example.com")
        #expect(route.tenant.outbox.contains { $0.to == "grace@example.com" })
        await app.shutdown()
    }

    @Test("a browser that cannot be opened ends the sign-in with a message, and the demo goes on")
    func browserLaunchFailure() async throws {
        struct NoBrowser: Error {}
        let (app, _) = try demo { _ in { _ in throw NoBrowser() } }
        let signedIn = await app.signInWithBrowser(loginHint: nil) != nil
        #expect(!signedIn)
        #expect(try await app.client.currentAccount() == nil)

        // A native sign-in still works, now over HTTP.
        guard case .started = await app.startSignIn(SignInParameters(username: "ada@example.com")) else {
            Issue.record("ada's native sign-in did not start")
            return
        }
        await app.shutdown()
    }
}
