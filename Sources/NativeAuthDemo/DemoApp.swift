import Foundation
import NativeAuth

/// The menu and its actions: one method per menu item.
final class DemoApp {
    /// One line of the menu.
    struct MenuItem {
        /// What the user types to choose it.
        let key: String
        let title: String
        let action: (DemoApp) async throws(EndOfInput) -> Void
    }

    /// The client every action uses. On the emulated tenant, a browser sign-in moves it to the
    /// tenant served over HTTP (see ``EmulatorBrowserRoute``).
    private(set) var client: NativeAuthClient
    /// The transport used to call the protected resource.
    let transport: any HTTPTransport
    /// The API to call with the access token, if any.
    let resourceURL: URL?
    /// Scopes to ask for at sign-in.
    let scopes: [String]
    /// The access token shown last, to tell a cached token from a new one.
    private var lastToken: String?
    /// Session events, shown before each menu.
    let feed: SessionFeed
    /// How a browser sign-in shows the sign-in page.
    let browser: BrowserSettings
    /// On the emulated tenant, how the browser reaches it; `nil` on a real tenant, which the
    /// browser reaches as the client does.
    let emulatorRoute: EmulatorBrowserRoute?

    init(
        client: NativeAuthClient, transport: any HTTPTransport, resourceURL: URL?, scopes: [String],
        browser: BrowserSettings = BrowserSettings(), emulatorRoute: EmulatorBrowserRoute? = nil
    ) {
        self.client = client
        feed = SessionFeed(client: client)
        self.transport = transport
        self.resourceURL = resourceURL
        self.scopes = scopes
        self.browser = browser
        self.emulatorRoute = emulatorRoute
    }

    /// Moves the demo to `newClient` (same client id and credential store), following its
    /// session events too.
    func use(_ newClient: NativeAuthClient) {
        client = newClient
        feed.follow(newClient)
    }

    /// Stops what the demo started (the served emulated tenant).
    func shutdown() async {
        await emulatorRoute?.stop()
    }

    /// The menu. To add an action, add a method (below, or in an extension) and a line here.
    var menu: [MenuItem] {
        var items = [
            MenuItem(key: "1", title: "Sign in with an email code") { app throws(EndOfInput) in
                try await app.signInWithCode()
            },
            MenuItem(key: "2", title: "Sign in with a password") { app throws(EndOfInput) in
                try await app.signInWithPassword()
            },
            MenuItem(key: "3", title: "Show account") { app in await app.showAccount() },
            MenuItem(key: "4", title: "Get an access token") { app throws(EndOfInput) in
                try await app.getAccessToken()
            },
        ]
        if resourceURL != nil {
            items.append(MenuItem(key: "5", title: "Call the protected resource") { app in await app.callResource() })
        }
        items.append(MenuItem(key: "6", title: "Sign out") { app in await app.signOut() })
        items.append(MenuItem(key: "7", title: "Sign up") { app throws(EndOfInput) in try await app.signUp() })
        items.append(
            MenuItem(key: "8", title: "Reset password") { app throws(EndOfInput) in try await app.resetPassword() })
        items.append(
            MenuItem(key: "9", title: "Sign in with the browser") { app throws(EndOfInput) in
                try await app.signInWithBrowserFromMenu()
            })
        items.append(
            MenuItem(key: "10", title: "Sign in, or sign up if the address is new (email code)") {
                app throws(EndOfInput) in try await app.signUpOrSignIn()
            })
        return items
    }

    /// Shows the menu and runs the chosen actions until the user quits. An action whose question
    /// gave up after too many answers that do not fit ends, and the menu comes back.
    ///
    /// - Throws: ``EndOfInput`` when standard input ends, or after too many choices that are not
    ///   on the menu.
    func run() async throws(EndOfInput) {
        while let item = try await chooseFromMenu() {
            Terminal.say()
            do {
                try await item.action(self)
            } catch  where error.gaveUp {
                // The question has said so; the menu comes back.
            }
        }
    }

