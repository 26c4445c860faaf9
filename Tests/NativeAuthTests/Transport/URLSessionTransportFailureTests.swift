import Foundation
import LoopbackHTTP
import NativeAuth
import NativeAuthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// When no whole response arrives, the transport throws the `URLError` as Foundation reported it.
@Suite("URLSessionTransport: failed exchanges", .hangLimit)
struct URLSessionTransportFailureTests {
    @Test("a server that closes without answering makes send throw a URLError")
    func closedWithoutAnswer() async throws {
        let server = try ScriptedHTTPServer { _ in .closeWithoutAnswer }
        defer { server.stop() }

        await #expect(throws: URLError.self) {
            try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
                HTTPRequest(method: "POST", url: server.url("/token")))
        }
        #expect(!server.requests.isEmpty)
    }

    @Test("a connection reset makes send throw a URLError")
    func connectionReset() async throws {
        let peer = try ResettingPeer()
        defer { peer.stop() }

        await #expect(throws: URLError.self) {
            try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
                HTTPRequest(method: "GET", url: peer.url("/")))
        }
    }

    @Test("a body cut short of its Content-Length makes send throw a URLError")
    func truncatedBody() async throws {
        let server = try ScriptedHTTPServer { _ in
            .truncatedBody(status: 200, declaredLength: 1000, body: Data(#"{"access_token":"#.utf8))
        }
        defer { server.stop() }

        await #expect(throws: URLError.self) {
            try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
                HTTPRequest(method: "GET", url: server.url("/token")))
        }
    }

    @Test("a port nobody listens on makes send throw URLError(.cannotConnectToHost)")
    func connectionRefused() async throws {
        // A port that was bound, then closed before it ever listened.
        let bound = try LoopbackHTTPServer()
        let url = try #require(URL(string: "http://127.0.0.1:\(bound.port)/gone"))
        bound.stop()

        let error = await #expect(throws: URLError.self) {
            try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
                HTTPRequest(method: "GET", url: url))
        }
        #expect(error?.code == .cannotConnectToHost)
    }

    @Test("a server that never answers makes send throw URLError(.timedOut), not before the timeout")
    func timeout() async throws {
        let gate = ReplyGate()
        let server = try ScriptedHTTPServer { _ in .hold(gate, then: .text(200, "too late")) }
        defer { server.stop() }
        let transport = URLSessionTransport(timeout: 1)

        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            try await transport.send(HTTPRequest(method: "GET", url: server.url("/slow")))
        }
        let elapsed = clock.now - start

        #expect(error?.code == .timedOut)
        // Only a lower bound: how long after the timeout it ends depends on the machine's load
        // (20 s was seen under ThreadSanitizer); the suite's time limit bounds it.
        #expect(elapsed >= .milliseconds(900))
        gate.open()
    }

    @Test("an answer that is not an HTTP response makes send throw URLError(.badServerResponse)")
    func notHTTP() async throws {
        let url = try #require(URL(string: "data:text/plain;charset=utf-8,not%20http"))

        let error = await #expect(throws: URLError.self) {
            try await URLSessionTransport(timeout: TestBounds.requestDeadline).send(
                HTTPRequest(method: "GET", url: url))
        }
        #expect(error?.code == .badServerResponse)
    }
}
