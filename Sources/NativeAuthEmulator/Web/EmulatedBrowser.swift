public import Foundation
public import NativeAuth

/// A scripted browser for an ``EmulatedTenant``'s sign-in page: an `ExternalUserAgent` that
/// runs a browser sign-in end to end in tests, with no network and no window.
///
/// It loads the authorization URL from the tenant (through ``EmulatedTenant/send(_:)``), fills
/// the sign-in form as a user would, posts it, and returns the callback URL the tenant redirects
/// to. A passwordless user, and the second factor of a user with MFA methods, get a one-time code:
/// the browser reads it from the tenant's ``EmulatedTenant/outbox``.
///
/// ```swift
/// let tenant = EmulatedTenant(clock: ManualClock())
/// tenant.addUser(EmulatedUser(username: "bo@example.com", password: "Pa55-word!", requiresBrowser: true))
/// // … a native sign-in throws an error with `isBrowserRequired`:
/// let account = try await error.continueInBrowser(
///     redirectURI: URL(string: "msauth.com.example.app://auth")!,
///     using: EmulatedBrowser(tenant: tenant, password: "Pa55-word!"))
/// ```
///
/// The password never shows in a description, a `dump` or an error.
public struct EmulatedBrowser: ExternalUserAgent, Sendable, CustomStringConvertible, CustomReflectable {
    /// What the user does on the sign-in page.
    public enum Action: Sendable {
        /// Signs in with the username (the one given, else the one the page prefilled from
        /// `login_hint`) and `password`; `nil` for a passwordless account, which gets a code.
        case signIn(password: String?)
        /// Presses Cancel: the tenant sends the browser back with `error=access_denied`.
        case cancel
        /// Closes the window before doing anything: `authorize` throws an `ExternalUserAgentError`
        /// with `isCancelled`, as a real agent does.
        case close
    }

    /// The tenant whose pages the browser loads.
    public let tenant: EmulatedTenant
    /// The username typed into the form; `nil` keeps the one the page prefilled.
    public let username: String?
    private let action: Action

    /// A browser that does `action` on the sign-in page.
    ///
    /// - Parameters:
    ///   - tenant: The tenant whose authorization URL will be shown.
    ///   - username: The username to type in; `nil` keeps the page's (from `login_hint`).
    ///   - action: What the user does.
    public init(tenant: EmulatedTenant, username: String? = nil, action: Action) {
        self.tenant = tenant
        self.username = username
        self.action = action
    }

    /// A browser that signs in with `password` (`nil` for a passwordless account).
    ///
    /// - Parameters:
    ///   - tenant: The tenant whose authorization URL will be shown.
    ///   - username: The username to type in; `nil` keeps the page's (from `login_hint`).
    ///   - password: The password, or `nil` to sign in with an email code.
    public init(tenant: EmulatedTenant, username: String? = nil, password: String?) {
        self.init(tenant: tenant, username: username, action: .signIn(password: password))
    }

    /// The tenant and username; never the password.
    public var description: String {
        let name: String
        switch action {
        case .signIn: name = "signIn"
        case .cancel: name = "cancel"
        case .close: name = "close"
        }
        return
            "EmulatedBrowser(tenant: \(tenant.tenantSubdomain), username: \(username ?? "from the page"), action: \(name))"
    }

    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// The most pages one sign-in goes through: the form, a code, a second-factor code, and slack.
    static let maximumPages = 8

    /// Loads `url`, does the action, and returns the URL the tenant redirected to, which starts
    /// with `redirectURI`.
    ///
    /// - Throws: `ExternalUserAgentError` with `isCancelled` for ``Action/close``;
    ///   ``EmulatedBrowserError`` when the tenant shows an error page, refuses what was typed (the
    ///   page's message is kept: a wrong password, an unknown user), sends no code, or redirects
    ///   elsewhere; `CancellationError` and transport errors as they come.
    public func authorize(url: URL, redirectURI: URL) async throws -> URL {
        if case .close = action { throw ExternalUserAgentError.cancelled }
        var request = HTTPRequest(method: "GET", url: url, headers: ["Accept": "text/html"])
        // How many codes the outbox held before the last form was posted: a code page wants a newer one.
        var outboxMark = tenant.outbox.count
        for _ in 0..<Self.maximumPages {
            let response = try await tenant.send(request)
            if (300...399).contains(response.statusCode) {
                guard let location = response.header("Location"),
                    let target = URL(string: location, relativeTo: request.url)?.absoluteURL
                else { throw EmulatedBrowserError("The tenant redirected without a location.", response) }
                if Self.sameEndpoint(target, redirectURI) { return target }
                guard target.scheme?.lowercased() == "https", target.host == request.url.host else {
                    throw EmulatedBrowserError("The tenant redirected somewhere other than the redirect URI.", response)
                }
                request = HTTPRequest(method: "GET", url: target, headers: ["Accept": "text/html"])
                continue
            }
            let page = EmulatedPage(html: String(decoding: response.body, as: UTF8.self))
            guard response.statusCode == 200, let form = page.form else {
                throw EmulatedBrowserError(page.message ?? "The tenant answered \(response.statusCode).", response)
            }
            if let error = page.error { throw EmulatedBrowserError(error, response) }
            let mark = outboxMark
            let fields = try await action.filling(form.fields, username: username) { () async throws in
                let outbox = tenant.outbox
                guard outbox.count > mark, let code = outbox.last?.code else {
                    throw EmulatedBrowserError("The page asks for a code, and no code was sent.", response)
                }
                return code
            }
            guard let target = URL(string: form.action, relativeTo: request.url)?.absoluteURL else {
                throw EmulatedBrowserError("The form has no usable action.", response)
            }
            outboxMark = tenant.outbox.count
            request = HTTPRequest(
                method: "POST", url: target,
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"],
                body: Data(
                    fields.map { TenantState.formEscape($0.name) + "=" + TenantState.formEscape($0.value) }
                        .joined(separator: "&").utf8))
        }
        throw EmulatedBrowserError("The sign-in went through too many pages.", nil)
    }

