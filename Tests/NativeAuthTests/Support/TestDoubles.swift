import Foundation

@testable import NativeAuth

/// A transport that holds every request at a gate until the test opens it (when `isClosed`).
final class GatedTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let state = Locked<(closed: Bool, held: [CheckedContinuation<Void, Never>], arrived: Int)>(
        (false, [], 0))

    init(_ inner: any HTTPTransport) { self.inner = inner }

    func close() { state.withLock { $0.closed = true } }

    /// Opens the gate: held requests go on, later ones pass.
    func open() {
        let held = state.withLock { state in
            state.closed = false
            defer { state.held = [] }
            return state.held
        }
        held.forEach { $0.resume() }
    }

    var heldCount: Int { state.current.held.count }

    /// Waits (by yielding, not sleeping) until `count` requests are held at the gate.
    func waitUntilHeld(_ count: Int) async {
        while heldCount < count { await Task.yield() }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passNow = state.withLock { state -> Bool in
                state.arrived += 1
                if state.closed {
                    state.held.append(continuation)
                    return false
                }
                return true
            }
            if passNow { continuation.resume() }
        }
        return try await inner.send(request)
    }
}

/// A clock the test sets by hand.
final class TestClock: NativeAuthClock, Sendable {
    private let current: Locked<Date>

    init(_ now: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Locked(now) }

    func now() -> Date { current.current }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    func sleep(seconds: Double) async throws { try Task.checkCancellation() }
}
