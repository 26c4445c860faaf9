import Foundation
import LoopbackHTTP
import NativeAuth
import NativeAuthTestSupport
import Testing

/// Cancelling the calling task ends `send` with `CancellationError`, promptly, and leaves the
/// transport usable.
@Suite("URLSessionTransport: cancellation", .hangLimit)
struct URLSessionTransportCancellationTests {
    @Test("cancelling while the server holds the answer throws CancellationError, not a timeout")
    func cancelInFlight() async throws {
        let gate = ReplyGate()
        let server = try ScriptedHTTPServer { request in
            request.path == "/held" ? .hold(gate, then: .text(200, "late")) : .text(200, "after")
        }
        defer { server.stop() }
        // A long timeout: if cancellation did not end the request, the test would see a timeout instead.
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

        let inFlight = Task { try await transport.send(HTTPRequest(method: "POST", url: server.url("/held"))) }
        _ = await server.waitForRequests(count: 1)
        inFlight.cancel()
        let result = await inFlight.result

        // The server still holds the answer (the gate opens only at the end) and the timeout is
        // 40 s: ending with CancellationError at all shows the cancellation ended the call. No
        // wall-clock bound: under ThreadSanitizer on two cores even a prompt end took over 10 s.
        #expect(throws: CancellationError.self) { try result.get() }

        let after = try await transport.send(HTTPRequest(method: "GET", url: server.url("/after")))
        #expect(after.statusCode == 200)
        #expect(String(decoding: after.body, as: UTF8.self) == "after")
        gate.open()
    }

    @Test("a task cancelled before send throws CancellationError and sends nothing")
    func cancelBeforeStart() async throws {
        let server = try ScriptedHTTPServer { _ in .text(200, "ok") }
        defer { server.stop() }
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(method: "GET", url: server.url("/never")))
        }
        let result = await cancelled.result

        #expect(throws: CancellationError.self) { try result.get() }
        let after = try await transport.send(HTTPRequest(method: "GET", url: server.url("/after")))
        #expect(after.statusCode == 200)
        #expect(server.requests.map(\.path) == ["/after"])
    }

    @Test("cancelling many requests in flight leaves the transport usable", arguments: [1, 2, 3])
    func cancelManyInFlight(round: Int) async throws {
        let gate = ReplyGate()
        let server = try ScriptedHTTPServer { request in
            request.path.hasPrefix("/held") ? .hold(gate, then: .text(200, "late")) : .text(200, "after")
        }
        defer { server.stop() }
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

        let tasks = (0..<5).map { index in
            Task { try await transport.send(HTTPRequest(method: "GET", url: server.url("/held/\(round)/\(index)"))) }
        }
        _ = await server.waitForRequests(count: 5)
        tasks.forEach { $0.cancel() }
        for task in tasks {
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
        }

        let after = try await transport.send(HTTPRequest(method: "GET", url: server.url("/after")))
        #expect(after.statusCode == 200)
        gate.open()
    }

    @Test("cancellation racing the answer ends in the answer or CancellationError, never a hang or crash")
    func cancellationRacingTheAnswer() async throws {
        let server = try ScriptedHTTPServer { request in .text(200, request.path) }
        defer { server.stop() }
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

        for round in 0..<60 {
            let inFlight = Task {
                try await transport.send(HTTPRequest(method: "GET", url: server.url("/race/\(round)")))
            }
            for _ in 0..<(round % 6) { await Task.yield() }
            inFlight.cancel()
            switch await inFlight.result {
            case .success(let response):
                #expect(response.statusCode == 200)
                #expect(String(decoding: response.body, as: UTF8.self) == "/race/\(round)")
            case .failure(let error):
                #expect(error is CancellationError, "round \(round): \(error)")
            }
        }

        let after = try await transport.send(HTTPRequest(method: "GET", url: server.url("/after")))
        #expect(after.statusCode == 200)
    }
}