    /// Shows the menu and reads a choice, ``Prompt/maximumTries`` answers at most; `nil` to quit.
    private func chooseFromMenu() async throws(EndOfInput) -> MenuItem? {
        let items = menu
        Terminal.say()
        await showSessionEvents()
        Terminal.say(await statusLine())
        for item in items {
            Terminal.say("  \(item.key)) \(item.title)")
        }
        Terminal.say("  0) Quit")
        let list = items.map(\.key).joined(separator: ", ") + " or 0"
        for _ in 1...Prompt.maximumTries {
            let choice = try Terminal.read("Choose: ")
            if choice == "0" || choice.lowercased() == "q" { return nil }
            if let item = items.first(where: { $0.key == choice }) { return item }
            Terminal.say(
                choice.isEmpty ? "   Please choose \(list)." : "   '\(choice)' is not on the menu: choose \(list).")
        }
        Terminal.say("Too many answers that are not on the menu.")
        throw EndOfInput()
    }

    // MARK: - Signing in

    /// Signs in with the username only: the server sends a code (or asks for the password when
    /// the account has one and the app supports passwords).
    func signInWithCode() async throws(EndOfInput) {
        let username = try Prompt.text("Email address: ")
        var parameters = SignInParameters(username: username, scopes: scopes)
        // Over V2, the user chooses when the server offers several first factors.
        parameters.selectsAuthMethod = client.configuration.protocolVersion == .v2
        switch await startSignIn(parameters) {
        case .started(let start, let steps): finishSignIn(try await steps.continueFrom(start))
        case .inBrowser(let account): finishSignIn(account)
        case .failed: return
        }
    }

    /// How starting a sign-in went.
    enum SignInStart {
        /// The native flow goes on from `start`, with `steps`.
        case started(SignInStartResult, SignInSteps)
        /// The tenant required the browser, and the sign-in went on there.
        case inBrowser(UserAccountResult?)
        /// The start failed, and the demo said why.
        case failed(SignInStartError)
    }

    /// Starts a native sign-in; when the tenant answers that the browser is required, goes on in
    /// the browser.
    func startSignIn(_ parameters: SignInParameters) async -> SignInStart {
        let startedOn = client
        do {
            return .started(try await startedOn.signIn(parameters), signInSteps(for: parameters.username))
        } catch  where error.isBrowserRequired {
            return .inBrowser(
                await continueInBrowser(after: error, username: parameters.username, startedOn: startedOn))
        } catch {
            Terminal.say("❌ " + ErrorMessage.of(error))
            return .failed(error)
        }
    }

    /// Signs in with the username and password given together.
    func signInWithPassword() async throws(EndOfInput) {
        var username = try Prompt.text("Email address: ")
        for _ in 1...SignInSteps.passwordAttempts {
            let password = try Prompt.password("Password")
            switch await startSignIn(SignInParameters(username: username, password: password, scopes: scopes)) {
            case .failed(let error):
                guard error.isStateStillUsable else { return }
                if error.isInvalidUsername { username = try Prompt.text("Email address: ") }
                continue
            case .inBrowser(let account):
                finishSignIn(account)
            case .started(let start, let steps):
                if case .codeRequired = start {
                    Terminal.say("This account signs in with a code, not a password.")
                }
                finishSignIn(try await steps.continueFrom(start))
            }
            return
        }
        Terminal.say("Too many wrong passwords; back to the menu.")
    }

    /// Says who is signed in, when a flow ended with an account.
    func finishSignIn(_ account: UserAccountResult?) {
        guard let account else { return }
        let name = account.account.claims.name.map { " (\($0))" } ?? ""
        Terminal.say("✅ Signed in as \(account.account.username)\(name).")
    }

    // MARK: - The signed-in account

    /// Shows the signed-in user and the claims of the ID token.
    func showAccount() async {
        guard let result = await signedInAccount() else { return }
        let account = result.account
        Terminal.say("Username:   \(account.username)")
        Terminal.say("Identifier: \(account.identifier)")
        Terminal.say("ID token claims:")
        let claims = account.claims.all.sorted { $0.key < $1.key }
        let width = claims.map(\.key.count).max() ?? 0
        for (name, value) in claims {
            Terminal.say("   \(name.paddedTo(width))  \(Self.format(claim: name, value, in: account.claims))")
        }
    }

