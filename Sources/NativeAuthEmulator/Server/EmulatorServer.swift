import AuthSupport
public import Foundation
package import LoopbackHTTP
import NativeAuth

/// Serves an ``EmulatedTenant`` over HTTP/1.1 on 127.0.0.1, for UI tests, simulators, other
/// processes and browsers.
///
/// ```swift
/// let tenant = EmulatedTenant(clock: ManualClock())
/// let server = try EmulatorServer(tenant: tenant)   // binds 127.0.0.1 on a free port
/// server.start()
/// // Point a client at server.authority (http://127.0.0.1:PORT/contoso.onmicrosoft.com)
/// // and tenant.clientId; drive the tenant from outside at server.controlURL.
/// await server.stop()
/// ```
///
/// Every request outside ``controlPath`` is handed to ``EmulatedTenant/send(_:)``, with its URL
/// rewritten from `http://127.0.0.1:PORT/{path}` to the tenant's own origin (`https://{subdomain}.ciamlogin.com/{path}`),
/// which is what the tenant routes on; whatever the tenant answers is written back. A `Forwarded`
/// header (RFC 7239) tells the tenant the host and scheme the client used, and the tenant's web
/// endpoints (discovery, the sign-in page) write their URLs on the server's origin,
/// `http://127.0.0.1:PORT`, so browsers and URLSession clients can follow them. When the tenant answers
/// with a network fault (a forced ``ForcedAnswer/networkFailure``, ``ForcedAnswer/timeout``,
/// ``ForcedAnswer/cannotConnect`` or ``ForcedAnswer/lostAfterProcessing``), the head of an answer
/// is written and then the connection is closed, so the client sees the connection lost in the
/// middle of the answer (`URLError.networkConnectionLost` with URLSession). A connection closed
/// before any byte would not do: HTTP clients send the request again on a new connection then.
///
/// Requests under ``controlPath`` (`/emulator/v1/…`) drive the tenant: users, sent codes, forced
/// answers, the clock, reset, snapshots. Docs/EmulatorServer.md lists them, with every endpoint.
///
/// Requests are answered on the server's own thread, as they arrive, whatever the app's or the
/// test's tasks are doing: an answer never waits for the Swift concurrency pool. Only a tenant
/// whose ``EmulatorSettings/latency`` holds its answers on its clock answers in a task, which
/// awaits that clock; ``Configuration/latency`` is waited out by the serving thread itself.
///
/// The server binds 127.0.0.1 only, never another interface. It serves many connections at
/// once, keeps connections alive, answers requests on one connection in order, and holds
/// requests to the sizes in ``Configuration``: a request line that is too long gets `414`, headers
/// that are too large `431`, a body that is too large `413`, each with a one-line explanation. A
/// connection that does not deliver a whole request within ``Configuration/requestTimeout`` is
/// closed, and at most ``maxConnections`` are open at once (more are closed as soon as they are
/// accepted), so idle or trickling clients cannot starve the others.
public final class EmulatorServer: Sendable {
    /// The bounds and timings of a server.
    public struct Configuration: Sendable, Equatable {
        /// The port to listen on; 0 (the default) lets the system choose a free one.
        public var port: UInt16 = 0
        /// The most connections open at once (default 1024). When the process's open-file limit
        /// is too low for it, the server raises the soft limit (as far as the hard limit allows);
        /// if that is not enough, the cap is lowered to three quarters of the limit. See
        /// ``EmulatorServer/maxConnections``.
        public var maxConnections: Int = 1024
        /// How long a connection may stay silent, from its opening or from the previous answer,
        /// before it is closed, and how long a request may then take to arrive whole from its first
        /// byte before it is answered `408` and closed (default 10 s each).
        public var requestTimeout: Duration = .seconds(10)
        /// How long a client may take to read one answer before its connection is closed (default 10 s).
        public var writeTimeout: Duration = .seconds(10)
        /// The longest request line, in bytes (default 8 KiB); longer gets `414 URI Too Long`.
        public var maxRequestLineBytes: Int = 8 * 1024
        /// The largest request head (request line and headers), in bytes (default 16 KiB); larger
        /// gets `431 Request Header Fields Too Large`.
        public var maxHeaderBytes: Int = 16 * 1024
        /// The most header lines of a request (default 100); more gets `431`.
        public var maxHeaderCount: Int = 100
        /// The largest request body, in bytes, whether sent with `Content-Length` or chunked
        /// (default 1 MiB); larger gets `413 Content Too Large`.
        public var maxBodyBytes: Int = 1024 * 1024
        /// A real delay before each request to the tenant is answered (default none); control API
        /// calls are answered at once.
        public var latency: Duration = .zero
        /// How long ``EmulatorServer/stop()`` lets requests being answered finish (default 5 s).
        public var drainTimeout: Duration = .seconds(5)