    /// Scheme and host compared case-insensitively, port and path exactly.
    static func sameEndpoint(_ lhs: URL, _ rhs: URL) -> Bool {
        guard let left = URLComponents(url: lhs, resolvingAgainstBaseURL: false),
            let right = URLComponents(url: rhs, resolvingAgainstBaseURL: false)
        else { return false }
        return left.scheme?.lowercased() == right.scheme?.lowercased()
            && left.host?.lowercased() == right.host?.lowercased() && left.port == right.port
            && left.percentEncodedPath == right.percentEncodedPath
    }
}

/// Why an ``EmulatedBrowser`` or an ``EmulatorServerBrowser`` could not finish: the tenant showed
/// an error page or refused what was typed. The message is the page's (Entra's wording); it never
/// holds a password or a code.
public struct EmulatedBrowserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The page's message, or what went wrong.
    public let message: String
    /// The HTTP status of the page, when there was one.
    public let statusCode: Int?

    init(_ message: String, _ response: HTTPResponse?) {
        self.message = message
        statusCode = response?.statusCode
    }

    /// The message, with the status when there was one.
    public var description: String {
        statusCode.map { "EmulatedBrowserError(\($0)): \(message)" } ?? "EmulatedBrowserError: \(message)"
    }
}

/// What ``EmulatedBrowser`` reads of a page from ``EmulatorLoginPage``: the form, its fields, and
/// the error or message paragraph. Made for those pages only, not for HTML at large.
struct EmulatedPage: Sendable {
    struct Form: Sendable {
        var action: String
        /// The `<input>` fields in page order, with their values.
        var fields: [(name: String, value: String)]
    }

    var form: Form?
    /// The text of `<p id="error">`.
    var error: String?
    /// The text of `<p id="message">`.
    var message: String?

    init(html: String) {
        error = Self.text(ofParagraph: "error", in: html)
        message = Self.text(ofParagraph: "message", in: html)
        guard let formTag = Self.tags(named: "form", in: html).first else { return }
        var fields: [(name: String, value: String)] = []
        for input in Self.tags(named: "input", in: html) {
            guard let name = input["name"] else { continue }
            fields.append((name, input["value"] ?? ""))
        }
        form = Form(action: formTag["action"] ?? "", fields: fields)
    }

    /// The attributes of every `<name …>` start tag, in order.
    static func tags(named name: String, in html: String) -> [[String: String]] {
        var found: [[String: String]] = []
        var rest = html[...]
        while let start = rest.range(of: "<\(name) ") ?? rest.range(of: "<\(name)>") {
            guard let end = rest[start.upperBound...].firstIndex(of: ">") else { break }
            found.append(attributes(rest[start.upperBound..<end]))
            rest = rest[rest.index(after: end)...]
        }
        return found
    }

    /// `name="value"` pairs (double-quoted, as the pages write them), values unescaped.
    static func attributes(_ text: Substring) -> [String: String] {
        var attributes: [String: String] = [:]
        var rest = text
        while let equals = rest.range(of: "=\"") {
            let name = rest[..<equals.lowerBound].split(separator: " ").last.map(String.init) ?? ""
            guard let close = rest[equals.upperBound...].firstIndex(of: "\"") else { break }
            attributes[name] = unescape(rest[equals.upperBound..<close])
            rest = rest[rest.index(after: close)...]
        }
        return attributes
    }

    static func text(ofParagraph id: String, in html: String) -> String? {
        guard let start = html.range(of: "<p id=\"\(id)\""),
            let open = html[start.upperBound...].firstIndex(of: ">"),
            let close = html[open...].range(of: "</p>")
        else { return nil }
        return unescape(html[html.index(after: open)..<close.lowerBound])
    }

    /// The text with the character references ``EmulatorLoginPage/escape(_:)`` writes turned back.
    static func unescape(_ text: Substring) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

extension EmulatedBrowser.Action {
    /// The sign-in page's fields as a user fills them in, with the button they press: the username
    /// (when given), the password, the code `code` reads when the page asks for one; or Cancel.
    /// Closing throws `ExternalUserAgentError.cancelled`. Shared by both emulated browsers.
    func filling(
        _ fields: [(name: String, value: String)], username: String?, code: () async throws -> String
    ) async throws -> [(name: String, value: String)] {
        var fields = fields
        switch self {
        case .close:
            throw ExternalUserAgentError.cancelled
        case .cancel:
            fields.append(("action", "cancel"))
        case .signIn(let password):
            if let index = fields.firstIndex(where: { $0.name == "username" }), let username {
                fields[index].value = username
            }
            if let index = fields.firstIndex(where: { $0.name == "password" }) {
                fields[index].value = password ?? ""
            }
            if let index = fields.firstIndex(where: { $0.name == "code" }) {
                fields[index].value = try await code()
            }
            fields.append(("action", "signin"))
        }
        return fields
    }
}
