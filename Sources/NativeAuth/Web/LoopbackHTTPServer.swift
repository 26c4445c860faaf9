import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a ``LoopbackHTTPServer`` serves its connections.
package struct LoopbackHTTPServeOptions: Sendable {
    /// The size bounds of each request, and whether chunked bodies are taken.
    package var limits = LoopbackHTTPLimits()
    /// How long a connection may take to deliver a whole request (from its opening, or from the
    /// previous response on a kept-alive connection) before it is closed: with `408` when part of
    /// a request arrived, silently when nothing did.
    package var readTimeout: Duration = .seconds(10)
    /// How long writing one response may wait for the peer to read it before the connection is closed.
    package var writeTimeout: Duration = .seconds(5)
    /// When to give up with ``LoopbackHTTPError/timedOut``; `nil` waits until stopped.
    package var deadline: ContinuousClock.Instant?
    /// The most connections open at once; one more is closed as soon as it is accepted.
    package var maxConnections = 16
    /// Whether a connection stays open after a response when the client allows it. When `false`,
    /// every response says `Connection: close` and the connection is closed after it.
    package var keepAlive = false
    /// How long ``LoopbackHTTPServer/stop()`` lets the requests being answered finish (their
    /// responses written) before every connection is closed.
    package var drainTimeout: Duration = .seconds(5)
    /// How long a connection that was answered for the last time keeps reading, and dropping,
    /// what the client still sends, so that the client reads the answer rather than a reset.
    package var lingerTimeout: Duration = .seconds(2)

    /// The defaults: 10 s to deliver a request, 5 s to take a response, 16 connections, no keep-alive.
    package init() {}
}

/// What a ``LoopbackHTTPServer`` handler wants done with one request.
package struct LoopbackHTTPReply: Sendable {
    /// The response; `nil` closes the connection without an answer, as a dropped connection would.
    package var response: LoopbackHTTPResponse?
    /// Whether the connection is closed after the response, whatever the client asked for.
    package var closesConnection: Bool
    /// Whether serving ends once the response is written (or could not be):
    /// ``LoopbackHTTPServer/serve(options:handler:)`` then returns ``LoopbackHTTPServeEnd/finished``.
    package var endsServing: Bool

    /// When set, the response's head (announcing the whole body) and only this many bytes of its
    /// body are written, then the connection is closed: a connection lost in the middle of an answer.
    package var bodyBytesWritten: Int?

    /// A reply with every field given.
    package init(
        response: LoopbackHTTPResponse?, closesConnection: Bool = false, endsServing: Bool = false,
        bodyBytesWritten: Int? = nil
    ) {
        self.response = response
        self.closesConnection = closesConnection
        self.endsServing = endsServing
        self.bodyBytesWritten = bodyBytesWritten
    }

    /// Answer with `response` and keep serving.
    package static func respond(_ response: LoopbackHTTPResponse) -> LoopbackHTTPReply {
        LoopbackHTTPReply(response: response)
    }

    /// Close the connection without an answer.
    ///
    /// HTTP clients send a request again by themselves when a connection they reused closes
    /// before any byte of the answer (libcurl and URLSession do); use ``cutShort(_:)`` to make a
    /// client see a lost connection.
    package static let drop = LoopbackHTTPReply(response: nil, closesConnection: true)

    /// Write the head of `response` and none of its body, then close: the client sees the
    /// connection lost in the middle of the answer, and does not send the request again.
    package static func cutShort(_ response: LoopbackHTTPResponse) -> LoopbackHTTPReply {
        LoopbackHTTPReply(response: response, closesConnection: true, bodyBytesWritten: 0)
    }
}

/// How serving ended without an error.
package enum LoopbackHTTPServeEnd: Sendable, Equatable {
    /// ``LoopbackHTTPServer/stop()`` was called (or the serving task was cancelled), and the
    /// requests being answered then were finished or the drain timeout passed.
    case stopped
    /// A reply with ``LoopbackHTTPReply/endsServing`` was written.
    case finished
}

