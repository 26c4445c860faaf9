import Foundation
import NativeAuth
import NativeAuthEmulator

/// How the demo signs in with the user's browser: the menu entry "Sign in with the browser", and
/// the fallback when a native sign-in answers that the browser is required.
struct BrowserSettings {
    /// Shows the authorization URL: by default the system browser, or the URL printed for the user
    /// to open. Tests pass a programmatic browser.
    var open: LoopbackUserAgent.BrowserOpener = BrowserSettings.openOrPrint
    /// How long to wait for the browser to come back.
    var timeout: Duration = LoopbackUserAgent.defaultTimeout

    /// Opens `url` in the system browser; when none can be opened, prints it for the user to open.
    @Sendable static func openOrPrint(_ url: URL) async {
        do {
            try await LoopbackUserAgent.openInSystemBrowser(url)
            Terminal.say("Your browser shows the sign-in page; this demo waits until you have signed in there.")
        } catch {
            Terminal.say("No browser could be opened here (\(error)). Open this address in a browser to sign in:")
            Terminal.say(url.absoluteString)
        }
    }
}

/// On the emulated tenant, what a browser sign-in needs: the tenant served over HTTP on 127.0.0.1
/// (started the first time it is needed) and a client of that server, so that the user's browser
/// and the demo reach the same tenant. In process, the tenant's pages live at
/// `https://demo.ciamlogin.com`, which no browser can open.
final class EmulatorBrowserRoute {
    let tenant: EmulatedTenant
    let snapshotFile: URL?
    let printer: OutboxPrinter
    let store: any CredentialStore
    private(set) var server: EmulatorServer?
    private(set) var servedClient: NativeAuthClient?
    /// The served client's request deadline, in seconds; `nil` keeps the SDK's defaults. Its tests
    /// set a long one: on a busy machine, a request to a server in the same process may wait.
    var requestTimeout: TimeInterval?

    init(tenant: EmulatedTenant, snapshotFile: URL?, printer: OutboxPrinter, store: any CredentialStore) {
        self.tenant = tenant
        self.snapshotFile = snapshotFile
        self.printer = printer
        self.store = store
    }

    /// Why the tenant could not be served.
    struct Failure: Error {
        let reason: String
    }

