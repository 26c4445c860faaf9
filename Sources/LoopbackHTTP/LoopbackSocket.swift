#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX socket calls of the loopback server, with the differences between Glibc and Darwin
/// kept here. Every descriptor is close-on-exec (a browser launched with `Process` must not inherit
/// the listener) and non-blocking (the serving thread waits in `poll`, never in `accept` or `recv`).
enum LoopbackSocket {
    #if os(Linux)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        private static let streamType = SOCK_STREAM
        private static let sendFlags: Int32 = 0
    #endif

    /// A listening TCP socket on 127.0.0.1 (never another interface), the port it got and the
    /// address it is bound to as the system reports it; `port` 0 lets the system choose.
    static func makeListener(port: UInt16, backlog: Int32 = 128) throws(LoopbackHTTPError) -> (
        descriptor: Int32, port: UInt16, address: String
    ) {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw .system(call: "socket", code: errno) }
        do throws(LoopbackHTTPError) {
            try configure(descriptor)
            var yes: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0
            else { throw LoopbackHTTPError.system(call: "setsockopt", code: errno) }

            var address = loopbackAddress(port: port)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if bound != 0 {
                let code = errno
                throw code == EADDRINUSE
                    ? LoopbackHTTPError.portInUse(port) : LoopbackHTTPError.system(call: "bind", code: code)
            }
            guard listen(descriptor, backlog) == 0 else {
                throw LoopbackHTTPError.system(call: "listen", code: errno)
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0 else { throw LoopbackHTTPError.system(call: "getsockname", code: errno) }
            let host = UInt32(bigEndian: address.sin_addr.s_addr)
            let dotted = [24, 16, 8, 0].map { String((host >> UInt32($0)) & 0xFF) }.joined(separator: ".")
            return (descriptor, UInt16(bigEndian: address.sin_port), dotted)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// The two ends of a pipe used to wake a thread waiting in `poll`.
    static func wakePipe() throws(LoopbackHTTPError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(call: "pipe", code: errno) }
        do {
            try configure(ends[0])
            try configure(ends[1])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        return (ends[0], ends[1])
    }

    /// The result of one `accept`.
    enum AcceptResult {
        /// A new connection, configured like every descriptor here.
        case connection(Int32)
        /// A pending connection was aborted before it could be taken, or could not be configured:
        /// try again.
        case skipped
        /// No connection is pending.
        case none
        /// The process or system is out of descriptors (`EMFILE`, `ENFILE`) or memory: the
        /// connection stays pending.
        case exhausted
    }

    /// Accepts one pending connection.
    static func acceptConnection(on listener: Int32) -> AcceptResult {
        while true {
            let connection = accept(listener, nil, nil)
            if connection >= 0 {
                do {
                    try configure(connection)
                } catch {
                    close(connection)
                    return .skipped
                }
                #if !os(Linux)
                    var yes: Int32 = 1
                    setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
                #endif
                return .connection(connection)
            }
            switch errno {
            case EINTR: continue
            case ECONNABORTED, EPROTO, EPERM: return .skipped
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .exhausted
            default: return .none
            }
        }
    }

    #if os(Linux)
        private static let openFilesResource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let openFilesResource = RLIMIT_NOFILE
    #endif

    /// 127.0.0.1:`port`.
    static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if !os(Linux)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian  // 127.0.0.1 only
        return address
    }

    /// A blocking client socket connected to 127.0.0.1:`port`, its sends and receives bounded by
    /// `timeout` seconds when given; `-errno` when it cannot be made or connected.
    static func connectClient(port: UInt16, timeout: Int?) -> Int32 {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { return -errno }
        if let timeout {
            var bound = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &bound, socklen_t(MemoryLayout<timeval>.size))
        }
        #if !os(Linux)
            var yes: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            return -code
        }
        return descriptor
    }

    /// The soft limit on open descriptors of this process (`RLIMIT_NOFILE`), or `nil` when unknown.
    static func openFileLimit() -> Int? {
        let resource = openFilesResource
        var limit = rlimit()
        // RLIM_INFINITY is the largest value (it does not import on Glibc): treat huge as none.
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < 1 << 40 else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit on open descriptors to `wanted`, or to the hard limit when that is
    /// lower; never lowers it. Returns the soft limit then in force, or `nil` when there is none.
    static func raiseOpenFileLimit(to wanted: Int) -> Int? {
        let resource = openFilesResource
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        let target = rlim_t(clamping: max(0, wanted))
        if limit.rlim_cur < target && limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(target, limit.rlim_max)
            if setrlimit(resource, &raised) != 0, raised.rlim_cur > 10_240 {
                // Darwin refuses more than OPEN_MAX (10,240) whatever the hard limit says.
                raised.rlim_cur = max(limit.rlim_cur, 10_240)
                _ = setrlimit(resource, &raised)
            }
        }
        return openFileLimit()
    }

    /// The result of one `recv`.
    enum ReadResult {
        case bytes([UInt8])
        case wouldBlock
        case closed
    }

    /// Reads what is available, up to `maximum` bytes, without blocking.
    static func read(_ descriptor: Int32, maximum: Int) -> ReadResult {
        var chunk = [UInt8](repeating: 0, count: max(1, maximum))
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(Array(chunk[..<count])) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .closed
        }
    }

    /// The result of one `send`.
    enum WriteResult {
        /// This many bytes were written (at least one).
        case wrote(Int)
        /// The socket's buffer is full: wait for `POLLOUT`.
        case wouldBlock
        /// The connection is gone.
        case failed
    }

    /// Writes what the socket takes of `bytes` without blocking.
    static func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> WriteResult {
        guard !bytes.isEmpty else { return .wrote(0) }
        while true {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, sendFlags) }
            if sent > 0 { return .wrote(sent) }
            if sent == 0 { return .failed }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock }
            return .failed
        }
    }

    /// Ends the sending side of a connection (a FIN follows what was written); reading goes on.
    static func shutdownWriting(_ descriptor: Int32) {
        #if os(Linux)
            _ = shutdown(descriptor, Int32(SHUT_WR))
        #else
            _ = shutdown(descriptor, SHUT_WR)
        #endif
    }

    /// Milliseconds from now to `deadline`, rounded up, at least 0, at most a day.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return 0 }
        let (seconds, attoseconds) = remaining.components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(millis, 86_400_000))
    }

    private static func configure(_ descriptor: Int32) throws(LoopbackHTTPError) {
        guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else { throw .system(call: "fcntl", code: errno) }
        let flags = fcntl(descriptor, F_GETFL, 0)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
            throw .system(call: "fcntl", code: errno)
        }
    }
}