/// A listening socket on 127.0.0.1 (never another interface) and the loop that serves it: the
/// HTTP/1.1 server under the loopback browser agent's callback listener and the emulator's server.
///
/// Creating one binds the socket, so the port is known and taken before anything is shown or
/// started; ``serve(options:handler:)`` then runs the serving loop once, on a thread of its own,
/// until ``stop()`` is called (cancelling the awaiting task calls it), a reply ends serving, or the
/// deadline passes.
///
/// The loop waits on the listener, every open connection and a wake-up pipe at once (`epoll` on
/// Linux, `poll` elsewhere), so it never blocks the Swift concurrency pool, and a wake-up costs
/// what is ready, not what is open: thousands of idle connections do not slow the others. Each
/// whole request goes to the async handler in a task of its own; a connection has one request
/// answered at a time, so pipelined requests are answered in order, while other connections are
/// served meanwhile. Writes never block the loop:
/// what a slow reader has not taken waits, for at most the write timeout. A connection too slow
/// to send its request is closed after the read timeout; a malformed or oversized request gets its
/// 4xx/5xx with a short explanation and the connection is closed; connections beyond the maximum
/// are closed as soon as they are accepted; when the process is out of descriptors, accepting
/// pauses briefly instead of spinning.
///
/// Every descriptor is closed when serving ends, or by ``stop()`` or `deinit` if serving never
/// started. A server serves once.
package final class LoopbackHTTPServer: Sendable {
    private enum Phase {
        case bound
        case serving
        case closed
    }

    private struct Shared {
        var phase = Phase.bound
        var stopRequested = false
        var replies: [(id: UInt64, reply: LoopbackHTTPReply)] = []
        var connections = LoopbackHTTPConnectionCounts()
    }

    /// The port the server is bound to, on 127.0.0.1.
    package let port: UInt16
    /// The IPv4 address the socket is bound to, as the system reports it: always `127.0.0.1`.
    package let address: String

    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let shared = Locked(Shared())

    /// Binds 127.0.0.1:`port`; `port` 0 lets the system choose.
    ///
    /// - Parameters:
    ///   - port: The port; 0 lets the system choose.
    ///   - backlog: How many connections the system keeps waiting to be accepted (it may cap the
    ///     number); beyond it, new connections wait for the client's next attempt.
    /// - Throws: ``LoopbackHTTPError/portInUse(_:)`` when another socket holds the port;
    ///   ``LoopbackHTTPError/system(call:code:)`` when a socket call fails.
    package init(port: UInt16 = 0, backlog: Int32 = 128) throws(LoopbackHTTPError) {
        let wake = try LoopbackSocket.wakePipe()
        do {
            (listener, self.port, address) = try LoopbackSocket.makeListener(port: port, backlog: max(1, backlog))
        } catch {
            close(wake.read)
            close(wake.write)
            throw error
        }
        (wakeRead, wakeWrite) = wake
    }

    deinit {
        stop()
    }

    /// The soft limit on open descriptors of this process, or `nil` when there is none: a server's
    /// connection cap must stay well within it.
    package static func openFileLimit() -> Int? {
        LoopbackSocket.openFileLimit()
    }

    /// Raises the soft limit on open descriptors of this process to `wanted`, or as near as the
    /// hard limit allows; never lowers it. Returns the soft limit then in force (`nil`: none).
    @discardableResult
    package static func raiseOpenFileLimit(to wanted: Int) -> Int? {
        LoopbackSocket.raiseOpenFileLimit(to: wanted)
    }

    /// A blocking client socket connected to 127.0.0.1:`port`, for clients in tests and
    /// benchmarks; sends and receives are bounded by `timeout` seconds when given. `-errno` when it
    /// cannot be made or connected.
    package static func connectClient(port: UInt16, timeout: Int? = nil) -> Int32 {
        LoopbackSocket.connectClient(port: port, timeout: timeout)
    }

    /// How many connections are open now, and how many were accepted since serving started
    /// (counting those closed at once for being over the maximum).
    package var connectionCounts: LoopbackHTTPConnectionCounts {
        shared.withLock { $0.connections }
    }

    /// Ends serving: no new connection or request is taken, idle connections are closed, and the
    /// requests being answered are finished (for at most the drain timeout) before
    /// ``serve(options:handler:)`` returns ``LoopbackHTTPServeEnd/stopped``. Closes the socket if
    /// serving has not started. Safe to call at any time, from any thread, more than once.
    package func stop() {
        shared.withLock { shared in
            switch shared.phase {
            case .bound:
                shared.phase = .closed
                closeDescriptors()
            case .serving:
                // The serving thread closes the descriptors, under this lock, after it leaves the
                // loop; while the phase is `.serving` the pipe is still open.
                shared.stopRequested = true
                wake()
            case .closed:
                break
            }
        }
    }

    /// Serves connections until stopped or until a reply ends serving.
    ///
    /// - Throws: ``LoopbackHTTPError/timedOut`` when `options.deadline` passes;
    ///   ``LoopbackHTTPError/notListening`` when the server already served or was stopped;
    ///   ``LoopbackHTTPError/system(call:code:)`` when `poll` fails.
    package func serve(
        options: LoopbackHTTPServeOptions,
        handler: @escaping @Sendable (LoopbackHTTPRequest) async -> LoopbackHTTPReply
    ) async throws(LoopbackHTTPError) -> LoopbackHTTPServeEnd {
        try await serve(options: options, handler: .async(handler))
    }

    /// Serves connections until stopped or until a reply ends serving, answering each request
    /// with `handler` on the serving thread itself: for quick handlers that must not wait for the
    /// Swift concurrency pool (the browser's callback in ``LoopbackUserAgent``).
    package func serve(
        options: LoopbackHTTPServeOptions,
        inlineHandler handler: @escaping @Sendable (LoopbackHTTPRequest) -> LoopbackHTTPReply
    ) async throws(LoopbackHTTPError) -> LoopbackHTTPServeEnd {
        try await serve(options: options, handler: .inline(handler))
    }

    private func serve(options: LoopbackHTTPServeOptions, handler: LoopbackHTTPHandler)
        async throws(LoopbackHTTPError) -> LoopbackHTTPServeEnd
    {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<LoopbackHTTPServeEnd, LoopbackHTTPError>, Never>) in
                start(options: options, handler: handler) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            stop()
        }
        return try result.get()
    }

    /// Starts the serving loop on a thread of its own before returning, so connections are
    /// served from now on whatever the Swift concurrency pool is doing; `completion` gets how
    /// serving ended (``LoopbackHTTPError/notListening`` at once when the server already served or
    /// was stopped).
    package func start(
        options: LoopbackHTTPServeOptions,
        handler: @escaping @Sendable (LoopbackHTTPRequest) async -> LoopbackHTTPReply,
        completion: @escaping @Sendable (Result<LoopbackHTTPServeEnd, LoopbackHTTPError>) -> Void
    ) {
        start(options: options, handler: .async(handler), completion: completion)
    }

    private func start(
        options: LoopbackHTTPServeOptions, handler: LoopbackHTTPHandler,
        completion: @escaping @Sendable (Result<LoopbackHTTPServeEnd, LoopbackHTTPError>) -> Void
    ) {
        let claimed = shared.withLock { shared in
            guard case .bound = shared.phase else { return false }
            shared.phase = .serving
            return true
        }
        guard claimed else {
            completion(.failure(.notListening))
            return
        }
        let thread = Thread { [self] in
            let loop = LoopbackHTTPServeLoop(
                server: self, listener: listener, wakeRead: wakeRead, options: options, handler: handler)
            let result = loop.run()
            shared.withLock { shared in
                shared.phase = .closed
                shared.replies = []
                closeDescriptors()
            }
            completion(result)
        }
        thread.name = "NativeAuth loopback HTTP"
        thread.start()
    }

    /// Hands a handler's reply to the serving loop; dropped once serving has ended.
    fileprivate func deliver(_ reply: LoopbackHTTPReply, to id: UInt64) {
        shared.withLock { shared in
            guard case .serving = shared.phase else { return }
            shared.replies.append((id, reply))
            wake()
        }
    }

    /// Records the serving loop's connection counts.
    fileprivate func record(_ counts: LoopbackHTTPConnectionCounts) {
        shared.withLock { $0.connections = counts }
    }

    /// Whether stopping was asked for, and the replies delivered since the last call.
    fileprivate func takeDeliveries() -> (stop: Bool, replies: [(id: UInt64, reply: LoopbackHTTPReply)]) {
        shared.withLock { shared in
            defer { shared.replies = [] }
            return (shared.stopRequested, shared.replies)
        }
    }

    /// Wakes the loop. Called with the lock held while serving, so the pipe is open.
    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)  // a full pipe is already readable
    }

    private func closeDescriptors() {
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }
}