    /// A client of the tenant served over HTTP, with the same client id and credential store as
    /// the in-process one; the server starts on a free loopback port the first time.
    func client() throws(Failure) -> NativeAuthClient {
        if let servedClient { return servedClient }
        let server: EmulatorServer
        do {
            server = try EmulatorServer(tenant: tenant)
        } catch {
            throw Failure(reason: "the emulated tenant could not be served on 127.0.0.1: \(error.reason)")
        }
        var configuration: NativeAuthConfiguration
        do {
            configuration = try NativeAuthConfiguration(
                clientId: tenant.clientId, authority: server.authority, capabilities: DemoMain.capabilities)
            configuration.requestTimeout = requestTimeout
        } catch {
            throw Failure(reason: "the served tenant's configuration is invalid: \(error.description)")
        }
        server.start()
        let transport = EmailPrintingTransport(
            tenant: tenant, snapshotFile: snapshotFile,
            forward: URLSessionTransport(timeout: requestTimeout ?? URLSessionTransport.defaultTimeout),
            printer: printer)
        let client = NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store)
        self.server = server
        servedClient = client
        return client
    }

    /// Shows the codes the tenant sends while the browser signs in (a passwordless user gets one
    /// on the sign-in page) until the returned task is cancelled.
    func watchOutbox() -> Task<Void, Never> {
        Task { [tenant, printer] in
            while !Task.isCancelled {
                await printer.showNew(in: tenant.outbox)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Stops the server, if it was started.
    func stop() async {
        await server?.stop()
    }
}

extension DemoApp {
    /// The menu entry: signs in with the browser, the email address filled in on the sign-in page
    /// when one is given.
    func signInWithBrowserFromMenu() async throws(EndOfInput) {
        let hint = try askLoginHint()
        finishSignIn(await signInWithBrowser(loginHint: hint))
    }

    /// Asks for the email address to fill in on the sign-in page, ``Prompt/maximumTries`` answers
    /// at most; `nil` when the user types it there instead.
    private func askLoginHint() throws(EndOfInput) -> String? {
        for _ in 1...Prompt.maximumTries {
            let answer = try Terminal.read("Email address for the sign-in page (Enter to type it there): ")
            guard !answer.isEmpty else { return nil }
            guard let problem = EmailAddress.problem(with: answer) else { return answer }
            Terminal.say("   That does not look like an email address: \(problem).")
        }
        throw Prompt.gaveUp()
    }

    /// Signs in with the browser: on the emulated tenant, after serving it on 127.0.0.1 and moving
    /// the demo's client there. Returns `nil` after saying why it did not work.
    ///
    /// - Parameter correlationId: the native flow's, when this continues one.
    func signInWithBrowser(loginHint: String?, correlationId: UUID? = nil) async -> UserAccountResult? {
        guard let client = browserClient() else { return nil }
        var parameters = WebSignInParameters(scopes: scopes)
        parameters.loginHint = loginHint
        parameters.correlationId = correlationId
        return await inBrowser { agent, redirectURI throws(WebSignInError) in
            try await client.signInWithBrowser(parameters, redirectURI: redirectURI, using: agent)
        }
    }

    /// The fallback after `error` says the browser is required: the same user, scopes and
    /// correlation id go on in the browser. When the flow ran on the client the browser can reach,
    /// this is `error.continueInBrowser`; when it ran in process, the browser sign-in starts on the
    /// served tenant for the same user.
    func continueInBrowser(after error: some NativeAuthError, username: String, startedOn: NativeAuthClient) async
        -> UserAccountResult?
    {
        let reason = error.redirectReason.map { ": \($0)" } ?? "."
        Terminal.say("🌐 The tenant asks for this sign-in to go on in the browser\(reason)")
        guard let client = browserClient() else { return nil }
        guard client === startedOn else {
            return await signInWithBrowser(loginHint: username, correlationId: error.correlationId)
        }
        return await inBrowser { agent, redirectURI throws(WebSignInError) in
            try await error.continueInBrowser(redirectURI: redirectURI, using: agent)
        }
    }

    /// The sign-in steps for `username`, going on in the browser when the tenant asks for it.
    func signInSteps(for username: String) -> SignInSteps {
        let startedOn = client
        var steps = SignInSteps(username: username) { [self] error in
            await continueInBrowser(after: error, username: username, startedOn: startedOn)
        }
        steps.scopes = scopes
        return steps
    }

    /// The client a browser sign-in uses: the demo's own on a real tenant; on the emulated one,
    /// the client of the tenant served over HTTP, which becomes the demo's client from then on.
    private func browserClient() -> NativeAuthClient? {
        guard let route = emulatorRoute else { return client }
        let wasServed = route.servedClient != nil
        let served: NativeAuthClient
        do {
            served = try route.client()
        } catch {
            Terminal.say("❌ The browser sign-in cannot start: \(error.reason).")
            return nil
        }
        if !wasServed, let server = route.server {
            Terminal.say("🌐 The emulated tenant now also serves its sign-in pages on \(server.baseURL.absoluteString)")
            Terminal.say("   (127.0.0.1 only), so your browser can reach it; the demo talks to it there from now on.")
            use(served)
        }
        return served
    }

    /// Runs a browser sign-in with the loopback agent, showing the emulated tenant's emails
    /// meanwhile; `nil` after saying why it failed.
    private func inBrowser(
        _ signIn: (LoopbackUserAgent, URL) async throws(WebSignInError) -> UserAccountResult
    ) async -> UserAccountResult? {
        let open = browser.open
        let minutes = max(1, Int(browser.timeout.components.seconds / 60))
        let agent = LoopbackUserAgent(timeout: browser.timeout) { url in
            try await open(url)
            Terminal.say("Waiting for the browser to come back to this demo (at most \(minutes) min) …")
        }
        let redirectURI: URL
        do {
            redirectURI = try agent.prepare()
        } catch {
            Terminal.say("❌ The browser sign-in cannot start: \(error.description)")
            return nil
        }
        let watcher = emulatorRoute?.watchOutbox()
        defer { watcher?.cancel() }
        do {
            let account = try await signIn(agent, redirectURI)
            Terminal.say("The ID token's signature and claims were checked.")
            return account
        } catch {
            Terminal.say("❌ " + ErrorMessage.of(error))
            return nil
        }
    }
}
