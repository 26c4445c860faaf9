#if canImport(LoopbackHTTP)
    import AuthSupport
    import LoopbackHTTP
    /// What a request handler wants done with one request.
    enum LoopbackHTTPAction<Outcome: Sendable>: Sendable {
        /// Answer with this response and keep serving.
        case respond(LoopbackHTTPResponse)
        /// Answer with this response, close every connection and the listener, and return `Outcome`
        /// from ``LoopbackHTTPListener/serve(options:handler:)``.
        case finish(LoopbackHTTPResponse, Outcome)
    }

    /// A ``LoopbackHTTPServer`` that serves until one request gives it an outcome: the listener of a
    /// loopback redirect.
    ///
    /// Creating one binds the socket on 127.0.0.1 (so the port is known and taken before anything is
    /// shown to the user); ``serve(options:handler:)`` then serves until the handler finishes, the
    /// deadline passes, or ``stop()`` is called (cancelling the awaiting task calls it). The handler
    /// answers each request on the serving thread, so the answer never waits for the Swift
    /// concurrency pool; it must be quick and must not block. A listener serves once.
    final class LoopbackHTTPListener: Sendable {
        /// The port the listener is bound to, on 127.0.0.1.
        let port: UInt16

        private let server: LoopbackHTTPServer

        /// Binds 127.0.0.1:`port`; `port` 0 lets the system choose.
        ///
        /// - Throws: ``LoopbackHTTPError/portInUse(_:)`` when another socket holds the port;
        ///   ``LoopbackHTTPError/system(call:code:)`` when a socket call fails.
        init(port: UInt16 = 0) throws(LoopbackHTTPError) {
            server = try LoopbackHTTPServer(port: port)
            self.port = server.port
        }

        /// Whether the listener is serving: from the start of ``serve(options:handler:)`` until
        /// serving ended.
        var isServing: Bool { server.isServing }

        /// Ends serving (``serve(options:handler:)`` then throws ``LoopbackHTTPError/stopped``), or
        /// closes the socket if serving has not started. Safe to call at any time, more than once.
        func stop() {
            server.stop()
        }

        /// Serves connections until `handler` returns ``LoopbackHTTPAction/finish(_:_:)``, and returns
        /// its outcome after the finishing response is written. That connection is then half-closed,
        /// and what the browser still sends on it is dropped (for at most the linger timeout) while
        /// the caller goes on, so the browser reads the whole answer.
        ///
        /// - Throws: ``LoopbackHTTPError/timedOut`` when `options.deadline` passes;
        ///   ``LoopbackHTTPError/stopped`` when ``stop()`` is called or the awaiting task is cancelled;
        ///   ``LoopbackHTTPError/notListening`` when the listener already served or was stopped;
        ///   ``LoopbackHTTPError/system(call:code:)`` when `poll` fails.
        func serve<Outcome: Sendable>(
            options: LoopbackHTTPServeOptions,
            handler: @escaping @Sendable (LoopbackHTTPRequest) -> LoopbackHTTPAction<Outcome>
        ) async throws(LoopbackHTTPError) -> Outcome {
            let outcome = Locked<Outcome?>(nil)
            let end = try await server.serve(options: options) { request in
                switch handler(request) {
                case .respond(let response):
                    return .reply(.respond(response))
                case .finish(let response, let value):
                    // Only the first outcome counts; a later one is answered and closed like any other.
                    let first = outcome.withLock { stored in
                        guard stored == nil else { return false }
                        stored = value
                        return true
                    }
                    return .reply(LoopbackHTTPReply(response: response, closesConnection: true, endsServing: first))
                }
            }
            guard end == .finished, let value = outcome.current else { throw .stopped }
            return value
        }
    }
#endif