    /// Gets an access token, from the cache or refreshed, and shows what it is good for.
    func getAccessToken() async throws(EndOfInput) {
        guard let account = await signedInAccount() else { return }
        let forceRefresh = try Prompt.yesNo("Force a refresh (ignore the cached token)?", default: false)
        let token: TokenResult
        do {
            token = try await account.getAccessToken(forceRefresh: forceRefresh)
        } catch {
            Terminal.say("❌ " + ErrorMessage.of(error))
            return
        }
        let freshness =
            switch lastToken {
            case nil: ""
            case token.accessToken: " (the same token as last time, from the cache)"
            default: " (a different token from last time)"
            }
        lastToken = token.accessToken
        Terminal.say("Access token: \(token.accessToken.prefix(12))…\(freshness)")
        Terminal.say("Expires:      \(Self.format(token.expiresOn))")
        Terminal.say("Scopes:       \(token.scopes.isEmpty ? "(none listed)" : token.scopes.joined(separator: " "))")
    }

    /// Calls the protected resource with the access token and shows the answer.
    func callResource() async {
        guard let url = resourceURL else {
            Terminal.say("No protected resource is configured; start with --resource URL.")
            return
        }
        guard let account = await signedInAccount() else { return }
        let token: TokenResult
        do {
            token = try await account.getAccessToken()
        } catch {
            Terminal.say("❌ " + ErrorMessage.of(error))
            return
        }
        let request = HTTPRequest(
            method: "GET", url: url,
            headers: ["Authorization": "Bearer \(token.accessToken)", "Accept": "application/json"])
        Terminal.say("GET \(url.absoluteString)")
        Terminal.say("Authorization: Bearer \(token.accessToken.prefix(12))…")
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            Terminal.say("❌ The resource could not be reached: \(error.localizedDescription)")
            return
        }
        let mark = (200..<300).contains(response.statusCode) ? "✅" : "❌"
        Terminal.say("\(mark) HTTP \(response.statusCode)")
        if let challenge = response.header("WWW-Authenticate") {
            Terminal.say("WWW-Authenticate: \(challenge)")
        }
        let body = String(decoding: response.body, as: UTF8.self)
        Terminal.say(body.isEmpty ? "(empty body)" : String(body.prefix(2000)))
    }

    /// Signs the account out.
    func signOut() async {
        guard let account = await signedInAccount() else { return }
        await account.signOut()
        Terminal.say("👋 Signed out \(account.account.username).")
    }

    // MARK: - Helpers

    /// The signed-in account, or `nil` after saying that nobody is signed in.
    private func signedInAccount() async -> UserAccountResult? {
        do {
            if let account = try await client.currentAccount() { return account }
        } catch {
            Terminal.say("❌ " + (error.errorDescription ?? "The credential store could not be read."))
            return nil
        }
        Terminal.say("Nobody is signed in: sign in first (1, 2 or 9).")
        return nil
    }

    private func statusLine() async -> String {
        do {
            guard let account = try await client.currentAccount() else { return "Not signed in." }
            return "Signed in as \(account.account.username)."
        } catch {
            return "The credential store could not be read."
        }
    }

    /// Claims holding times (`exp`, `iat`, …) as dates; other claims as their value.
    static func format(claim name: String, _ value: JSONValue, in claims: Claims) -> String {
        if ["exp", "iat", "nbf", "auth_time"].contains(name), let date = claims.date(name) {
            return format(date)
        }
        return value.stringValue ?? value.description
    }

    /// A date in local time, with how far away it is.
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss ZZZZZ"
        let seconds = Int(date.timeIntervalSinceNow.rounded())
        let minutes = abs(seconds) / 60
        let distance: String
        switch (seconds, minutes) {
        case (_, 0): distance = "now"
        case (0..., _): distance = "in \(minutes) min"
        default: distance = "\(minutes) min ago"
        }
        return "\(formatter.string(from: date)) (\(distance))"
    }
}
