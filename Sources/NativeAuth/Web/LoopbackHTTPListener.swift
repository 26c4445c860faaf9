import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a ``LoopbackHTTPListener`` serves its connections.
struct LoopbackHTTPServeOptions: Sendable {
    /// The size bounds of each request.
    var limits = LoopbackHTTPLimits()
    /// How long a connection may take to deliver a whole request (from its opening, or from the
    /// previous response on a kept-alive connection) before it is closed.
    var readTimeout: Duration = .seconds(10)
    /// How long writing one response may wait for the peer to read.
    var writeTimeout: Duration = .seconds(5)
    /// When to give up with ``LoopbackHTTPError/timedOut``; `nil` waits until stopped.
    var deadline: ContinuousClock.Instant?
    /// The most connections open at once; one more is closed as soon as it is accepted.
    var maxConnections = 16
    /// Whether a connection stays open after a response when the client allows it. When `false`,
    /// every response says `Connection: close` and the connection is closed after it.
    var keepAlive = false
}

/// What a request handler wants done with one request.
enum LoopbackHTTPAction<Outcome: Sendable>: Sendable {
    /// Answer with this response and keep serving.
    case respond(LoopbackHTTPResponse)
    /// Answer with this response, close every connection and the listener, and return `Outcome`
    /// from ``LoopbackHTTPListener/serve(options:handler:)``.
    case finish(LoopbackHTTPResponse, Outcome)
}

/// A listening socket on 127.0.0.1 (never another interface) and the loop that serves it.
///
/// Creating one binds the socket (so the port is known and taken before anything is shown to the
/// user); ``serve(options:handler:)`` then runs the serving loop once, on a thread of its own,
/// until the handler finishes, the deadline passes, or ``stop()`` is called (cancelling the
/// awaiting task calls it). The loop waits in `poll` on the listener, every open connection and a
/// wake-up pipe, so it never blocks the Swift concurrency pool, serves several connections at a
/// time (a browser's idle speculative connection does not hold up the real request), closes a
/// connection that is too slow to send its request, and answers a malformed request with its
/// 4xx/5xx status and closes it. The handler runs on the loop's thread and must not block.
///
/// Every descriptor is closed when serving ends, or by ``stop()`` or `deinit` if serving never
/// started. A listener serves once.
final class LoopbackHTTPListener: Sendable {
    private enum Phase {
        case bound
        case serving
        case closed
    }

    /// The port the listener is bound to, on 127.0.0.1.
    let port: UInt16

    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let phase = Locked(Phase.bound)

    /// Binds 127.0.0.1:`port`; `port` 0 lets the system choose.
    ///
    /// - Throws: ``LoopbackHTTPError/portInUse(_:)`` when another socket holds the port;
    ///   ``LoopbackHTTPError/system(call:code:)`` when a socket call fails.
    init(port: UInt16 = 0) throws(LoopbackHTTPError) {
        let wake = try LoopbackSocket.wakePipe()
        do {
            (listener, self.port) = try LoopbackSocket.makeListener(port: port)
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

    /// Ends serving (``serve(options:handler:)`` then throws ``LoopbackHTTPError/stopped``), or
    /// closes the socket if serving has not started. Safe to call at any time, more than once.
    func stop() {
        phase.withLock { phase in
            switch phase {
            case .bound:
                phase = .closed
                closeDescriptors()
            case .serving:
                // The serving thread closes the descriptors, under this lock, after it leaves the
                // loop; while the phase is `.serving` the pipe is still open.
                var byte: UInt8 = 1
                _ = write(wakeWrite, &byte, 1)
            case .closed:
                break
            }
        }
    }

    /// Serves connections until `handler` returns ``LoopbackHTTPAction/finish(_:_:)``, and returns
    /// its outcome after the finishing response is written.
    ///
    /// - Throws: ``LoopbackHTTPError/timedOut`` when `options.deadline` passes;
    ///   ``LoopbackHTTPError/stopped`` when ``stop()`` is called or the awaiting task is cancelled;
    ///   ``LoopbackHTTPError/notListening`` when the listener already served or was stopped;
    ///   ``LoopbackHTTPError/system(call:code:)`` when `poll` fails.
    func serve<Outcome: Sendable>(
        options: LoopbackHTTPServeOptions,
        handler: @escaping @Sendable (LoopbackHTTPRequest) -> LoopbackHTTPAction<Outcome>
    ) async throws(LoopbackHTTPError) -> Outcome {
        let claimed = phase.withLock { phase in
            guard case .bound = phase else { return false }
            phase = .serving
            return true
        }
        guard claimed else { throw .notListening }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<Outcome, LoopbackHTTPError>, Never>) in
                let thread = Thread { [self] in
                    var loop = LoopbackHTTPServeLoop(
                        listener: listener, wakeRead: wakeRead, options: options, handler: handler)
                    let result = loop.run()
                    phase.withLock { phase in
                        phase = .closed
                        closeDescriptors()
                    }
                    continuation.resume(returning: result)
                }
                thread.name = "NativeAuth loopback HTTP"
                thread.start()
            }
        } onCancel: {
            stop()
        }
        return try result.get()
    }

    private func closeDescriptors() {
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }
}

