import AuthSupport
public import Foundation
import LoopbackHTTP
import NativeAuth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A raw HTTP client for tests that speak HTTP byte by byte to a loopback server: malformed,
// pipelined, slow or idle requests that no HTTP client library would send. Socket calls block,
// so every exchange runs on a thread of its own, off the Swift concurrency pool, and every
// receive and send is bounded by a timeout.

/// One response read off a raw connection.
public struct RawResponse: Sendable {
    public var status: Int
    /// The status line and header lines, without the blank line after them.
    public var head: String
    public var body: [UInt8]

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The value of the first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        for line in head.components(separatedBy: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// How reading a connection to its end went.
public struct RawOutcome: Sendable {
    /// Every whole response received, in order.
    public var responses: [RawResponse]
    /// Bytes after the last whole response (none from a well-behaved server).
    public var leftover: [UInt8]
    /// The server closed the connection (FIN or reset) rather than the read timing out.
    public var closedByServer: Bool
    /// Every byte received, as it came.
    public var received: [UInt8]

    /// Every byte received, as text.
    public var transcript: String { String(decoding: received, as: UTF8.self) }
}

public struct RawFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A blocking TCP connection for a test to speak raw HTTP with, every call bounded by a receive
/// and send timeout. Use it on one thread (``RawHTTP/onThread(_:)``), never from the concurrency pool.
public final class RawConnection {
    public let descriptor: Int32
    private var buffer: [UInt8] = []

    public init(port: UInt16, timeout: TimeInterval = RawHTTP.timeout) throws {
        descriptor = try Self.connectSocket(port: port, timeout: timeout)
    }

    /// A blocking socket connected to 127.0.0.1:`port`, its receives and sends bounded by `timeout`.
    public static func connectSocket(port: UInt16, timeout: TimeInterval = RawHTTP.timeout) throws -> Int32 {
        let descriptor = LoopbackHTTPServer.connectClient(port: port, timeout: Int(timeout))
        guard descriptor >= 0 else { throw RawFailure("connect failed: \(-descriptor)") }
        return descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Sends every byte; `false` when the server closed the connection first.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            #if os(Linux)
                let flags = Int32(MSG_NOSIGNAL)
            #else
                let flags: Int32 = 0
            #endif
            let sent = bytes[offset...].withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count, flags) }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Ends the sending side: the server sees end of input.
    public func finishSending() {
        #if os(Linux)
            shutdown(descriptor, Int32(SHUT_WR))
        #else
            shutdown(descriptor, SHUT_WR)
        #endif
    }

    /// Whether bytes (or the end) can be read within `milliseconds`.
    public func isReadable(within milliseconds: Int32) -> Bool {
        var entry = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Reads until one whole response (head and `Content-Length` body) is in; `nil` when the
    /// connection ended or the read timed out first.
    public func readResponse() throws -> RawResponse? {
        while true {
            if let (response, consumed) = Self.parseResponse(buffer) {
                buffer.removeFirst(consumed)
                return response
            }
            switch receive() {
            case .bytes(let bytes): buffer += bytes
            case .closed, .timedOut: return nil
            }
        }
    }

    /// Reads until the server closes the connection or the read times out.
    public func readToEnd() -> RawOutcome {
        var closed = false
        reading: while true {
            switch receive() {
            case .bytes(let bytes): buffer += bytes
            case .closed:
                closed = true
                break reading
            case .timedOut: break reading
            }
        }
        let received = buffer
        var responses: [RawResponse] = []
        while let (response, consumed) = Self.parseResponse(buffer) {
            responses.append(response)
            buffer.removeFirst(consumed)
        }
        return RawOutcome(responses: responses, leftover: buffer, closedByServer: closed, received: received)
    }

    private enum Received {
        case bytes([UInt8])
        case closed
        case timedOut
    }

    private func receive() -> Received {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(Array(chunk[..<count])) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .timedOut
            default: return .closed  // reset
            }
        }
    }

    /// One response at the start of `bytes`, and how many bytes it took.
    public static func parseResponse(_ bytes: [UInt8]) -> (RawResponse, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<($0 + 4)]) == separator })
        else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let statusText = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        guard let status = Int(statusText) else { return nil }
        var response = RawResponse(status: status, head: head, body: [])
        let length = response.header("Content-Length").flatMap(Int.init) ?? 0
        let bodyStart = end + 4
        guard bytes.count - bodyStart >= length else { return nil }
        response.body = Array(bytes[bodyStart..<(bodyStart + length)])
        return (response, bodyStart + length)
    }
}

@available(*, unavailable)
extension RawConnection: Sendable {}

/// `send(2)`, which ``RawConnection``'s own `send` hides.
private func systemSend(_ socket: Int32, _ buffer: UnsafeRawPointer?, _ length: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
        Glibc.send(socket, buffer, length, flags)
    #else
        Darwin.send(socket, buffer, length, flags)
    #endif
}

public enum RawHTTP: Sendable {
    /// How long any one socket call waits before it gives up: a server that stops answering fails
    /// the test instead of hanging it.
    public static let timeout: TimeInterval = TestBounds.requestDeadline

    /// Opens `count` connections that send nothing; close them with ``closeAll(_:)``.
    public static func openIdle(port: UInt16, count: Int) async throws -> [Int32] {
        try await onThread {
            var descriptors: [Int32] = []
            do {
                for _ in 0..<count { descriptors.append(try RawConnection.connectSocket(port: port)) }
            } catch {
                descriptors.forEach { close($0) }
                throw error
            }
            return descriptors
        }
    }

    public static func closeAll(_ descriptors: [Int32]) {
        descriptors.forEach { close($0) }
    }

    /// Runs `body` on a thread of its own (socket calls block), off the concurrency pool.
    public static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withHandedContinuation(of: Result<T, any Error>.self) { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }.get()
    }

    /// Sends `bytes` on a new connection, ends the sending side when `finish` is set, and reads
    /// until the server closes the connection.
    public static func exchange(port: UInt16, _ bytes: [UInt8], finish: Bool = true) async throws -> RawOutcome {
        try await onThread {
            let connection = try RawConnection(port: port)
            connection.send(bytes)
            if finish { connection.finishSending() }
            return connection.readToEnd()
        }
    }

    public static func exchange(port: UInt16, _ text: String, finish: Bool = true) async throws -> RawOutcome {
        try await exchange(port: port, Array(text.utf8), finish: finish)
    }

    /// Sends `text` as it is, without ending the sending side (as a browser does), reads until the
    /// server closes the connection, and returns the first whole response.
    public static func answer(port: UInt16, _ text: String) async throws -> RawResponse {
        let outcome = try await exchange(port: port, text, finish: false)
        guard let first = outcome.responses.first else {
            throw RawFailure("no whole response in \(outcome.transcript.debugDescription)")
        }
        return first
    }

    /// A GET of `target` as a browser sends it; the first whole response.
    public static func get(port: UInt16, _ target: String, host: String? = nil) async throws -> RawResponse {
        let hostHeader = host ?? "127.0.0.1:\(port)"
        return try await answer(
            port: port, "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: test\r\nAccept: */*\r\n\r\n")
    }
}

/// Raises this process's soft limit on open files to at least `needed` (within the hard limit),
/// for tests that open hundreds of connections; `false` when it cannot.
public func raiseOpenFileLimit(to needed: Int) -> Bool {
    (LoopbackHTTPServer.raiseOpenFileLimit(to: needed) ?? Int.max) >= needed
}