        /// The defaults.
        public init() {}
    }

    /// The path every control API call starts with.
    public static let controlPath = "/emulator/v1"

    /// The tenant the server serves.
    public let tenant: EmulatedTenant
    /// The configuration the server was created with.
    public let configuration: Configuration
    /// The port the server is bound to.
    public let port: UInt16
    /// The address the listening socket is bound to, as the system reports it: always `127.0.0.1`.
    public let boundAddress: String
    /// The most connections open at once: ``Configuration/maxConnections``, lowered to fit the
    /// process's open-file limit when that could not be raised enough.
    public let maxConnections: Int

    private let engine: LoopbackHTTPServer
    private let handler: EmulatorRequestHandler
    private let lifecycle = Locked(Lifecycle())

    private struct Lifecycle {
        var started = false
        var stopped = false
        var finished = false
        var failure: EmulatorServerError?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Binds 127.0.0.1 on ``Configuration/port`` (a free port when 0) without serving yet; call
    /// ``start()`` to serve.
    ///
    /// The users and refresh tokens the tenant has now are what a control API `reset` returns it to.
    ///
    /// - Throws: ``EmulatorServerError`` when the port is in use or the socket cannot be made.
    public init(tenant: EmulatedTenant, configuration: Configuration = Configuration()) throws(EmulatorServerError) {
        do {
            engine = try LoopbackHTTPServer(port: configuration.port, backlog: 1024)
        } catch {
            throw EmulatorServerError(error)
        }
        self.tenant = tenant
        self.configuration = configuration
        port = engine.port
        boundAddress = engine.address
        maxConnections = Self.connectionCap(configuration.maxConnections)
        let base = URL(string: "http://127.0.0.1:\(engine.port)") ?? URL(fileURLWithPath: "/")
        handler = EmulatorRequestHandler(
            tenant: tenant, baseURL: base, latency: configuration.latency,
            control: EmulatorControlAPI(tenant: tenant, baseURL: base, initialState: tenant.snapshot()))
    }

    // MARK: - Addresses

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { handler.baseURL }

    /// The authority to configure a client with: `http://127.0.0.1:PORT/{subdomain}.onmicrosoft.com`.
    ///
    /// ``NativeAuthConfiguration`` accepts `http` for loopback hosts only, which this is.
    public var authority: URL {
        URL(string: baseURL.absoluteString + tenant.authority.path) ?? baseURL
    }

    /// The base of the control API: `http://127.0.0.1:PORT/emulator/v1`.
    public var controlURL: URL {
        URL(string: baseURL.absoluteString + Self.controlPath) ?? baseURL
    }

    /// The URL of `endpoint` on this server: ``authority`` followed by the endpoint's path.
    public func url(for endpoint: EmulatorEndpoint) -> URL {
        authority.appendingPathComponent(endpoint.rawValue)
    }

    // MARK: - Serving

    /// Starts serving on a thread of its own and returns at once. Calling it again, or after
    /// ``stop()``, does nothing.
    public func start() {
        let claimed = lifecycle.withLock { lifecycle in
            guard !lifecycle.started, !lifecycle.stopped else { return false }
            lifecycle.started = true
            return true
        }
        guard claimed else { return }
        serve()
    }

