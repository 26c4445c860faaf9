import AuthSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the serving loop watches: the events the poller reports for each connection, and the
/// deadlines the timer heap holds, with the connections closed when theirs pass.
extension LoopbackHTTPServeLoop {
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
    func nextWake() -> ContinuousClock.Instant? {
        var next = [options.deadline, drainDeadline, acceptPausedUntil].compactMap { $0 }.min()
        while let top = timers.first, connections[top.id]?.scheduled != top.at { timers.removeFirst() }
        if let top = timers.first { next = min(next ?? top.at, top.at) }
        return next
    }

    /// When `connection` must next be looked at: its write deadline while output waits, its read
    /// deadline while it waits for a request, the time its held answer is due, the end of its
    /// lingering.
    private func due(_ connection: Connection) -> ContinuousClock.Instant? {
        var due: ContinuousClock.Instant?
        if connection.hasOutput, let writeDeadline = connection.writeDeadline { due = writeDeadline }
        switch connection.stage {
        case .reading where !connection.hasOutput && !connection.closeAfterWriting:
            due = min(due ?? connection.readDeadline, connection.readDeadline)
        case .lingering(let until):
            due = min(due ?? until, until)
        case .answering(.held(let heldUntil, _)):
            due = min(due ?? heldUntil, heldUntil)
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
    func update(_ id: UInt64, _ body: (inout Connection) -> Void) {
        guard var connection = connections[id] else { return }
        body(&connection)
        guard connection.isClosed else {
            settle(&connection)
            connections[id] = connection
            return
        }
        connections[id] = nil
        connection.cancelAnswer()
        if connection.endAfterWriting { finished = true }
        poller?.remove(connection.descriptor)
        close(connection.descriptor)
    }

    /// Closes what overran its deadline (`408` first when part of a request arrived), and goes on
    /// with the held answers that are due. Only the connections whose deadline came up in the
    /// heap are looked at.
    func expireConnections() {
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
                case .answering(.held(let heldUntil, let then)) where now >= heldUntil:
                    take(then(), on: &connection)
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
}
