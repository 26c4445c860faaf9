import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import LoopbackHTTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the server does with clients that misbehave at the socket: malformed, oversized, slow,
/// idle or too many. After each, the server still answers a normal request.
@Suite("Emulator server: sockets, limits and hostile input", .hangLimit)
struct ServerRobustnessTests {
    static let host = "Host: 127.0.0.1\r\n"

    @Test("binds 127.0.0.1 only, on a port the system chose; a port in use is refused")
    func bindsLoopbackOnly() async throws {
        let served = try ServedTenant()
        #expect(served.server.boundAddress == "127.0.0.1")
        #expect(served.port != 0)
        var configuration = EmulatorServer.Configuration()
        configuration.port = served.port
        do {
            _ = try EmulatorServer(tenant: served.tenant, configuration: configuration)
            Issue.record("a second server on the same port must be refused")
        } catch {
            #expect(error.kind == .portInUse)
            #expect(error.reason == "Port \(served.port) on 127.0.0.1 is already in use.")
        }
        try await served.expectServing()
        await served.server.stop()
    }

    @Test("keep-alive: requests on one connection, one after the other or pipelined, are answered in order")
    func keepAlive() async throws {
        let served = try ServedTenant()
        let port = served.port
        let form = "client_id=\(served.tenant.clientId)&username=ada%40contoso.com&challenge_type=oob%20redirect"
        let (answers, closed) = try await RawHTTP.onThread { () -> ([RawResponse], Bool) in
            let connection = try RawConnection(port: port)
            var answers: [RawResponse] = []
            connection.send("GET /emulator/v1/info HTTP/1.1\r\n\(Self.host)\r\n")
            answers += [try connection.readResponse()].compactMap { $0 }
            connection.send(
                "POST /contoso.onmicrosoft.com/oauth2/v2.0/initiate HTTP/1.1\r\n\(Self.host)"
                    + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form)"
            )
            answers += [try connection.readResponse()].compactMap { $0 }
            connection.send(
                "GET /emulator/v1/users HTTP/1.1\r\n\(Self.host)\r\nGET /emulator/v1/clock HTTP/1.1\r\n\(Self.host)\r\n"
                    + "GET /emulator/v1/codes HTTP/1.1\r\n\(Self.host)Connection: close\r\n\r\n")
            let rest = connection.readToEnd()
            return (answers + rest.responses, rest.closedByServer)
        }
        #expect(closed)
        #expect(answers.map(\.status) == [200, 200, 200, 200, 200])
        guard answers.count == 5 else { return }
        #expect(answers[0].text.contains("\"authority\""))
        #expect(answers[1].text.contains("continuation_token"))
        #expect(answers[2].text.hasPrefix("{\"users\""))
        #expect(answers[3].text.hasPrefix("{\"now\""))
        #expect(answers[4].text.hasPrefix("{\"codes\""))
        #expect(answers[..<4].allSatisfy { $0.header("Connection") == "keep-alive" })
        #expect(answers[4].header("Connection") == "close")
        await served.server.stop()
    }

    @Test("a chunked request body is read; bad chunked bodies get 400 and the connection is closed")
    func chunkedBodies() async throws {
        let served = try ServedTenant()
        let head = "POST /emulator/v1/users HTTP/1.1\r\n\(Self.host)Transfer-Encoding: chunked\r\n\r\n"
        let good = try await RawHTTP.exchange(
            port: served.port,
            head + "b\r\n{\"username\"\r\n16;x=y\r\n:\"chunked@contoso.com\"\r\n1\r\n}\r\n0\r\nX-Trailer: 1\r\n\r\n")
        #expect(good.responses.map(\.status) == [201])
        #expect(served.tenant.user(named: "chunked@contoso.com") != nil)
        for body in ["zz\r\n{}\r\n0\r\n\r\n", "2\r\n{}}\r\n0\r\n\r\n", "2\n{}", "0\r\nbad trailer\r\n\r\n"] {
            let outcome = try await RawHTTP.exchange(port: served.port, head + body)
            #expect(outcome.responses.map(\.status) == [400], "\(body.debugDescription)")
            #expect(outcome.closedByServer)
        }
        let both = try await RawHTTP.exchange(
            port: served.port,
            "POST /emulator/v1/users HTTP/1.1\r\n\(Self.host)Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"
        )
        #expect(both.responses.map(\.status) == [400])
        let gzip = try await RawHTTP.exchange(
            port: served.port, "POST /emulator/v1/users HTTP/1.1\r\n\(Self.host)Transfer-Encoding: gzip\r\n\r\n")
        #expect(gzip.responses.map(\.status) == [501])
        try await served.expectServing()
        await served.server.stop()
    }

    @Test("Expect: 100-continue gets 100 Continue before the body is sent")
    func expectContinue() async throws {
        let served = try ServedTenant()
        let port = served.port
        let body = #"{"username":"continued@contoso.com"}"#
        let answers = try await RawHTTP.onThread { () -> [Int] in
            let connection = try RawConnection(port: port)
            connection.send(
                "POST /emulator/v1/users HTTP/1.1\r\n\(Self.host)Expect: 100-continue\r\n"
                    + "Content-Length: \(body.utf8.count)\r\n\r\n")
            let interim = try connection.readResponse()
            connection.send(body)
            let final = try connection.readResponse()
            return [interim?.status ?? 0, final?.status ?? 0]
        }
        #expect(answers == [100, 201])
        #expect(served.tenant.user(named: "continued@contoso.com") != nil)
        await served.server.stop()
    }

    @Test("oversized request lines, headers and bodies get 414, 431 and 413 with a short explanation")
    func oversized() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.maxRequestLineBytes = 256
        configuration.maxHeaderBytes = 1024
        configuration.maxHeaderCount = 20
        configuration.maxBodyBytes = 2048
        let served = try ServedTenant(configuration: configuration)
        let port = served.port

        let longLine = try await RawHTTP.exchange(
            port: port, "GET /" + String(repeating: "a", count: 300) + " HTTP/1.1\r\n\(Self.host)\r\n", finish: false)
        #expect(longLine.responses.map(\.status) == [414])
        #expect(longLine.responses.first?.text == "414 URI Too Long: The request line is longer than 256 bytes.\n")
        #expect(longLine.closedByServer)

        let bigHeader = try await RawHTTP.exchange(
            port: port,
            "GET /emulator/v1/info HTTP/1.1\r\n\(Self.host)X-Big: \(String(repeating: "b", count: 4000))\r\n\r\n",
            finish: false)
        #expect(bigHeader.responses.map(\.status) == [431])
        #expect(bigHeader.responses.first?.text.contains("larger than 1024 bytes") == true)

        let manyHeaders = (0..<30).map { "X-\($0): v\r\n" }.joined()
        let many = try await RawHTTP.exchange(
            port: port, "GET /emulator/v1/info HTTP/1.1\r\n\(Self.host)\(manyHeaders)\r\n", finish: false)
        #expect(many.responses.map(\.status) == [431])
        #expect(many.responses.first?.text.contains("more than 20 header lines") == true)

        // The length alone is refused: the body is never waited for.
        let declared = try await RawHTTP.exchange(
            port: port, "POST /emulator/v1/users HTTP/1.1\r\n\(Self.host)Content-Length: 4096\r\n\r\n", finish: false)
        #expect(declared.responses.map(\.status) == [413])
        #expect(
            declared.responses.first?.text == "413 Content Too Large: The request body is larger than 2048 bytes.\n")

        // A whole oversized body sent at once still gets its answer (the rest is read and dropped).
        let sent = try await RawHTTP.exchange(
            port: port,
            "POST /emulator/v1/users HTTP/1.1\r\n\(Self.host)Content-Length: 60000\r\n\r\n"
                + String(repeating: "x", count: 60000), finish: false)
        #expect(sent.responses.map(\.status) == [413])

        let chunk = String(repeating: "c", count: 1000)
        let chunked = try await RawHTTP.exchange(
            port: port,
            "POST /emulator/v1/users HTTP/1.1\r\n\(Self.host)Transfer-Encoding: chunked\r\n\r\n"
                + String(repeating: "3e8\r\n\(chunk)\r\n", count: 3) + "0\r\n\r\n", finish: false)
        #expect(chunked.responses.map(\.status) == [413])
        try await served.expectServing()
        await served.server.stop()
    }

    @Test("fuzzed request lines and headers (seeded): every answer is a status or a close, and serving goes on")
    func fuzzedRequests() async throws {
        let served = try ServedTenant()
        var generator = SplitMix64(seed: 0x5EED_0F_F022)
        var statuses: [Int: Int] = [:]
        for index in 0..<300 {
            let bytes = Self.fuzzedRequest(using: &generator)
            let outcome = try await RawHTTP.exchange(port: served.port, bytes)
            #expect(
                outcome.closedByServer,
                "case \(index) was not closed: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            // A HEAD answer announces a body it does not carry; the raw reader cannot frame it.
            if !bytes.starts(with: Array("HEAD ".utf8)) {
                #expect(outcome.leftover.isEmpty, "case \(index) left a partial answer")
            }
            for response in outcome.responses {
                #expect((200...599).contains(response.status), "case \(index): status \(response.status)")
                statuses[response.status, default: 0] += 1
            }
        }
        // The generator reaches both the happy path and the refusals.
        #expect(statuses[200, default: 0] > 0)
        #expect(statuses[400, default: 0] > 0)
        #expect(statuses.keys.contains { $0 != 200 && $0 != 400 })
        try await served.expectServing()
        await served.server.stop()
    }

    @Test("a client trickling its request is answered 408 and closed after the request timeout")
    func tricklingClient() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.requestTimeout = .milliseconds(300)
        let served = try ServedTenant(configuration: configuration)
        let port = served.port
        let request = Array(
            ("POST /emulator/v1/users HTTP/1.1\r\n\(Self.host)Content-Length: 100\r\n\r\n"
                + String(repeating: "x", count: 100)).utf8)
        let (sent, outcome) = try await RawHTTP.onThread { () -> (Int, RawOutcome) in
            let connection = try RawConnection(port: port)
            var sent = 0
            // One byte every 50 ms: the whole request would take over 9 s.
            while sent < request.count, !connection.isReadable(within: 50) {
                guard connection.send([request[sent]]) else { break }
                sent += 1
            }
            return (sent, connection.readToEnd())
        }
        #expect(sent < request.count)
        #expect(outcome.responses.map(\.status) == [408])
        #expect(outcome.closedByServer)
        try await served.expectServing()
        await served.server.stop()
    }

    @Test("an idle connection is closed silently after the request timeout")
    func idleConnectionTimesOut() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.requestTimeout = .milliseconds(200)
        let served = try ServedTenant(configuration: configuration)
        let outcome = try await RawHTTP.exchange(port: served.port, [], finish: false)
        #expect(outcome.closedByServer)
        #expect(outcome.responses.isEmpty)
        await served.server.stop()
    }

    @Test("2,000 idle connections do not keep the server from serving others")
    func manyIdleConnections() async throws {
        // Both ends of every connection are in this process.
        try #require(raiseOpenFileLimit(to: 2 * 2_000 + 1_024), "the open-file limit cannot be raised to 5024")
        var configuration = EmulatorServer.Configuration()
        configuration.maxConnections = 2_100
        // The idle connections must hold their slots for the whole test, however loaded the machine.
        configuration.requestTimeout = .seconds(600)
        let served = try ServedTenant(configuration: configuration)
        #expect(served.server.maxConnections == 2_100)
        let idle = try await RawHTTP.openIdle(port: served.port, count: 2_000)
        defer { RawHTTP.closeAll(idle) }
        // Connections are accepted in order: once a later one is answered, the idle ones are in.
        for _ in 0..<5 { try await served.expectServing() }
        #expect(served.server.connectionCounts.open >= 2_000)
        #expect(served.server.connectionCounts.accepted >= 2_001)
        let client = try served.client()
        guard
            case .completed = try await client.signIn(
                SignInParameters(username: Fixture.ada, password: Fixture.adaPassword))
        else { throw RawFailure("expected a completed sign-in next to 2,000 idle connections") }
        #expect(served.server.connectionCounts.open >= 2_000)
        await served.server.stop()
    }

    @Test("among 1,000 idle connections, each is closed when its own request timeout passes")
    func manyIdleConnectionsTimeOut() async throws {
        try #require(raiseOpenFileLimit(to: 2 * 1_000 + 1_024), "the open-file limit cannot be raised to 3024")
        var configuration = EmulatorServer.Configuration()
        configuration.maxConnections = 1_100
        configuration.requestTimeout = .milliseconds(300)
        let served = try ServedTenant(configuration: configuration)
        let idle = try await RawHTTP.openIdle(port: served.port, count: 1_000)
        defer { RawHTTP.closeAll(idle) }
        // Each read returns when the server closes the connection (or fails at the socket's bound).
        let closed = try await RawHTTP.onThread { () -> Int in
            var closed = 0
            for descriptor in idle {
                var byte: UInt8 = 0
                if recv(descriptor, &byte, 1, 0) == 0 { closed += 1 }
            }
            return closed
        }
        #expect(closed == 1_000)
        try await served.expectServing()
        #expect(served.server.connectionCounts.open <= 1)
        await served.server.stop()
    }

    @Test("connections beyond the cap are closed as soon as they are accepted; freed slots serve again")
    func connectionCap() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.maxConnections = 4
        // The idle connections must hold their slots for the whole test, however loaded the machine.
        configuration.requestTimeout = .seconds(600)
        let served = try ServedTenant(configuration: configuration)
        #expect(served.server.maxConnections == 4)
        let port = served.port
        let idle = try await RawHTTP.openIdle(port: port, count: 4)
        let refused = try await RawHTTP.exchange(
            port: port, "GET /emulator/v1/info HTTP/1.1\r\n\(Self.host)\r\n", finish: false)
        #expect(refused.responses.isEmpty)
        #expect(refused.closedByServer)
        RawHTTP.closeAll(idle)
        // The server notices the closed connections on its own time: try until a slot is free.
        var served200 = false
        for _ in 0..<100 where !served200 {
            let outcome = try await RawHTTP.exchange(port: port, "GET /emulator/v1/info HTTP/1.1\r\n\(Self.host)\r\n")
            served200 = outcome.responses.first?.status == 200
        }
        #expect(served200)
        await served.server.stop()
    }

    @Test("stop() closes idle connections, finishes the request being answered, then closes the port")
    func stopDrains() async throws {
        var configuration = EmulatorServer.Configuration()
        // Only stopping may close the idle connection, and the answer must be written whenever the
        // clock is moved, however loaded the machine.
        configuration.requestTimeout = .seconds(600)
        configuration.drainTimeout = .seconds(600)
        let served = try ServedTenant(configuration: configuration) { $0.latency = 5 }  // parks until moved
        let port = served.port
        let clock = served.harness.clock
        let form = "client_id=\(served.tenant.clientId)&username=ada%40contoso.com&challenge_type=oob%20redirect"
        let idle = try await RawHTTP.openIdle(port: port, count: 1)
        defer { RawHTTP.closeAll(idle) }
        let inFlight = Task {
            try await RawHTTP.onThread { () -> RawResponse? in
                let connection = try RawConnection(port: port)
                connection.send(
                    "POST /contoso.onmicrosoft.com/oauth2/v2.0/initiate HTTP/1.1\r\n\(Self.host)"
                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form)"
                )
                return try connection.readResponse()
            }
        }
        guard await waitUntil("the request to park in the tenant's latency", { clock.sleepers == 1 }) else { return }
        let stopping = Task { await served.server.stop() }
        // Draining began when the idle connection is closed.
        let idleEnd = try await RawHTTP.onThread { () -> Int in
            var byte: UInt8 = 0
            return recv(idle[0], &byte, 1, 0)
        }
        #expect(idleEnd <= 0)
        clock.advance(by: 5)
        let answer = try await inFlight.value
        #expect(answer?.status == 200)
        #expect(answer?.header("Connection") == "close")
        await stopping.value
        #expect(throws: RawFailure.self) { try RawConnection(port: port) }
    }

    // MARK: Fuzz cases

    /// One request from mostly plausible, sometimes broken parts: methods, targets, versions,
    /// separators, line ends, headers, framing and bodies.
    static func fuzzedRequest(using generator: inout SplitMix64) -> [UInt8] {
        func pick<T>(_ options: [T]) -> T { options[Int(generator.next() % UInt64(options.count))] }
        func chance(_ percent: UInt64) -> Bool { generator.next() % 100 < percent }
        func randomBytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        }

        /// Mostly one of `good`, sometimes (`percent`) one of `bad`.
        func pick<T>(_ good: [T], else bad: [T], _ percent: UInt64) -> T { chance(percent) ? pick(bad) : pick(good) }

        let method = pick(["GET", "POST", "PUT", "DELETE", "HEAD"], else: ["get", "G@T", "", "PATCH", "OPTIONS"], 15)
        let target = pick(
            [
                "/emulator/v1/info", "/emulator/v1/users", "/contoso.onmicrosoft.com/oauth2/v2.0/initiate",
                "/contoso.onmicrosoft.com/emulator/me", "/emulator/v1/codes?to=a%40b", "/",
            ],
            else: ["*", "http://127.0.0.1/x", "/%zz", "/a b", "/\u{7F}", "/emulator/v1/users/%E2%9C%93", ""], 15)
        let version = pick(["HTTP/1.1", "HTTP/1.0"], else: ["HTTP/2.0", "http/1.1", "HTTP/1.12", "HTTP/1", ""], 10)
        let separator = chance(95) ? " " : pick(["  ", "\t", ""])
        let lineEnd = chance(95) ? "\r\n" : pick(["\n", "\r", "\r\r\n"])
        var bytes = Array("\(method)\(separator)\(target)\(separator)\(version)\(lineEnd)".utf8)
        if chance(3) { bytes = randomBytes(Int(generator.next() % 64)) + Array(lineEnd.utf8) }

        var body: [UInt8] = []
        if chance(40) { body = Array(#"{"username":"fuzz@contoso.com"}"#.utf8) }
        if chance(8) { body = randomBytes(Int(generator.next() % 48)) }
        var headers: [String] = chance(95) ? ["Host: 127.0.0.1"] : []
        for _ in 0..<(generator.next() % 5) {
            headers.append(
                pick(
                    [
                        "Content-Length: \(body.count)", "Transfer-Encoding: chunked", "Connection: close",
                        "Connection: keep-alive", "Expect: 100-continue", "X-Unicode: café",
                        "Content-Type: application/x-www-form-urlencoded",
                        "X-Long: " + String(repeating: "l", count: 200),
                    ],
                    else: [
                        "Host: 127.0.0.1", "Host:", "Content-Length: -1", "Content-Length: \(body.count + 3)",
                        "Content-Length: 99999999999999999999", "Content-Length: 1, 2", "Transfer-Encoding: gzip",
                        " folded: x", "Bad Header: x", "X-Nul: a\u{0}b", ": empty",
                    ], 25))
        }
        if chance(50), !headers.contains(where: { $0.hasPrefix("Content-Length") || $0.hasPrefix("Transfer") }) {
            headers.append("Content-Length: \(body.count)")
        }
        for header in headers { bytes += Array(header.utf8) + Array(lineEnd.utf8) }
        if chance(3) { bytes += randomBytes(Int(generator.next() % 32)) + Array(lineEnd.utf8) }
        bytes += Array(lineEnd.utf8)
        if headers.contains("Transfer-Encoding: chunked"), chance(60) {
            bytes += Array((String(body.count, radix: 16) + "\r\n").utf8) + body + Array("\r\n0\r\n\r\n".utf8)
        } else {
            bytes += body
        }
        return bytes
    }
}
