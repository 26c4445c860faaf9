package import Foundation
package import LoopbackHTTP
import NativeAuth
package import Testing

/// An HTTP server on 127.0.0.1 that answers from a script, for the tests of real HTTP clients
/// (`URLSessionTransport`): the SDK's own ``LoopbackHTTPServer``, keeping connections alive as
/// servers do, with every request it received kept in order.
///
/// A reply can be held behind a ``ReplyGate`` until the test opens it: a slow server, or one that
/// never answers. `stop()` opens every gate and ends serving.
package final class ScriptedHTTPServer: Sendable {
    package typealias Script = @Sendable (LoopbackHTTPRequest) -> ScriptedReply

    private struct State {
        var requests: [LoopbackHTTPRequest] = []
        var waiters: [(count: Int, latch: Latch<[LoopbackHTTPRequest]>)] = []
        var gates: [ReplyGate] = []
        var isStopped = false
    }

    /// The port the server listens on, on 127.0.0.1.
    package let port: UInt16
    private let server: LoopbackHTTPServer
    private let state = LockedValue(State())

    /// Starts a server that answers every request as `script` says.
    package init(script: @escaping Script) throws {
        server = try LoopbackHTTPServer()
        port = server.port
        var options = LoopbackHTTPServeOptions()
        options.keepAlive = true
        options.maxConnections = 64
        options.limits = LoopbackHTTPLimits(maxBodyBytes: 4 << 20)
        server.start(options: options) { [state] request in
            let ready: ([Latch<[LoopbackHTTPRequest]>], [LoopbackHTTPRequest]) = state.withLock { state in
                state.requests.append(request)
                let count = state.requests.count
                let ready = state.waiters.filter { $0.count <= count }.map(\.latch)
                state.waiters.removeAll { $0.count <= count }
                return (ready, state.requests)
            }
            ready.0.forEach { $0.fulfill(ready.1) }
            // A reply is written by the serving thread at once; only a held one waits in a task.
            let scripted = script(request)
            if case .reply(let reply) = scripted { return .reply(reply) }
            return .awaiting { await ScriptedHTTPServer.perform(scripted, state: state) }
        } completion: { _ in
        }
    }

    deinit {
        stop()
    }

    /// The URL of `path` (with any query) on this server.
    package func url(_ path: String) -> URL {
        // A malformed path gives a file URL, which makes the request, and so the test, fail.
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Every request received so far, in order of arrival.
    package var requests: [LoopbackHTTPRequest] { state.current.requests }

    /// Returns once at least `count` requests have arrived (or the server stopped), with all so far;
    /// after `TestBounds.wait` without them, records an issue and returns those that came.
    @discardableResult
    package func waitForRequests(count: Int, sourceLocation: SourceLocation = #_sourceLocation) async
        -> [LoopbackHTTPRequest]
    {
        let latch = Latch<[LoopbackHTTPRequest]>()
        let ready: [LoopbackHTTPRequest]? = state.withLock { state in
            if state.requests.count >= count || state.isStopped { return state.requests }
            state.waiters.append((count, latch))
            return nil
        }
        if let ready { return ready }
        return await latch.wait(for: "\(count) request(s) to reach the server", sourceLocation: sourceLocation)
            ?? requests
    }

    /// Opens every gate, ends serving (the requests being answered finish first) and closes the port.
    package func stop() {
        let leftovers: (gates: [ReplyGate], waiters: [Latch<[LoopbackHTTPRequest]>], requests: [LoopbackHTTPRequest])? =
            state.withLock { state in
                guard !state.isStopped else { return nil }
                state.isStopped = true
                defer { state.waiters = [] }
                return (state.gates, state.waiters.map(\.latch), state.requests)
            }
        guard let leftovers else { return }
        leftovers.gates.forEach { $0.open() }
        leftovers.waiters.forEach { $0.fulfill(leftovers.requests) }
        server.stop()
    }

    private static func perform(_ reply: ScriptedReply, state: LockedValue<State>) async -> LoopbackHTTPReply {
        switch reply {
        case .reply(let reply):
            return reply
        case .hold(let gate, let then):
            let stopped = state.withLock { state in
                state.gates.append(gate)
                return state.isStopped
            }
            if !stopped { await gate.passage() }
            guard !state.current.isStopped else { return .drop }
            return await perform(then, state: state)
        }
    }
}

/// What a ``ScriptedHTTPServer`` does with one request.
package indirect enum ScriptedReply: Sendable {
    /// What the SDK's server does: answer, close without an answer, or write part of an answer.
    case reply(LoopbackHTTPReply)
    /// Waits until `gate` is open, then does `then`. Stopping the server opens every gate.
    case hold(ReplyGate, then: ScriptedReply)

    /// A response with `headers` (in order) and `body`. `Content-Length` is added, unless the
    /// status has no body (1xx, 204, 304).
    package static func respond(status: Int, headers: [(String, String)] = [], body: Data) -> ScriptedReply {
        .reply(
            .respond(
                LoopbackHTTPResponse(
                    status: status, headers: headers.map { LoopbackHTTPHeader($0.0, $0.1) }, body: Array(body))))
    }

    /// A response with a text body.
    package static func text(_ status: Int, _ body: String, headers: [(String, String)] = []) -> ScriptedReply {
        respond(status: status, headers: headers, body: Data(body.utf8))
    }

    /// Closes the connection without a byte of answer.
    package static let closeWithoutAnswer = ScriptedReply.reply(.drop)

    /// Sends a head declaring `declaredLength` bytes of body, then only `body`, then closes.
    package static func truncatedBody(status: Int, declaredLength: Int, body: Data) -> ScriptedReply {
        let whole = Array(body) + [UInt8](repeating: 0x20, count: max(0, declaredLength - body.count))
        return .reply(
            LoopbackHTTPReply(
                response: LoopbackHTTPResponse(status: status, body: whole), closesConnection: true,
                bodyBytesWritten: body.count))
    }
}

/// A gate a held reply waits behind until the test opens it (or the server stops).
package final class ReplyGate: Sendable {
    private let latch = Latch<Void>()

    package init() {}

    /// Lets every waiter through, now and later.
    package func open() { latch.fulfill(()) }

    /// Waits until the gate is open, or for twice `TestBounds.wait` at most: a test that never
    /// opens its gate then gets the held answer late (and fails on it) instead of waiting for it
    /// forever.
    func passage() async {
        _ = await latch.outcome(within: TestBounds.wait * 2)
    }
}
