public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A deliberately broken HTTP peer on 127.0.0.1: it reads each request's head, then resets the
/// connection (a zero linger time, so the client gets RST, not FIN) without a byte of answer.
/// No well-behaved server does that, the SDK's ``LoopbackHTTPServer`` included, so it is a raw
/// socket of its own. Accepting and resetting run on a thread of their own; `stop()` ends it.
public final class ResettingPeer: Sendable {
    /// The port the peer listens on, on 127.0.0.1.
    public let port: UInt16
    private let listener: Int32
    private let stopped = LockedValue(false)

    public init() throws {
        (listener, port) = try Self.makeListener()
        let thread = Thread { [listener, stopped] in
            Self.serve(listener, stopped: stopped)
            close(listener)
        }
        thread.start()
    }

    deinit {
        stop()
    }

    /// The URL of `path` on this peer.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Stops accepting: the accepting thread sees it within 50 ms and closes the socket.
    public func stop() {
        stopped.withLock { $0 = true }
    }

    private static func serve(_ listener: Int32, stopped: LockedValue<Bool>) {
        while !stopped.current {
            var entry = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            guard poll(&entry, 1, 50) > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            // The request's head, within 5 s: the reset comes after the client sent it.
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            let deadline = Date(timeIntervalSinceNow: 5)
            while !received.contains(subsequence: [13, 10, 13, 10]), Date() < deadline {
                var wait = [pollfd(fd: connection, events: Int16(POLLIN), revents: 0)]
                guard poll(&wait, 1, 50) >= 0 else { break }
                guard wait[0].revents != 0 else { continue }
                let count = recv(connection, &chunk, chunk.count, 0)
                guard count > 0 else { break }
                received += chunk[..<count]
            }
            var zero = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &zero, socklen_t(MemoryLayout<linger>.size))
            close(connection)
        }
    }

    private static func makeListener() throws -> (Int32, UInt16) {
        #if os(Linux)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RawFailure("socket failed: \(errno)") }
        var address = sockaddr_in()
        #if !os(Linux)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian  // 127.0.0.1 only
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw RawFailure("binding a loopback socket failed: \(code)")
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}

extension [UInt8] {
    fileprivate func contains(subsequence: [UInt8]) -> Bool {
        guard count >= subsequence.count else { return false }
        return (0...(count - subsequence.count)).contains {
            self[$0..<($0 + subsequence.count)].elementsEqual(subsequence)
        }
    }
}