/// How many connections a ``LoopbackHTTPServer`` has open, and has accepted since serving started.
package struct LoopbackHTTPConnectionCounts: Sendable, Equatable {
    /// Connections open now.
    package var open = 0
    /// Connections accepted since serving started, including those closed at once for being over
    /// the maximum.
    package var accepted = 0
}

/// How a serving loop answers requests: in a task each, or on its own thread.
private enum LoopbackHTTPHandler: Sendable {
    case async(@Sendable (LoopbackHTTPRequest) async -> LoopbackHTTPReply)
    case inline(@Sendable (LoopbackHTTPRequest) -> LoopbackHTTPReply)
}

/// The serving loop of one ``LoopbackHTTPServer``, run on its own thread; it owns every
/// connection descriptor and closes each before it returns.
///
/// Each wake-up costs what is ready and what is due, not what is open: the poller reports only
/// ready descriptors (epoll on Linux), each connection's wanted events are changed only when they
/// change, and deadlines wait in a heap rather than being scanned.
private final class LoopbackHTTPServeLoop {
    private struct Connection {
        enum Stage {
            /// Waiting for (the rest of) a request.
            case reading
            /// The handler is answering a request (in this task, for an async handler).
            case answering(Task<Void, Never>?)
            /// Answered for the last time and half-closed: dropping what arrives until the peer closes.
            case lingering(until: ContinuousClock.Instant)
        }

