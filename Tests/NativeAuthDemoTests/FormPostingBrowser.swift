import Foundation
import NativeAuth
import NativeAuthEmulator

@testable import NativeAuthDemo

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Plays the user's browser over real loopback HTTP, for the demo's `LoopbackUserAgent`: it loads
/// the authorization URL from the served tenant, fills in the sign-in page's form (its action and
/// fields read from the HTML; a code page gets the last code the tenant sent), posts it, and
/// follows the tenant's redirect to the agent's loopback callback, as a browser would. Every
/// request is bounded by the transport's timeout.
struct FormPostingBrowser: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    let tenant: EmulatedTenant
    /// The password typed for each user, by username.
    let passwords: [String: String]
    /// The username typed when the page has none prefilled.
    var username: String?
    let transport = URLSessionTransport(timeout: 20)
    /// Every authorization URL this browser was shown.
    let shown = ShownURLs()

    /// The opener to hand to the demo.
    var opener: LoopbackUserAgent.BrowserOpener {
        { url in try await self.open(url) }
    }

    func open(_ url: URL) async throws {
        shown.append(url)
        var request = HTTPRequest(method: "GET", url: url)
        var typedUsername = username
        for _ in 0..<6 {
            let answer = try await transport.send(request)
            if (300...399).contains(answer.statusCode) {
                guard let location = answer.header("Location"),
                    let target = URL(string: location, relativeTo: request.url)?.absoluteURL
                else { throw Failure("a redirect without a location") }
                // The redirect to the demo's loopback agent: deliver it as a browser does.
                let callback = try await transport.send(HTTPRequest(method: "GET", url: target))
                guard callback.statusCode == 200 else { throw Failure("the callback answered \(callback.statusCode)") }
                return
            }
            guard answer.statusCode == 200 else { throw Failure("the page answered \(answer.statusCode)") }
            let html = String(decoding: answer.body, as: UTF8.self)
            guard let form = Self.tags("form", in: html).first, let action = Self.attribute("action", in: form),
                let target = URL(string: action, relativeTo: request.url)?.absoluteURL
            else { throw Failure("the page has no form") }
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
                    value = typedUsername.flatMap { tenant.lastCode(sentTo: $0) } ?? ""
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
        throw Failure("too many pages")
    }

    /// The opening tags `<name …>` in `html`.
    static func tags(_ name: String, in html: String) -> [Substring] {
        var found: [Substring] = []
        var rest = html[...]
        while let start = rest.range(of: "<" + name + " "), let end = rest[start.upperBound...].firstIndex(of: ">") {
            found.append(rest[start.lowerBound...end])
            rest = rest[rest.index(after: end)...]
        }
        return found
    }

    /// The double-quoted value of `name` in `tag`, with the page's entities decoded.
    static func attribute(_ name: String, in tag: Substring) -> String? {
        guard let start = tag.range(of: " " + name + "=\""), let end = tag[start.upperBound...].firstIndex(of: "\"")
        else { return nil }
        return String(tag[start.upperBound..<end]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// URLs collected across tasks.
final class ShownURLs: Sendable {
    private let urls = DemoLocked<[URL]>([])
    func append(_ url: URL) { urls.withLock { $0.append(url) } }
    var all: [URL] { urls.withLock { $0 } }
}
