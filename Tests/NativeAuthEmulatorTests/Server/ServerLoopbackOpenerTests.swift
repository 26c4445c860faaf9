import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `LoopbackUserAgent` whose opener plays the browser itself, as an app developer without a
/// browser window writes it with plain `URLSession`: it loads the authorization page, posts the
/// sign-in form, requests the loopback callback, and returns once the answer page has arrived.
/// The agent must answer that request with its page and return the callback while the opener is
/// still waiting for that page, whatever the Swift concurrency pool is doing.
@Suite("Emulator server: a loopback opener that plays the browser", .hangLimit)
struct ServerLoopbackOpenerTests {
    static let username = "ada@contoso.com"
    static let password = "Analytical-Engine-1843"
    /// The bound on every wait of these tests.
    static let bound: Duration = TestBounds.wait

    /// How the opener's browser treats the sign-in page's redirect to the loopback callback.
    enum Redirects: String, CaseIterable, CustomTestStringConvertible {
        /// The redirect comes back to the opener, which then requests the callback itself.
        case refused
        /// URLSession follows it: the form's post ends with the callback's answer.
        case followed

        var testDescription: String { rawValue }
    }

    /// What the opener's browser saw last: the callback's answer.
    struct Seen: Sendable {
        var status: Int
        var url: URL?
        var page: String
    }

    @Test("the callback is answered with the page and the sign-in completes", arguments: Redirects.allCases)
    func openerPlaysTheBrowser(redirects: Redirects) async throws {
        let tenant = EmulatedTenant()
        tenant.addUser(EmulatedUser(username: Self.username, password: Self.password))
        let server = try EmulatorServer(tenant: tenant)
        server.start()
        let configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: server.authority)
        let client = NativeAuthClient(configuration: configuration, credentialStore: InMemoryCredentialStore())

        let (seen, delivered) = AsyncStream.makeStream(of: Result<Seen, any Error>.self)
        let agent = LoopbackUserAgent(timeout: Self.bound) { url in
            do {
                delivered.yield(.success(try await Self.playBrowser(url, redirects: redirects)))
            } catch {
                delivered.yield(.failure(error))
                throw error
            }
        }
        let redirectURI = try agent.prepare()
        let account = try await client.signInWithBrowser(
            WebSignInParameters(scopes: []), redirectURI: redirectURI, using: agent)
        #expect(account.account.username == Self.username)

        // The opener returns too, with the agent's whole answer page.
        let outcome = try #require(await Self.first(of: seen, within: Self.bound), "the opener never returned")
        let page = try outcome.get()
        #expect(page.status == 200)
        #expect(page.url?.port == redirectURI.port)
        #expect(page.url?.path == redirectURI.path)
        #expect(page.page.contains("<h1>Signed in</h1>"))
        #expect(page.page.hasSuffix("</body></html>\n"))

        let paths = tenant.receivedRequests.map { "\($0.method) \($0.url.path)" }
        #expect(paths.contains("GET /\(tenant.tenantId)/oauth2/v2.0/authorize"))
        #expect(paths.contains("POST /\(tenant.tenantId)/oauth2/v2.0/token"))
        await server.stop()
    }

    /// The opener's browser: `URLSession` with every request bounded, the form read from the page.
    static func playBrowser(_ url: URL, redirects: Redirects) async throws -> Seen {
        let timeout = TimeInterval(bound.components.seconds)
        let session =
            redirects == .refused
            ? URLSession(configuration: .ephemeral, delegate: RedirectRefuser(), delegateQueue: nil)
            : URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }

        let (html, _) = try await session.data(for: URLRequest(url: url, timeoutInterval: timeout))
        let form = try Form(String(decoding: html, as: UTF8.self), base: url)
        var post = URLRequest(url: form.action, timeoutInterval: timeout)
        post.httpMethod = "POST"
        post.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let fields = form.hidden + [("username", username), ("password", password), ("action", "signin")]
        post.httpBody = Data(
            fields.map { FormPostingBrowser.escape($0.0) + "=" + FormPostingBrowser.escape($0.1) }.joined(
                separator: "&"
            ).utf8)
        var (body, response) = try await session.data(for: post)

        if redirects == .refused {
            guard let redirect = response as? HTTPURLResponse, redirect.statusCode == 302,
                let location = redirect.value(forHTTPHeaderField: "Location"), let callback = URL(string: location)
            else { throw BrowserFailure("the form answered with no redirect") }
            (body, response) = try await session.data(for: URLRequest(url: callback, timeoutInterval: timeout))
        }
        guard let answer = response as? HTTPURLResponse else { throw BrowserFailure("no HTTP answer") }
        return Seen(status: answer.statusCode, url: answer.url, page: String(decoding: body, as: UTF8.self))
    }

    /// The first element of `stream`, or `nil` when `limit` passes first.
    static func first<Element: Sendable>(of stream: AsyncStream<Element>, within limit: Duration) async -> Element? {
        await withTaskGroup(of: Element?.self) { group in
            group.addTask {
                for await element in stream { return element }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Why the opener's browser could not go on.
    struct BrowserFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Refuses every redirect, so the `302` to the callback comes back to the caller.
    final class RedirectRefuser: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// The sign-in page's form: its action and its hidden fields, read from the HTML.
    struct Form {
        let action: URL
        let hidden: [(String, String)]

        init(_ html: String, base: URL) throws {
            guard let tag = FormPostingBrowser.tags("form", in: html).first,
                let action = FormPostingBrowser.attribute("action", in: tag),
                let url = URL(string: action, relativeTo: base)?.absoluteURL
            else { throw BrowserFailure("the page has no form") }
            self.action = url
            hidden = FormPostingBrowser.tags("input", in: html)
                .filter { FormPostingBrowser.attribute("type", in: $0) == "hidden" }
                .compactMap { tag in
                    FormPostingBrowser.attribute("name", in: tag).map {
                        ($0, FormPostingBrowser.attribute("value", in: tag) ?? "")
                    }
                }
        }
    }
}