        let id: UInt64
        let descriptor: Int32
        var stage = Stage.reading
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        /// When the next request must have arrived.
        var readDeadline: ContinuousClock.Instant
        /// When the pending output must have been taken.
        var writeDeadline: ContinuousClock.Instant?
        /// The peer sent its FIN: no more requests will come.
        var peerDoneSending = false
        /// Whether the request being answered allows keep-alive, and whether it was a `HEAD`.
        var requestKeepsAlive = false
        var requestIsHead = false
        /// `100 Continue` was sent for the request being received.
        var continueSent = false
        /// Close (after lingering) once the output is written.
        var closeAfterWriting = false
        /// End serving once the output is written, or when the connection is closed.
        var endAfterWriting = false
        var isClosed = false
        /// The events the poller watches for.
        var watched: Int16 = 0
        /// The deadline the timer heap holds for this connection, if any.
        var scheduled: ContinuousClock.Instant?

        var hasOutput: Bool { written < output.count }

        var isAnswering: Bool {
            if case .answering = stage { return true }
            return false
        }
    }

    private let server: LoopbackHTTPServer
    private let listener: Int32
    private let wakeRead: Int32
    private let options: LoopbackHTTPServeOptions
    private let handler: LoopbackHTTPHandler
    private var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 0
    /// Set once stopping was asked for: when the requests being answered must be done.
    private var drainDeadline: ContinuousClock.Instant?
    /// Set when accepting failed for lack of descriptors: when to try again.
    private var acceptPausedUntil: ContinuousClock.Instant?
    /// A reply that ends serving was written.
    private var finished = false
    /// Created when serving starts; owns no descriptor but its own.
    private var poller: LoopbackPoller?
    /// Every connection's next deadline, and stale ones (skipped when they come up).
    private var timers = LoopbackDeadlineHeap()
    private var listenerWatched = true
    private var counts = LoopbackHTTPConnectionCounts()

    private static let wakeToken: UInt64 = 0
    private static let listenerToken = UInt64.max

    init(
        server: LoopbackHTTPServer, listener: Int32, wakeRead: Int32, options: LoopbackHTTPServeOptions,
        handler: LoopbackHTTPHandler
    ) {
        self.server = server
        self.listener = listener
        self.wakeRead = wakeRead
        self.options = options
        self.handler = handler
    }