    /// Stops serving and returns once it has ended: no new connection or request is taken, idle
    /// connections are closed, requests being answered are finished (for at most
    /// ``Configuration/drainTimeout``), then the port and every connection are closed, and their
    /// unfinished answers cancelled. A connection whose last answer was written lingers, for at
    /// most two seconds, until its client closes, so that a client still sending reads that answer
    /// rather than a reset. Safe to call more than once, and before ``start()`` (the port is then
    /// closed).
    public func stop() async {
        let started = lifecycle.withLock { lifecycle in
            lifecycle.stopped = true
            return lifecycle.started
        }
        engine.stop()
        guard started else { return }
        await waitUntilStopped()
    }

    /// Waits until serving has ended, after ``stop()`` or a failure; returns at once when the
    /// server was never started.
    ///
    /// - Returns: The failure that ended serving, or `nil` when it was stopped.
    @discardableResult
    public func waitUntilStopped() async -> EmulatorServerError? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = lifecycle.withLock { lifecycle in
                guard lifecycle.started, !lifecycle.finished else { return true }
                lifecycle.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        return lifecycle.withLock { $0.failure }
    }

    /// Starts the serving thread now (not in a task, which would wait for the concurrency pool).
    private func serve() {
        var options = LoopbackHTTPServeOptions()
        options.limits.maxRequestLineBytes = max(16, configuration.maxRequestLineBytes)
        options.limits.maxHeadBytes = max(options.limits.maxRequestLineBytes, configuration.maxHeaderBytes)
        options.limits.maxHeaderCount = max(1, configuration.maxHeaderCount)
        options.limits.maxBodyBytes = max(0, configuration.maxBodyBytes)
        options.limits.acceptsChunkedBodies = true
        options.readTimeout = max(.milliseconds(1), configuration.requestTimeout)
        options.writeTimeout = max(.milliseconds(1), configuration.writeTimeout)
        options.drainTimeout = max(.zero, configuration.drainTimeout)
        options.maxConnections = maxConnections
        options.keepAlive = true
        let (handler, lifecycle) = (handler, lifecycle)
        engine.start(options: options) { request in
            handler.answer(request)
        } completion: { result in
            var failure: EmulatorServerError?
            if case .failure(let error) = result, error != .notListening { failure = EmulatorServerError(error) }
            let waiters = lifecycle.withLock { lifecycle in
                lifecycle.finished = true
                lifecycle.failure = failure
                defer { lifecycle.waiters = [] }
                return lifecycle.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// How many connections are open now, and how many were accepted since serving started.
    package var connectionCounts: LoopbackHTTPConnectionCounts { engine.connectionCounts }

    /// `requested`, lowered to three quarters of the open-file limit (the rest is left for the
    /// process's other descriptors) after raising the soft limit towards `requested` plus a third;
    /// at least 1.
    static func connectionCap(_ requested: Int) -> Int {
        let wanted = requested > Int.max / 2 ? Int.max / 2 : requested / 3 * 4 + 64
        if let current = LoopbackHTTPServer.openFileLimit(), current < wanted {
            LoopbackHTTPServer.raiseOpenFileLimit(to: wanted)
        }
        let limit = LoopbackHTTPServer.openFileLimit().map { $0 / 4 * 3 } ?? requested
        return max(1, min(requested, limit))
    }
}

/// Why an ``EmulatorServer`` could not start, or stopped serving on its own.
public struct EmulatorServerError: Error, Sendable, Equatable, LocalizedError, CustomStringConvertible {
    /// The kind of problem.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Another socket holds the port.
        case portInUse
        /// A socket call failed.
        case socketFailure
    }

    /// The kind of problem.
    public let kind: Kind
    /// What went wrong, in one sentence, such as `Port 8080 on 127.0.0.1 is already in use.`
    public let reason: String

    init(_ error: LoopbackHTTPError) {
        switch error {
        case .portInUse(let port):
            kind = .portInUse
            reason = "Port \(port) on 127.0.0.1 is already in use."
        case .system, .timedOut, .stopped, .notListening:
            kind = .socketFailure
            reason = "The server's socket failed: \(error.description)."
        }
    }

    /// The ``reason``.
    public var description: String { reason }

    /// The ``reason``.
    public var errorDescription: String? { reason }
}