/// The serving loop of one ``LoopbackHTTPListener``, run on its own thread; it owns every
/// connection descriptor and closes each before it returns.
private struct LoopbackHTTPServeLoop<Outcome: Sendable> {
    private struct Connection {
        var descriptor: Int32
        var buffer: [UInt8] = []
        var deadline: ContinuousClock.Instant
    }

    private enum Step {
        case keep
        case close
        case finish(Outcome)
    }

    let listener: Int32
    let wakeRead: Int32
    let options: LoopbackHTTPServeOptions
    let handler: @Sendable (LoopbackHTTPRequest) -> LoopbackHTTPAction<Outcome>
    private var connections: [Connection] = []

    init(
        listener: Int32, wakeRead: Int32, options: LoopbackHTTPServeOptions,
        handler: @escaping @Sendable (LoopbackHTTPRequest) -> LoopbackHTTPAction<Outcome>
    ) {
        self.listener = listener
        self.wakeRead = wakeRead
        self.options = options
        self.handler = handler
    }

    mutating func run() -> Result<Outcome, LoopbackHTTPError> {
        defer {
            for connection in connections { close(connection.descriptor) }
            connections = []
        }
        while true {
            if let deadline = options.deadline, ContinuousClock.now >= deadline { return .failure(.timedOut) }
            var descriptors = [
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
                pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            ]
            descriptors += connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let wakeAt = ([options.deadline].compactMap { $0 } + connections.map(\.deadline)).min()
            let timeout = wakeAt.map(LoopbackSocket.milliseconds(until:)) ?? -1
            if poll(&descriptors, nfds_t(descriptors.count), timeout) < 0 {
                if errno == EINTR { continue }
                return .failure(.system(call: "poll", code: errno))
            }
            if descriptors[0].revents != 0 { return .failure(.stopped) }

            var remaining: [Connection] = []
            for (index, connection) in connections.enumerated() {
                var connection = connection
                let step: Step
                if descriptors[index + 2].revents != 0 {
                    step = service(&connection)
                } else if ContinuousClock.now >= connection.deadline {
                    step = expire(connection)
                } else {
                    step = .keep
                }
                switch step {
                case .keep:
                    remaining.append(connection)
                case .close:
                    close(connection.descriptor)
                case .finish(let outcome):
                    close(connection.descriptor)
                    connections = remaining + connections.suffix(from: index + 1)
                    return .success(outcome)
                }
            }
            connections = remaining

            let listenerEvents = descriptors[1].revents
            if listenerEvents & Int16(POLLERR | POLLNVAL) != 0 { return .failure(.system(call: "poll", code: EBADF)) }
            if listenerEvents != 0 { acceptPending() }
        }
    }

    private mutating func acceptPending() {
        while let descriptor = LoopbackSocket.acceptConnection(on: listener) {
            guard connections.count < options.maxConnections else {
                close(descriptor)
                continue
            }
            connections.append(Connection(descriptor: descriptor, deadline: .now + options.readTimeout))
        }
    }

    /// Reads what arrived on `connection` and answers every whole request in it.
    private func service(_ connection: inout Connection) -> Step {
        switch LoopbackSocket.read(connection.descriptor, maximum: 16 * 1024) {
        case .wouldBlock:
            return .keep
        case .closed:
            return .close
        case .bytes(let bytes):
            connection.buffer += bytes
        }
        while true {
            switch LoopbackHTTPParser.parse(connection.buffer, limits: options.limits) {
            case .incomplete:
                return .keep
            case .invalid(let error):
                _ = write(.status(error.status), to: connection, close: true, omitBody: false)
                return .close
            case .complete(let request, let consumed):
                let omitBody = request.method == "HEAD"
                switch handler(request) {
                case .finish(let response, let outcome):
                    _ = write(response, to: connection, close: true, omitBody: omitBody)
                    return .finish(outcome)
                case .respond(let response):
                    let keep = options.keepAlive && request.wantsKeepAlive
                    guard write(response, to: connection, close: !keep, omitBody: omitBody), keep else { return .close }
                    connection.buffer.removeFirst(consumed)
                    connection.deadline = .now + options.readTimeout
                }
            }
        }
    }

    /// A connection that did not deliver a whole request in time: `408` if it started one, then closed.
    private func expire(_ connection: Connection) -> Step {
        if !connection.buffer.isEmpty {
            _ = write(.status(408), to: connection, close: true, omitBody: false)
        }
        return .close
    }

    private func write(_ response: LoopbackHTTPResponse, to connection: Connection, close: Bool, omitBody: Bool)
        -> Bool
    {
        let bytes = response.serialized(closeConnection: close, omitBody: omitBody)
        return LoopbackSocket.writeAll(connection.descriptor, bytes, deadline: .now + options.writeTimeout)
    }
}