    func run() -> Result<LoopbackHTTPServeEnd, LoopbackHTTPError> {
        let poller: LoopbackPoller
        do {
            poller = try LoopbackPoller()
        } catch {
            return .failure(error)
        }
        self.poller = poller
        defer {
            for connection in connections.values {
                if case .answering(let task?) = connection.stage { task.cancel() }
                poller.remove(connection.descriptor)
                close(connection.descriptor)
            }
            connections = [:]
            poller.remove(listener)
            poller.remove(wakeRead)
            self.poller = nil
        }
        guard poller.add(wakeRead, token: Self.wakeToken, events: Int16(POLLIN)),
            poller.add(listener, token: Self.listenerToken, events: Int16(POLLIN))
        else { return .failure(.system(call: "epoll_ctl", code: errno)) }
        while true {
            let now = ContinuousClock.now
            if finished { return .success(.finished) }
            if let deadline = options.deadline, now >= deadline { return .failure(.timedOut) }
            if let drainDeadline {
                let busy = connections.values.contains { $0.isAnswering || $0.hasOutput }
                if !busy || now >= drainDeadline { return .success(.stopped) }
            }
            if let paused = acceptPausedUntil, now >= paused { acceptPausedUntil = nil }

            let accepting = drainDeadline == nil && acceptPausedUntil == nil
            if accepting != listenerWatched {
                poller.modify(listener, token: Self.listenerToken, events: accepting ? Int16(POLLIN) : 0)
                listenerWatched = accepting
            }
            let timeout = nextWake().map(LoopbackSocket.milliseconds(until:)) ?? -1
            let ready: [LoopbackPoller.Ready]
            do {
                ready = try poller.wait(timeout: timeout)
            } catch {
                return .failure(error)
            }

            var listenerEvents: Int16 = 0
            if ready.contains(where: { $0.token == Self.wakeToken }) { takeDeliveries() }
            for event in ready {
                switch event.token {
                case Self.wakeToken: break
                case Self.listenerToken: listenerEvents = event.events
                default: update(event.token) { service(&$0, revents: event.events) }
                }
            }
            expireConnections()
            if listenerEvents & Int16(POLLERR | POLLNVAL) != 0 { return .failure(.system(call: "poll", code: EBADF)) }
            if accepting && listenerEvents != 0 { acceptPending() }
            if counts.open != connections.count {
                counts.open = connections.count
                server.record(counts)
            }
        }
    }

    // MARK: Events

    private func events(of connection: Connection) -> Int16 {
        var events: Int32 = 0
        switch connection.stage {
        case .reading:
            if !connection.peerDoneSending && !connection.closeAfterWriting { events |= Int32(POLLIN) }
        case .answering:
            break  // POLLHUP and POLLERR are reported anyway: a vanished peer is noticed
        case .lingering:
            events |= Int32(POLLIN)
        }
        if connection.hasOutput { events |= Int32(POLLOUT) }
        return Int16(events)
    }

    /// The earliest time something is due: a deadline of the loop or of a connection.
    private func nextWake() -> ContinuousClock.Instant? {
        var next = [options.deadline, drainDeadline, acceptPausedUntil].compactMap { $0 }.min()
        while let top = timers.first, connections[top.id]?.scheduled != top.at { timers.removeFirst() }
        if let top = timers.first { next = min(next ?? top.at, top.at) }
        return next
    }

    /// When `connection` must next be looked at: its write deadline while output waits, its read
    /// deadline while it waits for a request, the end of its lingering.
    private func due(_ connection: Connection) -> ContinuousClock.Instant? {
        var due: ContinuousClock.Instant?
        if connection.hasOutput, let writeDeadline = connection.writeDeadline { due = writeDeadline }
        switch connection.stage {
        case .reading where !connection.hasOutput && !connection.closeAfterWriting:
            due = min(due ?? connection.readDeadline, connection.readDeadline)
        case .lingering(let until):
            due = min(due ?? until, until)
        case .reading, .answering:
            break
        }
        return due
    }

    /// Brings what the poller watches and the deadline the heap holds up to date with `connection`.
    private func settle(_ connection: inout Connection) {
        let wanted = events(of: connection)
        if wanted != connection.watched {
            poller?.modify(connection.descriptor, token: connection.id, events: wanted)
            connection.watched = wanted
        }
        let next = due(connection)
        if next != connection.scheduled {
            connection.scheduled = next
            if let next { timers.insert(at: next, id: connection.id) }
        }
    }

    /// Runs `body` on the connection `id`, then stores it back, or closes it when `body` closed it.
    private func update(_ id: UInt64, _ body: (inout Connection) -> Void) {
        guard var connection = connections[id] else { return }
        body(&connection)
        guard connection.isClosed else {
            settle(&connection)
            connections[id] = connection
            return
        }
        connections[id] = nil
        if case .answering(let task?) = connection.stage { task.cancel() }
        if connection.endAfterWriting { finished = true }
        poller?.remove(connection.descriptor)
        close(connection.descriptor)
    }

    private func takeDeliveries() {
        var byte = [UInt8](repeating: 0, count: 512)
        while read(wakeRead, &byte, byte.count) > 0 {}
        let (stop, replies) = server.takeDeliveries()
        for (id, reply) in replies {
            update(id) { apply(reply, to: &$0) }
        }
        if stop && drainDeadline == nil { beginDraining() }
    }

