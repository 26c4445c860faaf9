public import Foundation
public import NativeAuth
public import NativeAuthEmulator

/// Plays the user's browser over real HTTP against a served tenant: it loads the authorization
/// URL, fills in each page's form (its action and fields read from the HTML: the username typed
/// or prefilled, the user's password, the last code the tenant sent the user), posts it, and goes
/// on until the tenant answers with a redirect. Every request is bounded by the transport's
/// timeout; `URLSessionTransport` never follows a redirect, so the browser sees each one.
///
/// As an ``ExternalUserAgent`` it returns the redirect to the redirect URI without following it
/// (it never listens there); as a `LoopbackUserAgent` opener it delivers the redirect to the
/// agent's loopback callback, as a browser does.
public struct FormPostingBrowser: ExternalUserAgent, Sendable {
    /// The tenant whose codes the browser reads (`nil`: a code page gets no code).
    public let tenant: EmulatedTenant?
    /// The password typed for each user, by username.
    public let passwords: [String: String]
    /// The username typed when the page has none prefilled.
    public var username: String?
    public let transport: URLSessionTransport
    private let shown = LockedValue<[URL]>([])

    public init(
        tenant: EmulatedTenant?, passwords: [String: String], username: String? = nil,
        transport: URLSessionTransport = URLSessionTransport(timeout: RawHTTP.timeout)
    ) {
        self.tenant = tenant
        self.passwords = passwords
        self.username = username
        self.transport = transport
    }

    /// Every authorization URL this browser was shown, in order.
    public var shownURLs: [URL] { shown.current }

    /// The opener to hand to a `LoopbackUserAgent`: signs in, then delivers the redirect to the
    /// agent's callback and expects its page.
    public var opener: LoopbackUserAgent.BrowserOpener {
        { url in
            let target = try await self.signIn(at: url)
            let callback = try await self.transport.send(HTTPRequest(method: "GET", url: target))
            guard callback.statusCode == 200 else { throw TestFailure("the callback answered \(callback.statusCode)") }
        }
    }

    public func authorize(url: URL, redirectURI: URL) async throws -> URL {
        let target = try await signIn(at: url)
        guard target.absoluteString.hasPrefix(redirectURI.absoluteString) else {
            throw TestFailure("the redirect goes elsewhere than the redirect URI: \(target)")
        }
        return target
    }

    /// Loads `url` and fills in and posts the pages it leads to; the redirect the tenant answers
    /// with in the end, as an absolute URL, not followed.
    public func signIn(at url: URL) async throws -> URL {
        shown.withLock { $0.append(url) }
        var request = HTTPRequest(method: "GET", url: url)
        var typedUsername = username
        for _ in 0..<6 {
            let answer = try await transport.send(request)
            if (300...399).contains(answer.statusCode) {
                guard let location = answer.header("Location"),
                    let target = URL(string: location, relativeTo: request.url)?.absoluteURL
                else { throw TestFailure("a redirect without a location") }
                return target
            }
            guard answer.statusCode == 200 else { throw TestFailure("the page answered \(answer.statusCode)") }
            let html = String(decoding: answer.body, as: UTF8.self)
            guard let form = Self.tags("form", in: html).first, let action = Self.attribute("action", in: form),
                let target = URL(string: action, relativeTo: request.url)?.absoluteURL
            else { throw TestFailure("the page has no form") }
            var fields: [(String, String)] = []
            for input in Self.tags("input", in: html) {
                guard let name = Self.attribute("name", in: input) else { continue }
                var value = Self.attribute("value", in: input) ?? ""
                switch name {
                case "username":
                    if value.isEmpty, let typedUsername { value = typedUsername }
                    typedUsername = value
                case "password":
                    value = typedUsername.flatMap { passwords[$0] } ?? ""
                case "code":
                    value = typedUsername.flatMap { tenant?.lastCode(sentTo: $0) } ?? ""
                default: break
                }
                fields.append((name, value))
            }
            fields.append(("action", "signin"))
            let body = fields.map { Self.escape($0.0) + "=" + Self.escape($0.1) }.joined(separator: "&")
            request = HTTPRequest(
                method: "POST", url: target, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data(body.utf8))
        }
        throw TestFailure("too many pages")
    }

    /// The opening tags `<name …>` in `html`.
    public static func tags(_ name: String, in html: String) -> [Substring] {
        var found: [Substring] = []
        var rest = html[...]
        while let start = rest.range(of: "<" + name + " "), let end = rest[start.upperBound...].firstIndex(of: ">") {
            found.append(rest[start.lowerBound...end])
            rest = rest[rest.index(after: end)...]
        }
        return found
    }

    /// The double-quoted value of `name` in `tag`, with the page's entities decoded.
    public static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.range(of: " " + name + "=\""), let end = tag[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return String(tag[start.upperBound..<end]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `text` percent-encoded for a form body: everything but the unreserved characters.
    public static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
