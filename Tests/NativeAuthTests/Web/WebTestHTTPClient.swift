import Foundation
import NativeAuth

@testable import LoopbackHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A test "browser": raw HTTP exchanges with a loopback port, each on a thread of its own (the
/// socket calls block, so they stay off the Swift concurrency pool), every wait bounded by a
/// receive timeout.
enum WebTestHTTPClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// One answer as received: the status code, the raw head and the body.
    struct Answer: Sendable {
        var status: Int
        var head: String
        var body: String
    }

    /// Sends `text` as it is, then reads until the server closes the connection.
    static func exchange(port: UInt16, _ text: String) async throws -> Answer {
        let raw = try await onThread { try blockingExchange(port: port, bytes: Array(text.utf8)) }
        let parts = raw.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let statusText = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        guard let status = Int(statusText) else {
            throw Failure(description: "no status line in \(raw.debugDescription)")
        }
        return Answer(status: status, head: head, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// A GET of `target` as a browser sends it.
    static func get(port: UInt16, _ target: String, host: String? = nil) async throws -> Answer {
        let hostHeader = host ?? "127.0.0.1:\(port)"
        return try await exchange(
            port: port, "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: test\r\nAccept: */*\r\n\r\n")
    }

    /// Opens a connection and sends nothing (a browser's speculative connection); close it with `close`.
    static func openIdleConnection(port: UInt16) async throws -> Int32 {
        try await onThread { try openSocket(port: port) }
    }

    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.start()
        }
    }

    private static func blockingExchange(port: UInt16, bytes: [UInt8]) throws -> String {
        let descriptor = try openSocket(port: port)
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else { throw Failure(description: "send failed: \(errno)") }
            offset += sent
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[..<count]
            } else if count == 0 || errno == ECONNRESET {
                break
            } else if errno != EINTR {
                throw Failure(description: "recv failed: \(errno)")
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    private static func openSocket(port: UInt16) throws -> Int32 {
        let descriptor = LoopbackHTTP.LoopbackHTTPServer.connectClient(port: port, timeout: 10)
        guard descriptor >= 0 else { throw Failure(description: "connect failed: \(-descriptor)") }
        return descriptor
    }
}
