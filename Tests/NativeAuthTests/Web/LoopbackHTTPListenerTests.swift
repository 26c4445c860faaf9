import Foundation
import NativeAuthTestSupport
import Testing

@testable import LoopbackHTTP
@testable import NativeAuth

@Suite("Loopback HTTP listener", .hangLimit)
struct LoopbackHTTPListenerTests {
    private func serveError(
        _ listener: LoopbackHTTPListener, options: LoopbackHTTPServeOptions = LoopbackHTTPServeOptions()
    ) async -> LoopbackHTTPError? {
        do {
            _ = try await listener.serve(options: options) { _ in LoopbackHTTPAction<Int>.respond(.status(404)) }
            return nil
        } catch {
            return error
        }
    }

    /// Waits until `listener` serves: a client's bounded wait for its answer starts only then,
    /// not while the serving task waits for its turn on a busy concurrency pool.
    private func serving(_ listener: LoopbackHTTPListener) async throws {
        try await requireUntil("the listener to serve") { listener.isServing }
    }

    @Test("binds 127.0.0.1 on a system-chosen port; the same port again is in use")
    func bindAndPortInUse() throws {
        let listener = try LoopbackHTTPListener()
        defer { listener.stop() }
        #expect(listener.port != 0)
        #expect(throws: LoopbackHTTPError.portInUse(listener.port)) { try LoopbackHTTPListener(port: listener.port) }
    }

    @Test("a stopped listener does not serve, and stopping twice is harmless")
    func stopBeforeServe() async throws {
        let listener = try LoopbackHTTPListener()
        listener.stop()
        listener.stop()
        #expect(await serveError(listener) == .notListening)
        let again = try LoopbackHTTPListener(port: listener.port)
        again.stop()
    }

    @Test("the deadline ends serving with timedOut")
    func deadline() async throws {
        let listener = try LoopbackHTTPListener()
        var options = LoopbackHTTPServeOptions()
        options.deadline = .now + .milliseconds(100)
        #expect(await serveError(listener, options: options) == .timedOut)
        #expect(await serveError(listener, options: options) == .notListening)
    }

    @Test("with keep-alive, pipelined requests on one connection are answered in turn")
    func keepAlive() async throws {
        let listener = try LoopbackHTTPListener()
        var options = LoopbackHTTPServeOptions()
        options.keepAlive = true
        async let outcome = listener.serve(options: options) { request in
            request.path == "/last"
                ? LoopbackHTTPAction.finish(.text(200, "bye"), request.path) : .respond(.text(200, "hello"))
        }
        try await serving(listener)
        let port = listener.port
        let text =
            "GET /first HTTP/1.1\r\nHost: h\r\n\r\nHEAD /second HTTP/1.1\r\nHost: h\r\n\r\nGET /last HTTP/1.1\r\nHost: h\r\n\r\n"
        let all = try await RawHTTP.exchange(port: port, text, finish: false).transcript
        #expect(all.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(all.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
        #expect(all.components(separatedBy: "Connection: keep-alive").count == 3)
        #expect(all.hasSuffix("Connection: close\r\n\r\nbye"))
        #expect(all.components(separatedBy: "hello").count == 2)  // the HEAD answer has no body
        #expect(try await outcome == "/last")
    }

    @Test("without keep-alive every answer closes its connection")
    func noKeepAlive() async throws {
        let listener = try LoopbackHTTPListener()
        async let outcome = listener.serve(options: LoopbackHTTPServeOptions()) { request in
            request.path == "/last" ? LoopbackHTTPAction.finish(.status(204), 1) : .respond(.text(200, "hello"))
        }
        try await serving(listener)
        let answer = try await RawHTTP.answer(
            port: listener.port, "GET /first HTTP/1.1\r\nHost: h\r\n\r\nGET /last HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(answer.head.contains("Connection: close"))
        #expect(answer.text == "hello")
        _ = try await RawHTTP.get(port: listener.port, "/last")
        #expect(try await outcome == 1)
    }

    @Test("a connection too slow to send its request gets 408 and is closed; serving goes on")
    func slowConnection() async throws {
        let listener = try LoopbackHTTPListener()
        var options = LoopbackHTTPServeOptions()
        options.readTimeout = .milliseconds(100)
        async let outcome = listener.serve(options: options) { request in
            LoopbackHTTPAction.finish(.status(204), request.path)
        }
        try await serving(listener)
        let partial = try await RawHTTP.answer(port: listener.port, "GET /never HTTP/1.1\r\nHost:")
        #expect(partial.status == 408)
        _ = try await RawHTTP.get(port: listener.port, "/done")
        #expect(try await outcome == "/done")
    }

    @Test("cancelling the serving task stops it promptly and closes the port")
    func cancellation() async throws {
        let listener = try LoopbackHTTPListener()
        let port = listener.port
        let task = Task { await serveError(listener) }
        try await serving(listener)
        _ = try await RawHTTP.get(port: port, "/ping")
        task.cancel()
        #expect(await task.value == .stopped)
        let again = try LoopbackHTTPListener(port: port)
        again.stop()
    }
}
