import Dispatch
import Foundation
import NativeAuthTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for the transport tests.
///
/// It listens on an ephemeral port of the loopback interface only, accepts on a thread of its own,
/// serves each connection (keep-alive, several requests in turn) on a thread of its own, records
/// every request and answers it as `script` says. `stop()` wakes and ends every thread and closes
/// every socket.
final class LoopbackHTTPServer: @unchecked Sendable {
    // Safe: the file descriptors and `port` are set once in `init`; everything mutable sits in
    // `state` and is touched only under `lock`.
    typealias Script = @Sendable (Request) -> Reply

    private struct State {
        var requests: [Request] = []
        var waiters: [(count: Int, latch: Latch<[Request]>)] = []
        var gates: [Gate] = []
        var isStopped = false
    }

    /// The port the server listens on, on 127.0.0.1.
    let port: UInt16

    private let script: Script
    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let lock = NSLock()
    private var state = State()
    private let threads = DispatchGroup()

    /// Starts a server that answers every request as `script` says.
    init(script: @escaping Script) throws {
        self.script = script
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw Failure.system("pipe", errno) }
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        do {
            (listener, port) = try Self.makeListener()
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw error
        }
        spawn { [self] in acceptLoop() }
    }

    /// The URL of `path` (with any query) on this server.
    func url(_ path: String) -> URL {
        // A malformed path gives a file URL, which makes the request, and so the test, fail.
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Every request received so far, in order of arrival.
    var requests: [Request] {
        lock.withLock { state.requests }
    }

    /// Returns once at least `count` requests have arrived (or the server stopped), with all so far;
    /// after `TestBounds.wait` without them, records an issue and returns those that came.
    func waitForRequests(count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> [Request] {
        let latch = Latch<[Request]>()
        let ready: [Request]? = lock.withLock {
            if state.requests.count >= count || state.isStopped { return state.requests }
            state.waiters.append((count, latch))
            return nil
        }
        if let ready { return ready }
        if let requests = await latch.wait(
            for: "\(count) request(s) to reach the server", sourceLocation: sourceLocation)
        {
            return requests
        }
        return requests
    }

    /// Stops accepting, ends every connection, opens every gate and waits for the server's threads.
    func stop() {
        typealias Leftovers = (
            gates: [Gate], waiters: [Latch<[Request]>],
            requests: [Request]
        )
        let leftovers: Leftovers? = lock.withLock {
            guard !state.isStopped else { return nil }
            state.isStopped = true
            defer { state.waiters = [] }
            return (state.gates, state.waiters.map(\.latch), state.requests)
        }
        guard let (gates, waiters, requests) = leftovers else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        gates.forEach { $0.open() }
        waiters.forEach { $0.fulfill(requests) }
        _ = threads.wait(timeout: .now() + 10)
        close(wakeRead)
        close(wakeWrite)
    }

    deinit {
        stop()
    }

    // MARK: Threads

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.start()
    }

    private func acceptLoop() {
        defer { close(listener) }
        while waitReadable(listener) {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { continue }
                return
            }
            Self.configure(connection: connection)
            spawn { [self] in serve(connection) }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var buffer: [UInt8] = []
        while let request = readRequest(connection, buffer: &buffer) {
            record(request)
            let keepAlive = request.header("Connection")?.lowercased() != "close"
            guard answer(script(request), on: connection), keepAlive else { return }
        }
    }

    private func record(_ request: Request) {
        let (ready, snapshot): ([Latch<[Request]>], [Request]) = lock.withLock {
            state.requests.append(request)
            let count = state.requests.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.latch)
            state.waiters.removeAll { $0.count <= count }
            return (ready, state.requests)
        }
        ready.forEach { $0.fulfill(snapshot) }
    }

    /// Performs `reply`; returns whether the connection can serve another request.
    private func answer(_ reply: Reply, on connection: Int32) -> Bool {
        switch reply {
        case .respond(let status, let headers, let body):
            var fields = headers
            let hasBody = !(100..<200).contains(status) && status != 204 && status != 304
            if hasBody && !fields.contains(where: { $0.name.lowercased() == "content-length" }) {
                fields.append(.init(name: "Content-Length", value: String(body.count)))
            }
            let ok = writeAll(connection, Self.head(status: status, fields: fields))
            return ok && (hasBody ? writeAll(connection, Array(body)) : true)
        case .closeWithoutAnswer:
            shutdown(connection, Int32(SHUT_RDWR))
            return false
        case .reset:
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            return false
        case .truncatedBody(let status, let declaredLength, let body):
            let head = Self.head(
                status: status, fields: [.init(name: "Content-Length", value: String(declaredLength))])
            _ = writeAll(connection, head) && writeAll(connection, Array(body))
            shutdown(connection, Int32(SHUT_RDWR))
            return false
        case .hold(let gate, let then):
            let stopped = lock.withLock {
                state.gates.append(gate)
                return state.isStopped
            }
            if !stopped { gate.wait() }
            guard !lock.withLock({ state.isStopped }) else { return false }
            return answer(then, on: connection)
        }
    }

    // MARK: Reading

    /// Reads one whole request (head and `Content-Length` body); `nil` at end of stream, on an
    /// error, on a request it cannot parse, or when the server stops.
    private func readRequest(_ connection: Int32, buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            if let end = Self.find(terminator, in: buffer) {
                headEnd = end
                break
            }
            guard buffer.count < 64 * 1024, let more = readSome(connection) else { return nil }
            buffer += more
        }
        guard let headEnd else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3 else { return nil }
        var fields: [Request.Field] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields.append(.init(name: name, value: value))
        }
        var request = Request(
            method: String(requestLine[0]), target: String(requestLine[1]), version: String(requestLine[2]),
            fields: fields, body: Data())
        buffer.removeFirst(headEnd + terminator.count)

        if request.header("Transfer-Encoding") != nil { return nil }  // chunked uploads are not supported
        let length = request.header("Content-Length").flatMap { Int($0) } ?? 0
        guard length >= 0 else { return nil }
        if length > 0, request.header("Expect")?.lowercased() == "100-continue" {
            guard writeAll(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return nil }
        }
        while buffer.count < length {
            guard let more = readSome(connection) else { return nil }
            buffer += more
        }
        request.body = Data(buffer[..<length])
        buffer.removeFirst(length)
        return request
    }

    private func readSome(_ connection: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while waitReadable(connection) {
            let count = recv(connection, &chunk, chunk.count, 0)
            if count > 0 { return Array(chunk[..<count]) }
            if count == 0 { return nil }
            if errno == EINTR || errno == EAGAIN { continue }
            return nil
        }
        return nil
    }

    // MARK: Writing

    private func writeAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            guard waitWritable(connection) else { return false }
            let sent = bytes[offset...].withUnsafeBytes { raw in
                send(connection, raw.baseAddress, raw.count, Self.sendFlags)
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EINTR || errno == EAGAIN) {
                continue
            } else {
                return false
            }
        }
        return true
    }

    private static func head(status: Int, fields: [Request.Field]) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason(status))\r\n"
        for field in fields { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    // MARK: Polling

    /// Waits until `descriptor` is readable; `false` when the server stops or polling fails.
    private func waitReadable(_ descriptor: Int32) -> Bool {
        wait(for: descriptor, events: Int16(POLLIN))
    }

    /// Waits until `descriptor` is writable; `false` when the server stops or polling fails.
    private func waitWritable(_ descriptor: Int32) -> Bool {
        wait(for: descriptor, events: Int16(POLLOUT))
    }

    private func wait(for descriptor: Int32, events: Int16) -> Bool {
        var descriptors = [
            pollfd(fd: descriptor, events: events, revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let result = poll(&descriptors, nfds_t(descriptors.count), -1)
            if result < 0 {
                if errno == EINTR { continue }
                return false
            }
            if descriptors[1].revents != 0 { return false }
            if descriptors[0].revents != 0 { return true }
        }
    }

    // MARK: Sockets

    #if os(Linux)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        private static let streamType = SOCK_STREAM
        private static let sendFlags: Int32 = 0
    #endif

    private static func makeListener() throws -> (Int32, UInt16) {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw Failure.system("socket", errno) }
        do {
            var yes: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) == 0
            else { throw Failure.system("setsockopt", errno) }

            var address = sockaddr_in()
            #if !os(Linux)
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(0).bigEndian
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian  // 127.0.0.1 only
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw Failure.system("bind", errno) }
            guard listen(descriptor, 128) == 0 else { throw Failure.system("listen", errno) }

            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0 else { throw Failure.system("getsockname", errno) }
            return (descriptor, UInt16(bigEndian: address.sin_port))
        } catch {
            close(descriptor)
            throw error
        }
    }

    private static func configure(connection: Int32) {
        #if !os(Linux)
            var yes: Int32 = 1
            setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
            if bytes[start..<(start + pattern.count)].elementsEqual(pattern) { return start }
        }
        return nil
    }
}

