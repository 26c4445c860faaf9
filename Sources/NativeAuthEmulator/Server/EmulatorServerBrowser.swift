public import Foundation
public import NativeAuth

/// A headless browser for an ``EmulatorServer``'s sign-in page: an `ExternalUserAgent` that runs a
/// browser sign-in end to end over HTTP, with no window, against a server in this process or in
/// another one (`nativeauth serve`).
///
/// It does what ``EmulatedBrowser`` does in process, over the network: it GETs the authorization
/// URL from the server, fills in the sign-in form as a user would (the username, the password, the
/// hidden `ctx` as it came), posts it, and returns the URL the server redirects to once it starts
/// with the redirect URI. A passwordless user, and the second factor of a user with MFA methods,
/// get a one-time code: the browser reads it from the server's control API (`GET /emulator/v1/codes`),
/// choosing the newest code sent to the address the code page names.
///
/// Use it wherever the SDK takes an agent: `WebAuthClient.signIn(_:using:)`,
/// `NativeAuthClient.signInWithBrowser(_:redirectURI:using:)`, and the browser fallback of a native
/// sign-in, `error.continueInBrowser(redirectURI:using:)`:
///
/// ```swift
/// let server = try EmulatorServer(tenant: tenant)
/// server.start()
/// // … a native sign-in against server.authority throws an error with `isBrowserRequired`:
/// let account = try await error.continueInBrowser(
///     redirectURI: URL(string: "http://127.0.0.1:8765/callback")!,
///     using: EmulatorServerBrowser(password: "Pa55-word!"))
/// ```
///
/// With a `LoopbackUserAgent`, pass ``open(_:)`` as its browser opener: the browser signs in and
/// then delivers the redirect to the agent's loopback listener, as a real browser does.
///
/// Requests go through an `HTTPTransport`, `URLSessionTransport` by default, which must hand back
/// redirects without following them (as `URLSessionTransport` does): the browser follows those
/// that stay on the server's origin and stops at the one that leaves it. The password and codes
/// never show in a description, a `dump` or an error.
public struct EmulatorServerBrowser: ExternalUserAgent, Sendable, CustomStringConvertible, CustomReflectable {
    /// What the user does on the sign-in page: sign in, press Cancel, or close the window.
    public typealias Action = EmulatedBrowser.Action

    /// The username typed into the form; `nil` keeps the one the page prefilled from `login_hint`.
    public let username: String?
    /// The control API the browser reads codes from; `nil` means the one on the origin of the
    /// authorization URL (`http://127.0.0.1:PORT/emulator/v1`).
    public let controlURL: URL?
    private let action: Action
    private let transport: any HTTPTransport

    /// A browser that does `action` on the sign-in page.
    ///
    /// - Parameters:
    ///   - username: The username to type in; `nil` keeps the page's (from `login_hint`).
    ///   - action: What the user does.
    ///   - controlURL: The server's control API (``EmulatorServer/controlURL``); `nil` derives it
    ///     from the authorization URL's origin.
    ///   - transport: What sends the requests; it must not follow redirects.
    public init(
        username: String? = nil, action: Action, controlURL: URL? = nil,
        transport: any HTTPTransport = URLSessionTransport()
    ) {
        self.username = username
        self.action = action
        self.controlURL = controlURL
        self.transport = transport
    }

    /// A browser that signs in with `password` (`nil` for a passwordless account, which gets a code).
    ///
    /// - Parameters:
    ///   - username: The username to type in; `nil` keeps the page's (from `login_hint`).
    ///   - password: The password, or `nil` to sign in with an email code.
    ///   - controlURL: The server's control API (``EmulatorServer/controlURL``); `nil` derives it
    ///     from the authorization URL's origin.
    ///   - transport: What sends the requests; it must not follow redirects.
    public init(
        username: String? = nil, password: String?, controlURL: URL? = nil,
        transport: any HTTPTransport = URLSessionTransport()
    ) {
        self.init(username: username, action: .signIn(password: password), controlURL: controlURL, transport: transport)
    }

    /// The username, the action and the control API; never the password.
    public var description: String {
        let name: String
        switch action {
        case .signIn: name = "signIn"
        case .cancel: name = "cancel"
        case .close: name = "close"
        }
        let control = controlURL?.absoluteString ?? "the authorization URL's origin"
        return "EmulatorServerBrowser(username: \(username ?? "from the page"), action: \(name), control: \(control))"
    }

    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// Loads `url` from the server, does the action, and returns the URL the server redirected to,
    /// which starts with `redirectURI`.
    ///
    /// - Throws: `ExternalUserAgentError` with `isCancelled` for ``EmulatedBrowser/Action/close``;
    ///   ``EmulatedBrowserError`` when the server shows an error page, refuses what was typed (the
    ///   page's message is kept: a wrong password, an unknown user), has no code for a code page,
    ///   or redirects somewhere other than its own origin or the redirect URI; `CancellationError`
    ///   and the transport's errors as they come.
    public func authorize(url: URL, redirectURI: URL) async throws -> URL {
        try await signIn(at: url, redirectURI: redirectURI)
    }

