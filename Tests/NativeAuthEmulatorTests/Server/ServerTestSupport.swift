import Foundation
import NativeAuth
import NativeAuthEmulator
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How long any one socket call of a test waits before it gives up: every wait over loopback is
/// bounded by it (a server that stops answering fails the test instead of hanging it).
let socketBound: TimeInterval = 20

/// A harness tenant (manual clock, seeded random, the fixture users) served on 127.0.0.1.
struct ServedTenant {
    let harness: Harness
    let server: EmulatorServer
    let transport = URLSessionTransport(timeout: socketBound)

    init(
        configuration: EmulatorServer.Configuration = EmulatorServer.Configuration(),
        configure: (inout EmulatorSettings) -> Void = { _ in }
    ) throws {
        harness = Harness(configure: configure)
        server = try EmulatorServer(tenant: harness.tenant, configuration: configuration)
        server.start()
    }

    var tenant: EmulatedTenant { harness.tenant }
    var port: UInt16 { server.port }

    /// A client of the server over real loopback HTTP, on the tenant's manual clock.
    func client(store: any CredentialStore = InMemoryCredentialStore()) throws -> NativeAuthClient {
        var configuration = try NativeAuthConfiguration(
            clientId: tenant.clientId, authority: server.authority,
            capabilities: [.mfaRequired, .registrationRequired])
        configuration.clock = harness.clock
        return NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store)
    }

    /// A control API call with an optional JSON body; the answer's status and JSON object.
    func control(_ method: String, _ path: String, _ body: String? = nil) async throws -> ControlReply {
        let url = try #require(URL(string: server.controlURL.absoluteString + path))
        var headers: [String: String] = [:]
        if body != nil { headers["Content-Type"] = "application/json" }
        let response = try await transport.send(
            HTTPRequest(method: method, url: url, headers: headers, body: body.map { Data($0.utf8) }))
        return try ControlReply(response)
    }

    /// A plain control API `GET /info` over URLSession: the server answers normal requests.
    func expectServing(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let info = try await control("GET", "/info")
        #expect(info.status == 200, sourceLocation: sourceLocation)
        #expect(info["clientId"] as? String == tenant.clientId, sourceLocation: sourceLocation)
    }
}

/// A control API answer.
struct ControlReply {
    let response: HTTPResponse
    let json: [String: Any]

    init(_ response: HTTPResponse) throws {
        self.response = response
        json =
            response.body.isEmpty
            ? [:] : (try JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }

    var status: Int { response.statusCode }
    var text: String { String(decoding: response.body, as: UTF8.self) }
    subscript(key: String) -> Any? { json[key] }
    var error: String? { json["error"] as? String }
}

/// One response read off a raw connection.
struct RawResponse: Sendable {
    var status: Int
    var head: String
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The value of the first header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
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
struct RawOutcome: Sendable {
    /// Every whole response received, in order.
    var responses: [RawResponse]
    /// Bytes after the last whole response (none from a well-behaved server).
    var leftover: [UInt8]
    /// The server closed the connection (FIN or reset) rather than the read timing out.
    var closedByServer: Bool
}

struct RawFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A blocking TCP connection for a test to speak raw HTTP with, every call bounded by a receive
/// and send timeout. Use it on one thread (``RawHTTP/onThread(_:)``), never from the concurrency pool.
final class RawConnection {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16, timeout: TimeInterval = socketBound) throws {
        descriptor = try Self.connectSocket(port: port, timeout: timeout)
    }

    /// A blocking socket connected to 127.0.0.1:`port`, its receives and sends bounded by `timeout`.
    static func connectSocket(port: UInt16, timeout: TimeInterval = socketBound) throws -> Int32 {
        let descriptor = LoopbackHTTPServer.connectClient(port: port, timeout: Int(timeout))
        guard descriptor >= 0 else { throw RawFailure("connect failed: \(-descriptor)") }
        return descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Sends every byte; `false` when the server closed the connection first.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
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
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Ends the sending side: the server sees end of input.
    func finishSending() {
        #if os(Linux)
            shutdown(descriptor, Int32(SHUT_WR))
        #else
            shutdown(descriptor, SHUT_WR)
        #endif
    }

    /// Whether bytes (or the end) can be read within `milliseconds`.
    func isReadable(within milliseconds: Int32) -> Bool {
        var entry = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Reads until one whole response (head and `Content-Length` body) is in; `nil` when the
    /// connection ended or the read timed out first.
    func readResponse() throws -> RawResponse? {
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
    func readToEnd() -> RawOutcome {
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
        var responses: [RawResponse] = []
        while let (response, consumed) = Self.parseResponse(buffer) {
            responses.append(response)
            buffer.removeFirst(consumed)
        }
        return RawOutcome(responses: responses, leftover: buffer, closedByServer: closed)
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
    static func parseResponse(_ bytes: [UInt8]) -> (RawResponse, Int)? {
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

/// `send(2)`, which ``RawConnection``'s own `send` hides.
private func systemSend(_ socket: Int32, _ buffer: UnsafeRawPointer?, _ length: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
        Glibc.send(socket, buffer, length, flags)
    #else
        Darwin.send(socket, buffer, length, flags)
    #endif
}

enum RawHTTP {
    /// Opens `count` connections that send nothing; close them with ``closeAll(_:)``.
    static func openIdle(port: UInt16, count: Int) async throws -> [Int32] {
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

    static func closeAll(_ descriptors: [Int32]) {
        descriptors.forEach { close($0) }
    }

    /// Runs `body` on a thread of its own (socket calls block), off the concurrency pool.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try body() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Sends `bytes` on a new connection, ends the sending side when `finish` is set, and reads
    /// until the server closes the connection.
    static func exchange(port: UInt16, _ bytes: [UInt8], finish: Bool = true) async throws -> RawOutcome {
        try await onThread {
            let connection = try RawConnection(port: port)
            connection.send(bytes)
            if finish { connection.finishSending() }
            return connection.readToEnd()
        }
    }

    static func exchange(port: UInt16, _ text: String, finish: Bool = true) async throws -> RawOutcome {
        try await exchange(port: port, Array(text.utf8), finish: finish)
    }
}

/// Raises this process's soft limit on open files to at least `needed` (within the hard limit),
/// for tests that open hundreds of connections; `false` when it cannot.
func raiseOpenFileLimit(to needed: Int) -> Bool {
    (LoopbackHTTPServer.raiseOpenFileLimit(to: needed) ?? Int.max) >= needed
}
