import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One connection's traffic: reading requests, handing them to the handler, and writing the replies.
extension LoopbackHTTPServeLoop {
    /// The most bytes taken from a connection in one read.
    private static let readSize = 64 * 1024

    func service(_ connection: inout Connection, revents: Int16) {
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
                switch LoopbackSocket.read(connection.descriptor, maximum: Self.readSize) {
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
        switch LoopbackSocket.read(connection.descriptor, maximum: Self.readSize) {
        case .wouldBlock:
            return
        case .closed:
            connection.peerDoneSending = true
        case .bytes(let bytes):
            if connection.input.isEmpty, case .reading = connection.stage {
                // A request begins: it has the whole read timeout from its first byte, however
                // long the kept-alive connection idled before it (else a request sent just before
                // the idle limit is cut off with a 408 while it arrives).
                connection.readDeadline = .now + options.readTimeout
            }
            connection.input += bytes
        }
        advance(&connection)
    }

    /// Takes the next request out of the input, if it is whole, and hands it to the handler.
    private func advance(_ connection: inout Connection) {
        guard case .reading = connection.stage, !connection.closeAfterWriting else { return }
        if drainDeadline != nil {
            // Stopping: no new request is started.
            connection.closeOnceWritten()
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
            connection.closeOnceWritten()
        case .invalid(let error):
            connection.input = []
            enqueue(error.response(limits: options.limits), on: &connection, closing: true, omitBody: false)
        case .complete(let request, let consumed):
            connection.input.removeFirst(consumed)
            connection.continueSent = false
            connection.requestKeepsAlive = request.wantsKeepAlive
            connection.requestIsHead = request.method == "HEAD"
            take(handler(request), on: &connection)
        }
    }

    /// Goes on with the handler's answer to the connection's request: writes a reply now, holds
    /// the answer until its time, or starts the task that awaits it.
    func take(_ answer: LoopbackHTTPAnswer, on connection: inout Connection) {
        switch answer {
        case .reply(let reply):
            connection.stage = .answering(.now)
            apply(reply, to: &connection)
        case .delayed(let delay, let then):
            connection.stage = .answering(.held(due: .now + max(.zero, delay), then: then))
        case .awaiting(let work):
            let (server, id) = (server, connection.id)
            connection.stage = .answering(
                .task(
                    Task {
                        let reply = await work()
                        server.deliver(reply, to: id)
                    }))
        }
    }

    func apply(_ reply: LoopbackHTTPReply, to connection: inout Connection) {
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

    func enqueue(
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
        if connection.endAfterWriting { finished = true }
        if connection.closeAfterWriting || connection.endAfterWriting {
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
