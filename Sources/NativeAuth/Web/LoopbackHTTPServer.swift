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
/// The loop waits in `poll` on the listener, every open connection and a wake-up pipe, so it
/// never blocks the Swift concurrency pool. Each whole request goes to the async handler in a task
/// of its own; a connection has one request answered at a time, so pipelined requests are
/// answered in order, while other connections are served meanwhile. Writes never block the loop:
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
    /// - Throws: ``LoopbackHTTPError/portInUse(_:)`` when another socket holds the port;
    ///   ``LoopbackHTTPError/system(call:code:)`` when a socket call fails.
    package init(port: UInt16 = 0) throws(LoopbackHTTPError) {
        let wake = try LoopbackSocket.wakePipe()
        do {
            (listener, self.port, address) = try LoopbackSocket.makeListener(port: port)
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

/// The serving loop of one ``LoopbackHTTPServer``, run on its own thread; it owns every
/// connection descriptor and closes each before it returns.
/// How a serving loop answers requests: in a task each, or on its own thread.
private enum LoopbackHTTPHandler: Sendable {
    case async(@Sendable (LoopbackHTTPRequest) async -> LoopbackHTTPReply)
    case inline(@Sendable (LoopbackHTTPRequest) -> LoopbackHTTPReply)
}

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
        defer {
            for connection in connections.values {
                if case .answering(let task?) = connection.stage { task.cancel() }
                close(connection.descriptor)
            }
            connections = [:]
        }
        while true {
            let now = ContinuousClock.now
            if finished { return .success(.finished) }
            if let deadline = options.deadline, now >= deadline { return .failure(.timedOut) }
            if let drainDeadline {
                let busy = connections.values.contains { $0.isAnswering || $0.hasOutput }
                if !busy || now >= drainDeadline { return .success(.stopped) }
            }
            if let paused = acceptPausedUntil, now >= paused { acceptPausedUntil = nil }

            let ids = Array(connections.keys)
            let accepting = drainDeadline == nil && acceptPausedUntil == nil
            var descriptors = [
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                pollfd(fd: accepting ? listener : -1, events: Int16(POLLIN), revents: 0),
            ]
            descriptors.reserveCapacity(ids.count + 2)
            for id in ids {
                guard let connection = connections[id] else { continue }
                descriptors.append(pollfd(fd: connection.descriptor, events: events(of: connection), revents: 0))
            }
            let timeout = nextWake().map(LoopbackSocket.milliseconds(until:)) ?? -1
            if poll(&descriptors, nfds_t(descriptors.count), timeout) < 0 {
                if errno == EINTR { continue }
                return .failure(.system(call: "poll", code: errno))
            }

            if descriptors[0].revents != 0 { takeDeliveries() }
            for (index, id) in ids.enumerated() {
                let revents = descriptors[index + 2].revents
                guard revents != 0 else { continue }
                update(id) { service(&$0, revents: revents) }
            }
            expireConnections()
            let listenerEvents = descriptors[1].revents
            if listenerEvents & Int16(POLLERR | POLLNVAL) != 0 { return .failure(.system(call: "poll", code: EBADF)) }
            if listenerEvents != 0 { acceptPending() }
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
        var times = [options.deadline, drainDeadline, acceptPausedUntil].compactMap { $0 }
        for connection in connections.values {
            if connection.hasOutput, let writeDeadline = connection.writeDeadline { times.append(writeDeadline) }
            switch connection.stage {
            case .reading where !connection.hasOutput && !connection.closeAfterWriting:
                times.append(connection.readDeadline)
            case .lingering(let until):
                times.append(until)
            case .reading, .answering:
                break
            }
        }
        return times.min()
    }

    /// Runs `body` on the connection `id`, then stores it back, or closes it when `body` closed it.
    private func update(_ id: UInt64, _ body: (inout Connection) -> Void) {
        guard var connection = connections[id] else { return }
        body(&connection)
        guard connection.isClosed else {
            connections[id] = connection
            return
        }
        connections[id] = nil
        if case .answering(let task?) = connection.stage { task.cancel() }
        if connection.endAfterWriting { finished = true }
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
                guard connections.count < options.maxConnections else {
                    close(descriptor)
                    continue
                }
                nextID += 1
                connections[nextID] = Connection(
                    id: nextID, descriptor: descriptor, readDeadline: .now + options.readTimeout)
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

    /// Closes what overran its deadline: `408` first when part of a request arrived.
    private func expireConnections() {
        let now = ContinuousClock.now
        for id in Array(connections.keys) {
            update(id) { connection in
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
