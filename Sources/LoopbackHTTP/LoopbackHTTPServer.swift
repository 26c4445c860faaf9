import AuthSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening socket on 127.0.0.1 (never another interface) and the loop that serves it: the
/// HTTP/1.1 server under the loopback browser agent's callback listener and the emulator's server.
///
/// Creating one binds the socket, so the port is known and taken before anything is shown or
/// started; ``serve(options:handler:)`` (or ``start(options:handler:completion:)``) then runs the
/// serving loop once, on a thread of its own, until ``stop()`` is called (cancelling the awaiting
/// task calls it), a reply ends serving, or the deadline passes.
///
/// The loop waits on the listener, every open connection and a wake-up pipe at once (`epoll` on
/// Linux, `poll` elsewhere), and a wake-up costs what is ready, not what is open: thousands of
/// idle connections do not slow the others. Each whole request goes to the handler on the serving
/// thread itself, and what it answers at once is written at once: answering never waits for the
/// Swift concurrency pool, however busy the pool is. An answer held for a while waits on the
/// loop's own timers; only an answer that has to await something runs in a task
/// (``LoopbackHTTPAnswer``). A connection has one request answered at a time, so pipelined
/// requests are answered in order, while other connections are served meanwhile. Writes never
/// block the loop:
/// what a slow reader has not taken waits, for at most the write timeout. A connection too slow
/// to send its request is closed after the read timeout; a malformed or oversized request gets its
/// 4xx/5xx with a short explanation and the connection is closed; connections beyond the maximum
/// are closed as soon as they are accepted; when the process is out of descriptors, accepting
/// pauses briefly instead of spinning. A connection answered for the last time is half-closed,
/// and what its client still sends is dropped until the client closes (for at most the linger
/// timeout, even after serving ended), so the client reads the whole answer rather than a reset.
///
/// Every descriptor is closed when serving ends (the listener at once, lingering connections when
/// they are done), or by ``stop()`` or `deinit` if serving never started. A server serves once.
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

    /// Whether the serving loop runs: from the start of serving until serving ended.
    package var isServing: Bool {
        shared.withLock { shared in
            if case .serving = shared.phase { return true }
            return false
        }
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

    /// Serves connections until stopped or until a reply ends serving; `handler` answers each
    /// request on the serving thread (it must be quick and must not block).
    ///
    /// - Throws: ``LoopbackHTTPError/timedOut`` when `options.deadline` passes;
    ///   ``LoopbackHTTPError/notListening`` when the server already served or was stopped;
    ///   ``LoopbackHTTPError/system(call:code:)`` when `poll` fails.
    package func serve(
        options: LoopbackHTTPServeOptions,
        handler: @escaping @Sendable (LoopbackHTTPRequest) -> LoopbackHTTPAnswer
    ) async throws(LoopbackHTTPError) -> LoopbackHTTPServeEnd {
        let result = await withTaskCancellationHandler {
            await withHandedContinuation(of: Result<LoopbackHTTPServeEnd, LoopbackHTTPError>.self) { continuation in
                start(options: options, handler: handler) { continuation.resume(returning: $0) }
            }
        } onCancel: {
            stop()
        }
        return try result.get()
    }

    /// Starts the serving loop on a thread of its own before returning, so connections are
    /// served from now on whatever the Swift concurrency pool is doing; `handler` answers each
    /// request on that thread (it must be quick and must not block). `completion` gets how serving
    /// ended, on the serving thread, once the listener and every connection are closed but those
    /// answered for the last time, which linger (at most the options' `lingerTimeout`) until their
    /// clients close (``LoopbackHTTPError/notListening`` at once when the server already served or
    /// was stopped).
    package func start(
        options: LoopbackHTTPServeOptions,
        handler: @escaping @Sendable (LoopbackHTTPRequest) -> LoopbackHTTPAnswer,
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
            loop.closeUnansweredConnections()
            shared.withLock { shared in
                shared.phase = .closed
                shared.replies = []
                closeDescriptors()
            }
            completion(result)
            // The last answers are written: their connections drop what their clients still send
            // until the clients close, then they are closed.
            loop.closeLingeringConnections()
        }
        thread.name = "NativeAuth loopback HTTP"
        thread.start()
    }

    /// Hands a handler's reply to the serving loop; dropped once serving has ended.
    func deliver(_ reply: LoopbackHTTPReply, to id: UInt64) {
        shared.withLock { shared in
            guard case .serving = shared.phase else { return }
            shared.replies.append((id, reply))
            wake()
        }
    }

    /// Records the serving loop's connection counts.
    func record(_ counts: LoopbackHTTPConnectionCounts) {
        shared.withLock { $0.connections = counts }
    }

    /// Whether stopping was asked for, and the replies delivered since the last call.
    func takeDeliveries() -> (stop: Bool, replies: [(id: UInt64, reply: LoopbackHTTPReply)]) {
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
