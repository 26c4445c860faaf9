import Foundation
public import NativeAuth
public import Testing

/// A transport that holds every request at a gate until the test opens it (when `isClosed`).
///
/// A request held for `TestBounds.wait` without the gate opening records an issue and fails
/// with `GateNeverOpened`, so a test that never opens the gate ends instead of hanging.
public final class GatedTransport: HTTPTransport, Sendable {
    public let inner: any HTTPTransport
    private let state = LockedValue<(closed: Bool, held: [Latch<Void>], arrived: Int, watchers: [(Int, Latch<Void>)])>(
        (false, [], 0, []))

    public struct GateNeverOpened: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "the request to \(path) was held at a gate nobody opened" }
    }

    public init(_ inner: any HTTPTransport) { self.inner = inner }

    public func close() { state.withLock { $0.closed = true } }

    /// Opens the gate: held requests go on, later ones pass.
    public func open() {
        let held = state.withLock { state in
            state.closed = false
            defer { state.held = [] }
            return state.held
        }
        held.forEach { $0.fulfill(()) }
    }

    public var heldCount: Int { state.current.held.count }

    /// Waits until `count` requests are held at the gate, woken by the request that makes the
    /// count; gives up with an issue after `TestBounds.wait`.
    public func waitUntilHeld(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        let reached = Latch<Void>()
        let now = state.withLock { state in
            if state.held.count < count { state.watchers.append((count, reached)) }
            return state.held.count
        }
        if now >= count { return }
        if await reached.outcome().value == nil {
            let bound = TestBounds.text(TestBounds.wait)
            Issue.record(
                "gave up after \(bound) waiting for \(count) request(s) held at the gate (\(heldCount) held)",
                sourceLocation: sourceLocation)
        }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let latch = Latch<Void>()
        let (held, reached) = state.withLock { state -> (Bool, [Latch<Void>]) in
            state.arrived += 1
            guard state.closed else { return (false, []) }
            state.held.append(latch)
            let count = state.held.count
            let reached = state.watchers.filter { $0.0 <= count }.map(\.1)
            state.watchers.removeAll { $0.0 <= count }
            return (true, reached)
        }
        reached.forEach { $0.fulfill(()) }
        // A held request waits for `open()` however its task is cancelled, as a real request on
        // the wire would; only the bound ends the wait early.
        if held {
            let outcome = await Task(operation: { await latch.outcome() }).value
            if outcome.value == nil {
                state.withLock { $0.held.removeAll { $0 === latch } }
                Issue.record(
                    "gave up after \(TestBounds.text(TestBounds.wait)) waiting for the gate to open for \(request.url.path)"
                )
                throw GateNeverOpened(path: request.url.path)
            }
        }
        return try await inner.send(request)
    }
}
