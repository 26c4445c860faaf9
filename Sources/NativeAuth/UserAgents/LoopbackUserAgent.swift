// The loopback agent exists where a loopback redirect makes sense (macOS, Linux; RFC 8252 §7.3):
// iOS, tvOS, watchOS and visionOS builds link no HTTP server.
#if canImport(LoopbackHTTP)
    public import Foundation
    import AuthSupport
    import LoopbackHTTP

    /// An ``ExternalUserAgent`` for desktop and command-line apps: it opens the system browser and
    /// receives the provider's redirect on `http://127.0.0.1:<port><path>` (RFC 8252 §7.3).
    ///
    /// The agent listens on the loopback interface only. It answers exactly one request, a `GET` of
    /// the redirect path, with a small page telling the user to return to the app, and returns the
    /// callback URL (the redirect URI with the query the provider sent: `code` and `state`, or
    /// `error`). Any other request (a browser asking for `/favicon.ico`) gets `404` and the agent keeps
    /// waiting; a malformed or oversized request gets its `4xx` and is closed. The wait ends after
    /// ``timeout``, or at once when the sign-in task is cancelled.
    ///
    /// ## Choosing the port
    ///
    /// The redirect URI goes into the authorization URL, so the port must be known before that URL is
    /// built. Two ways:
    ///
    /// - Let the system choose a free port: call ``prepare()``, which binds the socket and returns the
    ///   redirect URI with the chosen port; build the authorization URL with it, then call
    ///   ``authorize(url:redirectURI:)`` with the same redirect URI. Entra ID and most providers accept
    ///   any port on a loopback redirect URI registered without one.
    ///
    ///   ```swift
    ///   let agent = LoopbackUserAgent()
    ///   let redirectURI = try agent.prepare()          // http://127.0.0.1:53124/callback
    ///   // build the authorization URL with redirectURI, then:
    ///   let callback = try await agent.authorize(url: authorizationURL, redirectURI: redirectURI)
    ///   ```
    ///
    /// - Use a fixed port: create the agent with `port:`, or simply pass a redirect URI with that port
    ///   to ``authorize(url:redirectURI:)``, which binds it then.
    ///
    /// A prepared socket serves the next ``authorize(url:redirectURI:)`` whose redirect URI names its
    /// port; after that call the socket is closed, and a later sign-in prepares again (or binds the
    /// redirect URI's port).
    ///
    /// ## Opening the browser
    ///
    /// By default the agent runs `open` (macOS) or `xdg-open` (Linux). Pass another closure to open the
    /// browser differently, or to show the URL when there is no browser on this machine:
    ///
    /// ```swift
    /// let agent = LoopbackUserAgent { url in
    ///     FileHandle.standardError.write(Data("Open this page to sign in: \(url)\n".utf8))
    /// }
    /// ```
    ///
    /// The agent starts listening before it calls the closure, and stops waiting if the closure
    /// throws before the callback arrived (``ExternalUserAgentError/isBrowserLaunchFailed``).
    ///
    /// What the closure may do: anything a browser or a person does, for as long as it likes. It
    /// runs in a task of its own, which the agent neither waits for nor cancels, so it may return
    /// at once, wait for a tool to exit, or play the browser itself: load the page with
    /// `URLSession`, post the form, request the loopback callback and return once the answer page
    /// has arrived. The agent's answers come from a thread of its own, never waiting for the Swift
    /// concurrency pool, so the callback is answered with the page (which arrives whole, even when
    /// the browser is slow to read it), and ``authorize(url:redirectURI:)`` returns as soon as the
    /// callback arrived, whatever the closure is still doing; without a callback it ends with a
    /// typed error by ``timeout``. Once the callback arrived, what the closure does or throws no
    /// longer matters. It should use asynchronous calls rather than block its thread: a blocked
    /// thread is one less for the rest of the app's tasks.
    public final class LoopbackUserAgent: ExternalUserAgent {
        /// Opens a URL in a browser; throws when it cannot.
        public typealias BrowserOpener = @Sendable (URL) async throws -> Void

        /// How long ``authorize(url:redirectURI:)`` waits for the callback when no timeout is given.
        public static let defaultTimeout: Duration = .seconds(300)

        /// The loopback port to listen on; `nil` lets the system choose one in ``prepare()``.
        public let port: UInt16?

        /// The path of the redirect URI ``prepare()`` returns; it starts with `/`.
        public let path: String

        /// How long ``authorize(url:redirectURI:)`` waits for the callback.
        public let timeout: Duration

        /// The pages shown in the browser once the callback arrived.
        public let pages: LoopbackCallbackPages

        private let openBrowser: BrowserOpener
        private let prepared = Locked<LoopbackHTTPListener?>(nil)

        /// Creates an agent; it binds no socket until ``prepare()`` or ``authorize(url:redirectURI:)``.
        ///
        /// - Parameters:
        ///   - port: The loopback port to listen on; `nil` (the default) lets the system choose a free
        ///     one when ``prepare()`` is called.
        ///   - path: The redirect path; `/` is added in front when missing. Defaults to `/callback`.
        ///   - timeout: How long to wait for the callback; a value that is not positive means
        ///     ``defaultTimeout``.
        ///   - pages: The pages shown in the browser once the callback arrived.
        ///   - openBrowser: Shows the authorization URL to the user; defaults to
        ///     ``openInSystemBrowser(_:)``.
        public init(
            port: UInt16? = nil,
            path: String = "/callback",
            timeout: Duration = LoopbackUserAgent.defaultTimeout,
            pages: LoopbackCallbackPages = LoopbackCallbackPages(),
            openBrowser: @escaping BrowserOpener = LoopbackUserAgent.openInSystemBrowser
        ) {
            self.port = port == 0 ? nil : port
            self.path = path.hasPrefix("/") ? path : "/" + path
            self.timeout = timeout > .zero ? timeout : Self.defaultTimeout
            self.pages = pages
            self.openBrowser = openBrowser
        }

        deinit {
            prepared.withLock { $0 }?.stop()
        }

        /// Binds the loopback socket now, if it is not bound yet, and returns the redirect URI to put
        /// in the authorization URL: `http://127.0.0.1:<port><path>`, with the port the system chose
        /// when the agent has none.
        ///
        /// Calling it again before ``authorize(url:redirectURI:)`` returns the same URI.
        ///
        /// - Throws: ``ExternalUserAgentError`` with ``ExternalUserAgentError/isPortInUse`` when the
        ///   agent's port is taken, or ``ExternalUserAgentError/isListenerFailed`` when the socket
        ///   cannot be set up.
        public func prepare() throws(ExternalUserAgentError) -> URL {
            let bound = prepared.withLock { prepared -> Result<LoopbackHTTPListener, ExternalUserAgentError> in
                if let prepared { return .success(prepared) }
                let result = Result { () throws(ExternalUserAgentError) in try Self.openListener(port: port ?? 0) }
                prepared = try? result.get()
                return result
            }
            let listener = try bound.get()
            guard let url = URL(string: "http://127.0.0.1:\(listener.port)\(Self.encodedPath(path))") else {
                throw .invalidRedirectURI("the path \"\(path)\" does not make a valid URL")
            }
            return url
        }

        /// Opens `url` in the browser and waits for the provider to redirect to `redirectURI`.
        ///
        /// - Parameters:
        ///   - url: The authorization URL; its `redirect_uri` must be `redirectURI`.
        ///   - redirectURI: `http://127.0.0.1:<port>/<path>` (or `http://localhost:<port>/<path>`)
        ///     with an explicit port: the one ``prepare()`` returned, or a fixed one.
        /// - Returns: The callback URL: `redirectURI`'s scheme, host, port and path with the query the
        ///   provider sent (for example `code` and `state`, or `error` and `error_description`). An
        ///   error response from the provider is returned, not thrown: reading it is the caller's job.
        /// - Throws: ``ExternalUserAgentError``: ``ExternalUserAgentError/isCancelled`` when the task is
        ///   cancelled; ``ExternalUserAgentError/isTimedOut`` after ``timeout``;
        ///   ``ExternalUserAgentError/isPortInUse`` when the port is taken;
        ///   ``ExternalUserAgentError/isBrowserLaunchFailed`` when the browser opener throws;
        ///   ``ExternalUserAgentError/isInvalidRedirectURI`` when `redirectURI` is not a loopback
        ///   `http` URL with a port, or names another port than the agent's fixed ``port``;
        ///   ``ExternalUserAgentError/isListenerFailed`` when a socket call fails.
        public func authorize(url: URL, redirectURI: URL) async throws -> URL {
            try await run(url: url, redirectURI: redirectURI)
        }

        private func run(url: URL, redirectURI: URL) async throws(ExternalUserAgentError) -> URL {
            let redirect = try LoopbackRedirect(redirectURI)
            if let port, port != redirect.port {
                throw .invalidRedirectURI("it names port \(redirect.port), but the agent listens on port \(port)")
            }
            guard !Task.isCancelled else { throw .cancelled }
            let listener = try takeListener(port: redirect.port)
            let deadline = ContinuousClock.now + timeout
            let launchFailure = Locked<(any Error)?>(nil)
            // The opener runs in a task of its own, which is neither awaited nor cancelled: the
            // callback ends the wait whatever the opener is doing, and an opener that delivers the
            // callback itself must be left to read the answer. (Cancelling it then could also
            // deadlock: FoundationNetworking's URLSession cancels its data task by waiting for the
            // session's queue, while that queue may be resuming the very task being cancelled.)
            Task { [openBrowser] in
                do {
                    try await openBrowser(url)
                } catch {
                    // Ends the wait unless the callback already did.
                    launchFailure.withLock { $0 = error }
                    listener.stop()
                }
            }

            var options = LoopbackHTTPServeOptions()
            options.limits.maxBodyBytes = 16 * 1024
            options.readTimeout = min(.seconds(10), timeout)
            options.deadline = deadline
            let pages = pages
            do {
                return try await listener.serve(options: options) { request in
                    redirect.answer(request, pages: pages)
                }
            } catch {
                // The opener may fail before serving starts (the listener is then closed and will not
                // serve) or while it runs (serving stops): either way the launch failure is the reason.
                if let failure = launchFailure.withLock({ $0 }) { throw .browserLaunchFailed(failure) }
                switch error {
                case .stopped: throw .cancelled
                case .timedOut: throw .timedOut
                case .portInUse(let port): throw ExternalUserAgentError(.portInUse(port))
                case .system, .notListening: throw ExternalUserAgentError(.listenerFailed(error.description))
                }
            }
        }

        /// The prepared listener when it is on `port`, or a new one bound to `port`.
        private func takeListener(port: UInt16) throws(ExternalUserAgentError) -> LoopbackHTTPListener {
            let taken = prepared.withLock { prepared -> LoopbackHTTPListener? in
                guard let listener = prepared, listener.port == port else { return nil }
                prepared = nil
                return listener
            }
            if let taken { return taken }
            return try Self.openListener(port: port)
        }

        private static func openListener(port: UInt16) throws(ExternalUserAgentError) -> LoopbackHTTPListener {
            do {
                return try LoopbackHTTPListener(port: port)
            } catch {
                if case .portInUse(let port) = error { throw ExternalUserAgentError(.portInUse(port)) }
                throw ExternalUserAgentError(.listenerFailed(error.description))
            }
        }

        private static func encodedPath(_ path: String) -> String {
            path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        }
    }

    /// A checked loopback redirect URI, and the rules for answering requests to it. A class: built
    /// once per sign-in, then only read.
    final class LoopbackRedirect: Sendable {
        let uri: URL
        /// The redirect URI without query or fragment: the start of every callback URL.
        let base: String
        let port: UInt16
        /// The path, percent-encoded as it appears in a request target.
        let path: String

        init(_ uri: URL) throws(ExternalUserAgentError) {
            guard uri.scheme?.lowercased() == "http" else {
                throw .invalidRedirectURI("a loopback redirect URI uses http")
            }
            guard let host = uri.host?.lowercased(), host == "127.0.0.1" || host == "localhost" else {
                throw .invalidRedirectURI("a loopback redirect URI names the host 127.0.0.1 (or localhost)")
            }
            guard let port = uri.port, let port16 = UInt16(exactly: port), port16 != 0 else {
                throw .invalidRedirectURI("a loopback redirect URI needs an explicit port; call prepare() to get one")
            }
            guard uri.user == nil, uri.password == nil, uri.fragment == nil else {
                throw .invalidRedirectURI("a loopback redirect URI has no user, password or fragment")
            }
            guard var components = URLComponents(url: uri, resolvingAgainstBaseURL: false) else {
                throw .invalidRedirectURI("it is not a valid URL")
            }
            components.query = nil
            components.fragment = nil
            let path = uri.path(percentEncoded: true)
            self.uri = uri
            self.base = components.url?.absoluteString ?? uri.absoluteString
            self.port = port16
            self.path = path.isEmpty ? "/" : path
        }

        /// How the agent answers `request`: finish with the callback URL, or answer and keep waiting.
        func answer(_ request: LoopbackHTTPRequest, pages: LoopbackCallbackPages) -> LoopbackHTTPAction<URL> {
            guard isLoopbackHost(request.header("Host")) else { return .respond(.status(400)) }
            guard request.path == path else { return .respond(.status(404)) }
            guard request.method == "GET" else {
                var response = LoopbackHTTPResponse.status(405)
                response.headers.append(LoopbackHTTPHeader("Allow", "GET"))
                return .respond(response)
            }
            let query = request.query ?? ""
            let text = query.isEmpty ? base : base + "?" + query
            guard let callback = URL(string: text), CallbackURLMatcher.matches(callback, redirectURI: uri) else {
                return .respond(.status(400))
            }
            let items = URLComponents(string: "?" + query)?.queryItems ?? []
            let error = items.first { $0.name == "error" }?.value
            let description = items.first { $0.name == "error_description" }?.value
            return .finish(Self.page(pages.html(error: error, errorDescription: description)), callback)
        }

        /// Whether a `Host` header names this loopback listener (a browser always sends one); a request
        /// for another host reached the port through a name that is not ours (DNS rebinding).
        private func isLoopbackHost(_ header: String?) -> Bool {
            guard let header else { return true }
            let lowered = header.lowercased()
            return ["127.0.0.1", "localhost"].contains { host in
                lowered == host || lowered == "\(host):\(port)"
            }
        }

        private static func page(_ html: String) -> LoopbackHTTPResponse {
            LoopbackHTTPResponse(
                status: 200,
                headers: [
                    LoopbackHTTPHeader("Content-Type", "text/html; charset=utf-8"),
                    LoopbackHTTPHeader("Cache-Control", "no-store"),
                    LoopbackHTTPHeader("Referrer-Policy", "no-referrer"),
                    LoopbackHTTPHeader("X-Content-Type-Options", "nosniff"),
                    LoopbackHTTPHeader("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"),
                ],
                body: Array(html.utf8))
        }
    }
#endif