    private func beginDraining() {
        drainDeadline = .now + options.drainTimeout
        for id in Array(connections.keys) {
            update(id) { connection in
                switch connection.stage {
                case .answering:
                    break  // its reply is written with Connection: close
                case .reading where connection.hasOutput:
                    connection.closeAfterWriting = true
                case .reading, .lingering:
                    connection.isClosed = true
                }
            }
        }
    }

    private func acceptPending() {
        for _ in 0..<256 {
            switch LoopbackSocket.acceptConnection(on: listener) {
            case .connection(let descriptor):
                counts.accepted += 1
                nextID += 1
                guard connections.count < options.maxConnections,
                    poller?.add(descriptor, token: nextID, events: Int16(POLLIN)) == true
                else {
                    close(descriptor)
                    continue
                }
                var connection = Connection(
                    id: nextID, descriptor: descriptor, readDeadline: .now + options.readTimeout)
                connection.watched = Int16(POLLIN)
                connection.scheduled = connection.readDeadline
                timers.insert(at: connection.readDeadline, id: nextID)
                connections[nextID] = connection
            case .skipped:
                continue
            case .none:
                return
            case .exhausted:
                acceptPausedUntil = .now + .milliseconds(100)
                return
            }
        }
    }

    /// Closes what overran its deadline: `408` first when part of a request arrived. Only the
    /// connections whose deadline came up in the heap are looked at.
    private func expireConnections() {
        let now = ContinuousClock.now
        var due: [(at: ContinuousClock.Instant, id: UInt64)] = []
        while let top = timers.first, top.at <= now {
            timers.removeFirst()
            due.append(top)
        }
        for (at, id) in due {
            update(id) { connection in
                guard connection.scheduled == at else { return }  // a deadline since replaced
                connection.scheduled = nil
                if connection.hasOutput, let writeDeadline = connection.writeDeadline, now >= writeDeadline {
                    connection.isClosed = true
                    return
                }
                switch connection.stage {
                case .lingering(let until) where now >= until:
                    connection.isClosed = true
                case .reading where !connection.hasOutput && !connection.closeAfterWriting:
                    guard now >= connection.readDeadline else { return }
                    if connection.input.isEmpty {
                        connection.isClosed = true
                    } else {
                        let seconds = options.readTimeout.components.seconds
                        let text = "408 Request Timeout: The request did not arrive within \(seconds) s.\n"
                        enqueue(.text(408, text), on: &connection, closing: true, omitBody: false)
                    }
                case .reading, .answering, .lingering:
                    break
                }
            }
        }
    }

    // MARK: One connection

    private func service(_ connection: inout Connection, revents: Int16) {
        if revents & Int16(POLLNVAL) != 0 {
            connection.isClosed = true
            return
        }
        if revents & Int16(POLLOUT) != 0 {
            flush(&connection)
            if connection.isClosed { return }
        }
        if revents & Int16(POLLIN) != 0 {
            switch connection.stage {
            case .reading:
                receive(&connection)
            case .lingering:
                switch LoopbackSocket.read(connection.descriptor, maximum: 64 * 1024) {
                case .bytes, .wouldBlock: break
                case .closed: connection.isClosed = true
                }
            case .answering:
                break
            }
            if connection.isClosed { return }
        }
        if revents & Int16(POLLERR | POLLHUP) != 0, revents & Int16(POLLIN) == 0 {
            // The peer is gone both ways: nothing more can be read or written.
            connection.isClosed = true
        }
    }

    private func receive(_ connection: inout Connection) {
        switch LoopbackSocket.read(connection.descriptor, maximum: 64 * 1024) {
        case .wouldBlock:
            return
        case .closed:
            connection.peerDoneSending = true
        case .bytes(let bytes):
            connection.input += bytes
        }
        advance(&connection)
    }