    /// Signs in at `url` and delivers the redirect as a browser does: a `GET` of the URL the server
    /// redirected to (the loopback listener of a `LoopbackUserAgent`). Pass it as the agent's opener:
    /// `LoopbackUserAgent(openBrowser: browser.open)`.
    ///
    /// - Throws: What ``authorize(url:redirectURI:)`` throws; ``EmulatedBrowserError`` when the
    ///   redirect is not to an `http` URL or its listener answers with an error status.
    public func open(_ url: URL) async throws {
        let callback = try await signIn(at: url, redirectURI: nil)
        guard callback.scheme?.lowercased() == "http" else {
            throw EmulatedBrowserError("The server redirected to a URL this browser cannot open.", nil)
        }
        let answer = try await transport.send(
            HTTPRequest(method: "GET", url: callback, headers: ["Accept": "text/html"]))
        guard (200...299).contains(answer.statusCode) else {
            throw EmulatedBrowserError("The redirect URI answered \(answer.statusCode).", answer)
        }
    }

    // MARK: - Browsing

    /// Loads `url`, fills in and posts the pages it leads to, follows the redirects that stay on the
    /// server's origin, and returns the one to `redirectURI` (when `nil`: the first that leaves the
    /// origin), without following it.
    private func signIn(at url: URL, redirectURI: URL?) async throws -> URL {
        if case .close = action { throw ExternalUserAgentError.cancelled }
        guard let origin = Origin(url) else {
            throw EmulatedBrowserError("The authorization URL is not an http or https URL.", nil)
        }
        var request = HTTPRequest(method: "GET", url: url, headers: ["Accept": "text/html"])
        for _ in 0..<EmulatedBrowser.maximumPages {
            let response = try await transport.send(request)
            if (300...399).contains(response.statusCode) {
                guard let location = response.header("Location"),
                    let target = URL(string: location, relativeTo: request.url)?.absoluteURL
                else { throw EmulatedBrowserError("The server redirected without a location.", response) }
                if let redirectURI, EmulatedBrowser.sameEndpoint(target, redirectURI) { return target }
                if Origin(target) == origin {
                    request = HTTPRequest(method: "GET", url: target, headers: ["Accept": "text/html"])
                    continue
                }
                guard redirectURI == nil else {
                    throw EmulatedBrowserError("The server redirected somewhere other than the redirect URI.", response)
                }
                return target
            }
            let html = String(decoding: response.body, as: UTF8.self)
            let page = EmulatedPage(html: html)
            guard response.statusCode == 200, let form = page.form else {
                throw EmulatedBrowserError(page.message ?? "The server answered \(response.statusCode).", response)
            }
            if let error = page.error { throw EmulatedBrowserError(error, response) }
            guard let target = URL(string: form.action, relativeTo: request.url)?.absoluteURL else {
                throw EmulatedBrowserError("The form has no usable action.", response)
            }
            let fields = try await filledIn(form.fields, html: html, origin: origin, response: response)
            request = HTTPRequest(
                method: "POST", url: target,
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"],
                body: Data(
                    fields.map { TenantState.formEscape($0.name) + "=" + TenantState.formEscape($0.value) }
                        .joined(separator: "&").utf8))
        }
        throw EmulatedBrowserError("The sign-in went through too many pages.", nil)
    }

    /// The form's fields as the user fills them in, with the button they press.
    private func filledIn(
        _ fields: [(name: String, value: String)], html: String, origin: Origin, response: HTTPResponse
    ) async throws -> [(name: String, value: String)] {
        try await action.filling(fields, username: username) {
            try await code(shownOn: html, origin: origin, response: response)
        }
    }

    /// The newest code the server sent to the address a code page names (masked, as
    /// `a***e@ex**e.com`), read from the control API.
    private func code(shownOn html: String, origin: Origin, response: HTTPResponse) async throws -> String {
        let control = controlURL?.absoluteString ?? origin.text + EmulatorServer.controlPath
        guard let url = URL(string: control + "/codes") else {
            throw EmulatedBrowserError("The control API's URL is not usable.", response)
        }
        let answer = try await transport.send(
            HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
        guard answer.statusCode == 200,
            case .object(let body)? = try? JSONParser.parse(String(decoding: answer.body, as: UTF8.self)),
            case .array(let codes)? = body["codes"]
        else {
            throw EmulatedBrowserError(
                "The page asks for a code, and the control API at \(control) answered \(answer.statusCode) "
                    + "without codes.", response)
        }
        for case .object(let sent) in codes.reversed() {
            guard case .string(let address)? = sent["to"], case .string(let code)? = sent["code"] else { continue }
            if html.contains(EmulatorLoginPage.escape(Encoding.maskedLabel(address))) { return code }
        }
        throw EmulatedBrowserError("The page asks for a code, and no code was sent to the address it names.", response)
    }
}

/// The scheme, host and port of a URL, the port made explicit: where a page came from.
private struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// `http://127.0.0.1:PORT`.
    var text: String {
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost):\(port)"
    }
}
