public import Foundation
public import NativeAuth
public import Testing

/// A presence checker that answers from a script, counts its calls and, when closed, holds each
/// call at a gate until the test opens it: a person who takes their time.
///
/// A held call ends when its task is cancelled (counted in `cancellations`), unless the checker
/// `ignoresCancellation`, like a prompt that never hears of it; either way a call held for
/// `TestBounds.wait` without the gate opening records an issue and ends, so a test never hangs.
/// With the script empty, a call confirms with no biometry state.
public final class ScriptedPresenceChecker: UserPresenceChecker {
    public enum Answer: Sendable {
        case confirmed(biometryState: Data? = nil)
        case refused(UserPresenceError)
    }

    private struct State: Sendable {
        var script: [Answer]
        var calls = 0
        var reasons: [String] = []
        var closed = false
        var held: [Latch<Void>] = []
        var cancellations = 0
    }

    private let state: LockedValue<State>
    private let ignoresCancellation: Bool

    public init(_ script: [Answer] = [], ignoresCancellation: Bool = false) {
        state = LockedValue(State(script: script))
        self.ignoresCancellation = ignoresCancellation
    }

    /// Adds an answer to the script.
    public func then(_ answer: Answer) { state.withLock { $0.script.append(answer) } }

    /// How many times the SDK asked.
    public var calls: Int { state.current.calls }
    /// The reasons the SDK passed, in order.
    public var reasons: [String] { state.current.reasons }
    /// Held calls that ended because their task was cancelled.
    public var cancellations: Int { state.current.cancellations }
    /// Calls held at the gate now (a call that ended leaves it).
    public var heldCount: Int { state.current.held.count }

    /// Later calls wait at the gate.
    public func close() { state.withLock { $0.closed = true } }

    /// Opens the gate: held calls take their answer, later ones answer at once.
    public func open() {
        let held = state.withLock { state in
            state.closed = false
            defer { state.held = [] }
            return state.held
        }
        held.forEach { $0.fulfill(()) }
    }

    /// Waits (by yielding) until `count` calls are held at the gate.
    public func waitUntilHeld(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        await waitUntil("\(count) confirmation(s) held (\(heldCount) so far)", sourceLocation: sourceLocation) {
            heldCount >= count
        }
    }

    public func confirmPresence(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation {
        let gate: Latch<Void>? = state.withLock { state in
            state.calls += 1
            state.reasons.append(reason)
            guard state.closed else { return nil }
            let latch = Latch<Void>()
            state.held.append(latch)
            return latch
        }
        if let gate {
            let outcome: BoundedWaitOutcome<Void>
            if ignoresCancellation {
                // An unstructured task: the caller's cancellation does not reach it.
                outcome = await Task { await gate.outcome() }.value
            } else {
                outcome = await gate.outcome()
            }
            state.withLock { $0.held.removeAll { $0 === gate } }
            switch outcome {
            case .value: break
            case .cancelled:
                state.withLock { $0.cancellations += 1 }
                throw .cancelled
            case .timedOut:
                Issue.record("a confirmation was held at a gate nobody opened")
                throw .cancelled
            }
        }
        let answer: Answer = state.withLock { state in
            state.script.isEmpty ? .confirmed() : state.script.removeFirst()
        }
        switch answer {
        case .confirmed(let biometryState): return UserPresenceConfirmation(biometryState: biometryState)
        case .refused(let error): throw error
        }
    }
}
