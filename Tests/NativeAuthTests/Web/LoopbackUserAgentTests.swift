import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

@Suite("Loopback user agent", .hangLimit)
struct LoopbackUserAgentTests {
    private let authorizationURL =
        URL(string: "https://login.example.com/authorize?client_id=c") ?? URL(fileURLWithPath: "/")

    /// An agent whose browser only reports the URL it was asked to open; the test then plays the browser.
    private func agentWithSignal(
        port: UInt16? = nil, timeout: Duration = TestBounds.wait
    ) -> (LoopbackUserAgent, AsyncStream<URL>) {
        let (stream, continuation) = AsyncStream.makeStream(of: URL.self)
        let agent = LoopbackUserAgent(port: port, timeout: timeout) { url in
            continuation.yield(url)
        }
        return (agent, stream)
    }

    private func firstOpened(_ stream: AsyncStream<URL>) async -> URL? {
        for await url in stream { return url }
        return nil
    }

    private func port(of url: URL) throws -> UInt16 {
        try #require(url.port.flatMap { UInt16(exactly: $0) })
    }

    private func agentError(_ body: () async throws -> some Any) async -> ExternalUserAgentError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? ExternalUserAgentError
        }
    }

    @Test("prepare() binds a system-chosen port on 127.0.0.1 and returns the same URI until used")
    func prepare() throws {
        let agent = LoopbackUserAgent(path: "oauth/done") { _ in }
        let uri = try agent.prepare()
        #expect(uri.scheme == "http")
        #expect(uri.host == "127.0.0.1")
        #expect(uri.path == "/oauth/done")
        #expect(try port(of: uri) != 0)
        #expect(try agent.prepare() == uri)
    }

    @Test("a browser that follows the redirect: the callback URL comes back with the provider's query")
    func browserFollowsRedirect() async throws {
        let answers = Locked<[RawResponse]>([])
        let opened = Locked<URL?>(nil)
        let agent = LoopbackUserAgent { url in
            opened.withLock { $0 = url }
            guard
                let port = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                    .first(where: { $0.name == "port" })?.value.flatMap(UInt16.init)
            else { throw RawFailure("no port in \(url)") }
            let answer = try await RawHTTP.get(port: port, "/callback?code=abc&state=x%20y")
            answers.withLock { $0.append(answer) }
        }
        let redirectURI = try agent.prepare()
        let url = try #require(URL(string: "https://login.example.com/authorize?port=\(try port(of: redirectURI))"))
        let callback = try await agent.authorize(url: url, redirectURI: redirectURI)
        #expect(callback.absoluteString == redirectURI.absoluteString + "?code=abc&state=x%20y")
        #expect(opened.current == url)
        #expect(CallbackURLMatcher.matches(callback, redirectURI: redirectURI))
    }

    @Test("one agent serves a second sign-in on the same redirect URI, after the first closed its socket")
    func secondSignIn() async throws {
        let agent = LoopbackUserAgent { url in
            guard
                let port = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                    .first(where: { $0.name == "port" })?.value.flatMap(UInt16.init),
                let code = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
                    .first(where: { $0.name == "code" })?.value
            else { throw RawFailure("no port or code in \(url)") }
            _ = try await RawHTTP.get(port: port, "/callback?code=\(code)")
        }
        let redirectURI = try agent.prepare()
        let port = try port(of: redirectURI)
        for code in ["first", "second"] {
            let url = try #require(URL(string: "https://login.example.com/authorize?port=\(port)&code=\(code)"))
            let callback = try await agent.authorize(url: url, redirectURI: redirectURI)
            #expect(callback.absoluteString == redirectURI.absoluteString + "?code=\(code)")
        }
    }

    @Test("the success page is served with safe headers and the connection is closed")
    func successPage() async throws {
        let (agent, opened) = agentWithSignal()
        let redirectURI = try agent.prepare()
        let port = try port(of: redirectURI)
        async let result = agent.authorize(url: authorizationURL, redirectURI: redirectURI)
        #expect(await firstOpened(opened) == authorizationURL)
        let answer = try await RawHTTP.get(port: port, "/callback?code=abc&state=s")
        #expect(answer.status == 200)
        #expect(answer.head.contains("Content-Type: text/html; charset=utf-8"))
        #expect(answer.head.contains("Referrer-Policy: no-referrer"))
        #expect(answer.head.contains("Connection: close"))
        #expect(answer.text.contains("Signed in"))
        #expect(try await result.query == "code=abc&state=s")
    }

    @Test("stray requests get 404, 405, 400 or 431 and the agent keeps waiting for the callback")
    func strayRequests() async throws {
        let (agent, opened) = agentWithSignal()
        let redirectURI = try agent.prepare()
        let port = try port(of: redirectURI)
        async let result = agent.authorize(url: authorizationURL, redirectURI: redirectURI)
        _ = await firstOpened(opened)

        #expect(try await RawHTTP.get(port: port, "/favicon.ico").status == 404)
        #expect(try await RawHTTP.get(port: port, "/callback/extra?code=x").status == 404)
        let post = "POST /callback?code=x HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\n\r\n"
        let postAnswer = try await RawHTTP.answer(port: port, post)
        #expect(postAnswer.status == 405)
        #expect(postAnswer.head.contains("Allow: GET"))
        #expect(try await RawHTTP.answer(port: port, "GET /callback HTTP/1.1\n\n").status == 400)
        #expect(try await RawHTTP.answer(port: port, "HELLO\r\n\r\n").status == 400)
        let huge = "GET /callback HTTP/1.1\r\nHost: 127.0.0.1\r\nX: \(String(repeating: "a", count: 9000))\r\n\r\n"
        #expect(try await RawHTTP.answer(port: port, huge).status == 431)
        let long = "GET /callback?\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        #expect(try await RawHTTP.answer(port: port, long).status == 414)
        #expect(
            try await RawHTTP.get(port: port, "/callback?code=x", host: "evil.example:\(port)").status == 400)

        #expect(
            try await RawHTTP.get(port: port, "/callback?code=right", host: "localhost:\(port)").status == 200
        )
        #expect(try await result.query == "code=right")
    }

    @Test("an idle connection (a browser's speculative one) does not hold up the callback")
    func idleConnection() async throws {
        let (agent, opened) = agentWithSignal()
        let redirectURI = try agent.prepare()
        let port = try port(of: redirectURI)
        async let result = agent.authorize(url: authorizationURL, redirectURI: redirectURI)
        _ = await firstOpened(opened)
        let idle = try await RawHTTP.openIdle(port: port, count: 1)
        defer { RawHTTP.closeAll(idle) }
        #expect(try await RawHTTP.get(port: port, "/callback?code=abc").status == 200)
        #expect(try await result.query == "code=abc")
    }

    @Test("an error callback is returned, and its page shows the provider's error escaped")
    func errorCallback() async throws {
        let (agent, opened) = agentWithSignal()
        let redirectURI = try agent.prepare()
        let port = try port(of: redirectURI)
        async let result = agent.authorize(url: authorizationURL, redirectURI: redirectURI)
        _ = await firstOpened(opened)
        let query = "error=access_denied&error_description=%3Cscript%3Ealert(1)%3C%2Fscript%3E&state=s"
        let answer = try await RawHTTP.get(port: port, "/callback?" + query)
        #expect(answer.status == 200)
        #expect(answer.text.contains("Sign-in did not complete"))
        #expect(answer.text.contains("access_denied: &lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!answer.text.contains("<script>"))
        #expect(try await result.query == query)
    }

    @Test("a fixed port from the redirect URI is bound by authorize itself")
    func fixedPort() async throws {
        // The port is free when probed, but a listener of a test running beside this one may take
        // it before the agent binds it: then authorize ends with the port in use before opening
        // the browser (the stream ends with it, so nothing waits for a browser that never opens),
        // and the test takes another free port, a few times at most.
        for _ in 0..<5 {
            let probe = try LoopbackHTTPListener()
            let free = probe.port
            probe.stop()
            let (stream, opened) = AsyncStream.makeStream(of: URL.self)
            let agent = LoopbackUserAgent(port: free, timeout: TestBounds.wait) { url in opened.yield(url) }
            let redirectURI = try #require(URL(string: "http://localhost:\(free)/callback"))
            let authorizing = Task {
                defer { opened.finish() }
                return try await agent.authorize(url: authorizationURL, redirectURI: redirectURI)
            }
            guard await firstOpened(stream) != nil else {
                let error = await agentError { try await authorizing.value }
                #expect(
                    error?.isPortInUse == true,
                    "authorize ended without opening the browser: \(String(describing: error))")
                continue
            }
            #expect(try await RawHTTP.get(port: free, "/callback?code=1").status == 200)
            #expect(try await authorizing.value.absoluteString == "http://localhost:\(free)/callback?code=1")
            return
        }
        Issue.record("another listener took every free port before the agent bound it")
    }

    @Test("a port already taken is a typed error, from prepare() and from authorize")
    func portInUse() async throws {
        let holder = try LoopbackHTTPListener()
        defer { holder.stop() }
        let agent = LoopbackUserAgent(port: holder.port) { _ in Issue.record("the browser must not open") }
        #expect(throws: ExternalUserAgentError.self) { try agent.prepare() }
        do {
            _ = try agent.prepare()
        } catch {
            #expect(error.isPortInUse)
            #expect(error.description.contains("\(holder.port)"))
        }
        let redirectURI = try #require(URL(string: "http://127.0.0.1:\(holder.port)/callback"))
        let error = await agentError { try await agent.authorize(url: authorizationURL, redirectURI: redirectURI) }
        #expect(error?.isPortInUse == true)
    }

    @Test("no callback before the timeout is a typed error")
    func timeout() async throws {
        let (agent, _) = agentWithSignal(timeout: .milliseconds(150))
        let redirectURI = try agent.prepare()
        let error = await agentError { try await agent.authorize(url: authorizationURL, redirectURI: redirectURI) }
        #expect(error?.isTimedOut == true)
        #expect(error?.isCancelled == false)
    }

    @Test("cancelling the waiting task ends the wait promptly with a cancellation, and frees the port")
    func cancellation() async throws {
        let (agent, opened) = agentWithSignal(timeout: .seconds(300))
        let redirectURI = try agent.prepare()
        let port = try port(of: redirectURI)
        let task = Task { try await agent.authorize(url: authorizationURL, redirectURI: redirectURI) }
        _ = await firstOpened(opened)
        // A five-minute timeout: only the cancellation can end the wait within the suite's limit.
        task.cancel()
        let error = await agentError { try await task.value }
        #expect(error?.isCancelled == true)
        let again = try LoopbackHTTPListener(port: port)
        again.stop()
    }

    @Test("a task cancelled before it starts waiting never opens the browser")
    func cancelledBeforeStart() async throws {
        let agent = LoopbackUserAgent { _ in Issue.record("the browser must not open") }
        let redirectURI = try agent.prepare()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await agent.authorize(url: authorizationURL, redirectURI: redirectURI)
        }
        let error = await agentError { try await task.value }
        #expect(error?.isCancelled == true)
    }

    @Test("a browser opener that throws ends the wait with a typed error carrying the cause")
    func browserLaunchFailure() async throws {
        struct NoBrowser: Error {}
        let agent = LoopbackUserAgent { _ in throw NoBrowser() }
        let redirectURI = try agent.prepare()
        let error = await agentError { try await agent.authorize(url: authorizationURL, redirectURI: redirectURI) }
        #expect(error?.isBrowserLaunchFailed == true)
        #expect(error?.isCancelled == false)
        #expect(error?.underlyingError is NoBrowser)
    }

    @Test(
        "redirect URIs a loopback agent cannot serve",
        arguments: [
            "https://127.0.0.1:5000/callback", "http://example.com:5000/callback", "http://127.0.0.1/callback",
            "http://127.0.0.1:0/callback", "http://[::1]:5000/callback", "http://user@127.0.0.1:5000/callback",
            "myapp://callback",
        ])
    func invalidRedirectURIs(redirect: String) async throws {
        let agent = LoopbackUserAgent { _ in Issue.record("the browser must not open") }
        let redirectURI = try #require(URL(string: redirect))
        let error = await agentError { try await agent.authorize(url: authorizationURL, redirectURI: redirectURI) }
        #expect(error?.isInvalidRedirectURI == true)
    }

    @Test("a redirect URI on another port than the agent's fixed one is refused")
    func portMismatch() async throws {
        let agent = LoopbackUserAgent(port: 5001) { _ in Issue.record("the browser must not open") }
        let redirectURI = try #require(URL(string: "http://127.0.0.1:5002/callback"))
        let error = await agentError { try await agent.authorize(url: authorizationURL, redirectURI: redirectURI) }
        #expect(error?.isInvalidRedirectURI == true)
    }

    @Test("the default browser opener refuses URLs that are not http or https")
    func defaultOpenerSchemes() async {
        await #expect(throws: (any Error).self) {
            try await LoopbackUserAgent.openInSystemBrowser(URL(fileURLWithPath: "/etc/passwd"))
        }
    }

    @Test("pages escape their texts")
    func pagesEscape() {
        let pages = LoopbackCallbackPages(successTitle: "A & B <i>", successMessage: "\"quoted\" 'single'")
        let html = pages.html(error: nil, errorDescription: nil)
        #expect(html.contains("<title>A &amp; B &lt;i&gt;</title>"))
        #expect(html.contains("&quot;quoted&quot; &#39;single&#39;"))
    }
}
