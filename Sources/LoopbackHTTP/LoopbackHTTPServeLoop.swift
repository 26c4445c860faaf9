import AuthSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a serving loop answers a request, on its own thread.
typealias LoopbackHTTPHandler = @Sendable (LoopbackHTTPRequest) -> LoopbackHTTPAnswer

/// The serving loop of one ``LoopbackHTTPServer``, run on its own thread; it owns every
/// connection descriptor and closes each in ``closeUnansweredConnections()`` and
/// ``closeLingeringConnections()``, after ``run()``.
///
/// Each wake-up costs what is ready and what is due, not what is open: the poller reports only
/// ready descriptors (epoll on Linux), each connection's wanted events are changed only when they
/// change, and deadlines wait in a heap rather than being scanned.
final class LoopbackHTTPServeLoop {
    struct Connection {
        /// How the request being answered is answered.
        enum Answering {
            /// On the serving thread, now.
            case now
            /// On the serving thread, by `then`, once `due` has come.
            case held(due: ContinuousClock.Instant, then: @Sendable () -> LoopbackHTTPAnswer)
            /// By this task, which delivers its reply to the server.
            case task(Task<Void, Never>)
        }

        enum Stage {
            /// Waiting for (the rest of) a request.
            case reading
            /// The handler is answering a request.
            case answering(Answering)
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

        /// Cancels the task answering the connection's request, if any.
        func cancelAnswer() {
            if case .answering(.task(let task)) = stage { task.cancel() }
        }

        /// Closes the connection once its pending output is written, or now when there is none.
        mutating func closeOnceWritten() {
            if hasOutput { closeAfterWriting = true } else { isClosed = true }
        }
    }

    let server: LoopbackHTTPServer
    private let listener: Int32
    private let wakeRead: Int32
    let options: LoopbackHTTPServeOptions
    let handler: LoopbackHTTPHandler
    var connections: [UInt64: Connection] = [:]
    private var nextID: UInt64 = 0
    /// Set once stopping was asked for: when the requests being answered must be done.
    private(set) var drainDeadline: ContinuousClock.Instant?
    /// Set when accepting failed for lack of descriptors: when to try again.
    private(set) var acceptPausedUntil: ContinuousClock.Instant?
    /// A reply that ends serving was written.
    var finished = false
    /// Created when serving starts; owns no descriptor but its own.
    private(set) var poller: LoopbackPoller?
    /// Every connection's next deadline, and stale ones (skipped when they come up).
    var timers = DeadlineHeap<ContinuousClock.Instant>()
    private var listenerWatched = true
    private var counts = LoopbackHTTPConnectionCounts()

    private static let wakeToken: UInt64 = 0
    private static let listenerToken = UInt64.max

    init(
        server: LoopbackHTTPServer, listener: Int32, wakeRead: Int32, options: LoopbackHTTPServeOptions,
        handler: @escaping LoopbackHTTPHandler
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
            // The server closes both once this returns; the connections are closed after that.
            poller.remove(listener)
            poller.remove(wakeRead)
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
            recordOpenCount()
        }
    }

    /// Closes, once serving has ended, every connection but those answered for the last time, and
    /// cancels their unfinished answers; records the count left open. Called before the server
    /// reports that serving ended, so whoever waited for that finds these closed.
    func closeUnansweredConnections() {
        for id in Array(connections.keys) {
            update(id) { connection in
                if case .lingering = connection.stage { return }
                connection.isClosed = true
            }
        }
        recordOpenCount()
    }

    /// Closes the connections left by ``closeUnansweredConnections()``: those answered for the last
    /// time linger until their clients close, or their linger timeouts pass; what the clients still
    /// send is read and dropped, so that a client still sending reads its answer rather than a
    /// reset. Nothing new is accepted or answered meanwhile.
    func closeLingeringConnections() {
        while !connections.isEmpty, let poller {
            while let top = timers.first, connections[top.id]?.scheduled != top.at { timers.removeFirst() }
            guard let next = timers.first?.at,
                let ready = try? poller.wait(timeout: LoopbackSocket.milliseconds(until: next))
            else { break }
            for event in ready where event.token != Self.wakeToken && event.token != Self.listenerToken {
                update(event.token) { service(&$0, revents: event.events) }
            }
            expireConnections()
        }
        for connection in connections.values {
            poller?.remove(connection.descriptor)
            close(connection.descriptor)
        }
        connections = [:]
        poller = nil
        recordOpenCount()
    }

    private func recordOpenCount() {
        guard counts.open != connections.count else { return }
        counts.open = connections.count
        server.record(counts)
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
                case .reading:
                    connection.closeOnceWritten()
                case .lingering:
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
}