    /// Takes the next request out of the input, if it is whole, and hands it to the handler.
    private func advance(_ connection: inout Connection) {
        guard case .reading = connection.stage, !connection.closeAfterWriting else { return }
        if drainDeadline != nil {
            // Stopping: no new request is started.
            if connection.hasOutput { connection.closeAfterWriting = true } else { connection.isClosed = true }
            return
        }
        switch LoopbackHTTPParser.parse(connection.input, limits: options.limits) {
        case .incomplete:
            if !connection.peerDoneSending, !connection.continueSent,
                LoopbackHTTPParser.expectsContinue(connection.input, limits: options.limits)
            {
                // RFC 9110 §10.1.1: the body is wanted; say so rather than make the client wait.
                connection.continueSent = true
                enqueue(bytes: Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), on: &connection, closing: false)
                return
            }
            guard connection.peerDoneSending else { return }
            if connection.hasOutput { connection.closeAfterWriting = true } else { connection.isClosed = true }
        case .invalid(let error):
            connection.input = []
            enqueue(error.response(limits: options.limits), on: &connection, closing: true, omitBody: false)
        case .complete(let request, let consumed):
            connection.input.removeFirst(consumed)
            connection.continueSent = false
            connection.requestKeepsAlive = request.wantsKeepAlive
            connection.requestIsHead = request.method == "HEAD"
            switch handler {
            case .inline(let answer):
                connection.stage = .answering(nil)
                apply(answer(request), to: &connection)
            case .async(let answer):
                let (server, id) = (server, connection.id)
                connection.stage = .answering(
                    Task {
                        let reply = await answer(request)
                        server.deliver(reply, to: id)
                    })
            }
        }
    }

    private func apply(_ reply: LoopbackHTTPReply, to connection: inout Connection) {
        guard connection.isAnswering else { return }
        connection.stage = .reading
        connection.readDeadline = .now + options.readTimeout
        if reply.endsServing { connection.endAfterWriting = true }
        guard let response = reply.response else {
            connection.isClosed = true
            return
        }
        if let kept = reply.bodyBytesWritten {
            var truncated = response.serialized(closeConnection: true, omitBody: true)
            if !connection.requestIsHead { truncated += response.body.prefix(max(0, kept)) }
            enqueue(bytes: truncated, on: &connection, closing: true)
            return
        }
        let keep =
            options.keepAlive && connection.requestKeepsAlive && !reply.closesConnection && !reply.endsServing
            && drainDeadline == nil
        enqueue(response, on: &connection, closing: !keep, omitBody: connection.requestIsHead)
        if !connection.isClosed { advance(&connection) }
    }

    private func enqueue(
        _ response: LoopbackHTTPResponse, on connection: inout Connection, closing: Bool, omitBody: Bool
    ) {
        enqueue(
            bytes: response.serialized(closeConnection: closing, omitBody: omitBody), on: &connection,
            closing: closing)
    }

    private func enqueue(bytes: [UInt8], on connection: inout Connection, closing: Bool) {
        if !connection.hasOutput {
            connection.output = []
            connection.written = 0
            connection.writeDeadline = .now + options.writeTimeout
        }
        connection.output += bytes
        if closing { connection.closeAfterWriting = true }
        flush(&connection)
    }

    /// Writes what the socket takes of the output; once all is written, ends or half-closes the
    /// connection when that was asked for.
    private func flush(_ connection: inout Connection) {
        while connection.hasOutput {
            switch LoopbackSocket.write(connection.descriptor, connection.output[connection.written...]) {
            case .wrote(let count):
                connection.written += count
            case .wouldBlock:
                return
            case .failed:
                connection.isClosed = true
                return
            }
        }
        connection.output = []
        connection.written = 0
        connection.writeDeadline = nil
        if connection.endAfterWriting {
            connection.isClosed = true
        } else if connection.closeAfterWriting {
            if connection.peerDoneSending {
                connection.isClosed = true
            } else {
                LoopbackSocket.shutdownWriting(connection.descriptor)
                connection.input = []
                connection.stage = .lingering(until: .now + options.lingerTimeout)
            }
        }
    }
}

/// A min-heap of deadlines by connection id. A connection's deadline moves often; the old entry
/// stays until it comes up and is skipped, so a move costs one insertion.
private struct LoopbackDeadlineHeap {
    private var entries: [(at: ContinuousClock.Instant, id: UInt64)] = []

    /// The earliest entry.
    var first: (at: ContinuousClock.Instant, id: UInt64)? { entries.first }

    mutating func insert(at: ContinuousClock.Instant, id: UInt64) {
        entries.append((at, id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].at < entries[parent].at else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the earliest entry; the heap must not be empty.
    mutating func removeFirst() {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            let child = right < entries.count && entries[right].at < entries[left].at ? right : left
            guard entries[child].at < entries[parent].at else { return }
            entries.swapAt(child, parent)
            parent = child
        }
    }
}