extension LoopbackHTTPServer {
    /// One request as the loopback server received it.
    struct Request: Sendable {
        /// One header line, with its name as the client sent it.
        struct Field: Sendable, Equatable {
            var name: String
            var value: String
        }

        var method: String
        /// The request target: path and query, as sent.
        var target: String
        var version: String
        var fields: [Field]
        var body: Data

        /// The path of the target, without its query.
        var path: String { String(target.prefix { $0 != "?" }) }

        /// The value of the first header named `name`, matched case-insensitively.
        func header(_ name: String) -> String? {
            fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// How many header lines are named `name`, matched case-insensitively.
        func count(of name: String) -> Int {
            fields.count { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        }
    }

    /// A gate a held reply waits behind until the test opens it (or the server stops).
    final class Gate: @unchecked Sendable {
        // Safe: `isOpen` is read and written only while `condition` is locked.
        private let condition = NSCondition()
        private var isOpen = false

        init() {}

        /// Lets every waiter through, now and later.
        func open() {
            condition.lock()
            isOpen = true
            condition.broadcast()
            condition.unlock()
        }

        /// Blocks the calling thread (a server thread, never a test task) until the gate is open,
        /// or for twice `TestBounds.wait` at most: a test that never opens its gate then gets the
        /// held answer late (and fails on it) instead of waiting for it forever.
        fileprivate func wait() {
            let deadline = Date(timeIntervalSinceNow: 2 * Double(TestBounds.wait.components.seconds))
            condition.lock()
            while !isOpen, condition.wait(until: deadline) {}
            condition.unlock()
        }
    }

    /// What the server does with one request.
    indirect enum Reply: Sendable {
        /// Answers with this status, these header lines (in order) and this body. A `Content-Length`
        /// is added unless the headers carry one, or the status has no body (1xx, 204, 304).
        case respond(status: Int, headers: [Request.Field], body: Data)
        /// Closes the connection without a byte of answer (an orderly close, FIN).
        case closeWithoutAnswer
        /// Resets the connection without a byte of answer (RST, through a zero linger).
        case reset
        /// Sends a head declaring `declaredLength` bytes of body, then only `body`, then closes.
        case truncatedBody(status: Int, declaredLength: Int, body: Data)
        /// Waits until `gate` is open, then does `then`. Stopping the server opens every gate.
        case hold(Gate, then: Reply)

        /// A response with a text body.
        static func text(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Reply {
            .respond(
                status: status,
                headers: headers.map { Request.Field(name: $0.0, value: $0.1) },
                body: Data(body.utf8)
            )
        }
    }

    enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)

        var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            }
        }
    }
}
