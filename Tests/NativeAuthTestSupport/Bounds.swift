import AuthSupport
public import Foundation
public import Testing

/// How long a test waits for something before it gives up: a bound that only a hang reaches.
///
/// Every step a test waits for here is in-process (an emulated tenant, a loopback server), so it
/// takes milliseconds alone. On a loaded machine it can take minutes: `swift test` starts every
/// test at once, and on two cores a step's continuation queues behind a thousand others on the
/// concurrency pool's two threads (with the machine busy building something else, a step was seen
/// to wait over 30 s; under ThreadSanitizer, over two minutes). So a wait is for the event it needs
/// (a continuation resumed by the code under test, a gate, a recorder's count), and the wall-clock
/// bound around it is many times what a loaded machine needs: it turns a hang into a named failure
/// instead of a stuck run. A broken behaviour fails at once on what came instead of the awaited
/// event, not at this bound.
public enum TestBounds: Sendable {
    public static let wait: Duration = .seconds(600)

    /// The request deadline, in seconds, of a client whose server answers in process or on the
    /// loopback interface (the SDK's own deadline and URLSession's timeout): the most the SDK
    /// accepts. Such a server answers in milliseconds; on a loaded machine the answer can wait
    /// minutes for a thread, and a test about something else must not end as a network timeout.
    /// Tests about deadlines put their own, with a virtual clock or a server that never answers.
    public static let requestDeadline: TimeInterval = 600

    /// The bound as text for issue messages.
    public static func text(_ limit: Duration) -> String { "\(limit.components.seconds) s" }
}

extension Trait where Self == TimeLimitTrait {
    /// The time limit of every suite: longer than a whole loaded run, so that only a hang reaches
    /// it (a test's own waits give up first, at ``TestBounds/wait``, naming what they waited for).
    /// A time limit counts from the test's start, and a test started with a thousand others on a
    /// busy two-core machine may wait minutes for its turn before it does anything.
    public static var hangLimit: Self { .timeLimit(.minutes(20)) }
}

/// A test's own failure: thrown where the test cannot go on, with what it found instead.
public struct TestFailure: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// How a bounded wait ended.
public enum BoundedWaitOutcome<Value: Sendable>: Sendable {
    case value(Value)
    case timedOut
    case cancelled

    /// The value, when the wait got one.
    public var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    /// Why the wait ended without a value, for messages.
    public func reason(_ limit: Duration) -> String {
        switch self {
        case .value: "got a value"
        case .timedOut: "gave up after \(TestBounds.text(limit))"
        case .cancelled: "cancelled"
        }
    }
}

/// A value delivered once, which tasks wait for with a wall-clock bound.
///
/// The first `fulfill` wins; a wait that starts later gets the value at once. A wait ends with
/// the value, after its limit (`timedOut`), or when its task is cancelled (`cancelled`).
public final class Latch<Value: Sendable>: @unchecked Sendable {
    // Safe: `value`, `waiters` and `nextID` are read and written only while `lock` is held.
    private let lock = NSLock()
    private var value: Value?
    private var waiters: [Int: Slot] = [:]
    private var nextID = 0

    private enum Slot {
        case waiting(HandedContinuation<BoundedWaitOutcome<Value>>)
        /// Ended (timed out or cancelled) before its continuation was registered.
        case ended(BoundedWaitOutcome<Value>)
    }

    public init() {}

    public var isFulfilled: Bool { lock.withLock { value != nil } }

    /// Delivers `value` to every waiter, now and later; `false` when a value came before.
    @discardableResult
    public func fulfill(_ value: Value) -> Bool {
        let waiting: [HandedContinuation<BoundedWaitOutcome<Value>>]? = lock.withLock {
            guard self.value == nil else { return nil }
            self.value = value
            defer { waiters = [:] }
            return waiters.values.compactMap { slot in
                if case .waiting(let continuation) = slot { return continuation }
                return nil
            }
        }
        guard let waiting else { return false }
        waiting.forEach { $0.resume(returning: .value(value)) }
        return true
    }

    /// Waits for the value for at most `limit`; records no issue.
    public func outcome(within limit: Duration = TestBounds.wait) async -> BoundedWaitOutcome<Value> {
        let id: Int = lock.withLock {
            nextID += 1
            return nextID
        }
        let timer = Task { [self] in
            do { try await Task.sleep(for: limit) } catch { return }
            end(id, .timedOut)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withHandedContinuation(of: BoundedWaitOutcome<Value>.self) { continuation in
                let now: BoundedWaitOutcome<Value>? = lock.withLock {
                    if let value { return .value(value) }
                    if case .ended(let outcome) = waiters[id] {
                        waiters[id] = nil
                        return outcome
                    }
                    waiters[id] = .waiting(continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            end(id, .cancelled)
        }
    }

    /// The value, or `nil` after recording an issue that names `what` when the wait timed out or
    /// its task was cancelled.
    public func wait(
        for what: String, within limit: Duration = TestBounds.wait,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> Value? {
        let outcome = await outcome(within: limit)
        if outcome.value == nil {
            Issue.record("\(outcome.reason(limit)) waiting for \(what)", sourceLocation: sourceLocation)
        }
        return outcome.value
    }

    /// The value; after the limit (or a cancellation) records an issue naming `what` and throws,
    /// which ends the test.
    public func require(
        _ what: String, within limit: Duration = TestBounds.wait,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Value {
        let outcome = await outcome(within: limit)
        return try #require(
            outcome.value, "\(outcome.reason(limit)) waiting for \(what)", sourceLocation: sourceLocation)
    }

    private func end(_ id: Int, _ outcome: BoundedWaitOutcome<Value>) {
        let continuation: HandedContinuation<BoundedWaitOutcome<Value>>? = lock.withLock {
            guard value == nil else { return nil }
            switch waiters[id] {
            case .waiting(let continuation):
                waiters[id] = nil
                return continuation
            case .ended:
                return nil
            case nil:
                waiters[id] = .ended(outcome)
                return nil
            }
        }
        continuation?.resume(returning: outcome)
    }
}

/// The pause between two checks of a polled condition: the first checks only yield; then a
/// pause from 1 ms, doubling up to 16 ms. A poll that only yields puts itself back on the
/// concurrency pool's queue at once: a few dozen tests polling side by side on a two-core machine
/// kept the pool's two threads busy checking, and the work they waited for queued behind them. A
/// pause is a pace for checking, not a stand-in for the work: the condition is checked again after
/// it, and the bound around the wait is still `TestBounds.wait`. On the main actor (where delegates
/// are called) a poll always pauses: one that only yields kept the main actor busy, and under
/// ThreadSanitizer the callback it waited for never got its turn.
private func pauseBeforeCheck(_ check: Int, onMainActor: Bool) async {
    if check < 8, !onMainActor {
        await Task.yield()
    } else {
        let shift = min(max(check - 8, 0), 4)
        try? await Task.sleep(for: .milliseconds(1 << shift))
    }
}

private func isMainActor(_ isolation: (any Actor)?) -> Bool {
    isolation.map { ($0 as AnyObject) === MainActor.shared } ?? false
}

/// Checks `condition` until it holds (paced by `pauseBeforeCheck`); after `limit` (or when the task
/// is cancelled) records an issue naming `what` and returns `false`. A bound on a wait for work,
/// never a sleep that stands in for it. Prefer a wait woken by the event itself (a `Latch`, a
/// recorder's count) where the code under test can signal one.
@discardableResult
public func waitUntil(
    _ what: String, within limit: Duration = TestBounds.wait, isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + limit
    let onMainActor = isMainActor(isolation)
    var check = 0
    while !condition() {
        if Task.isCancelled {
            Issue.record("cancelled while waiting for \(what)", sourceLocation: sourceLocation)
            return false
        }
        if ContinuousClock.now >= deadline {
            Issue.record("gave up after \(TestBounds.text(limit)) waiting for \(what)", sourceLocation: sourceLocation)
            return false
        }
        await pauseBeforeCheck(check, onMainActor: onMainActor)
        check += 1
    }
    return true
}

/// Like `waitUntil`, but throws once the issue is recorded, which ends the test.
public func requireUntil(
    _ what: String, within limit: Duration = TestBounds.wait, isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    let onMainActor = isMainActor(isolation)
    var check = 0
    while !condition() {
        if Task.isCancelled || ContinuousClock.now >= deadline {
            let reason = Task.isCancelled ? "cancelled" : "gave up after \(TestBounds.text(limit))"
            try #require(condition(), "\(reason) waiting for \(what)", sourceLocation: sourceLocation)
            return
        }
        await pauseBeforeCheck(check, onMainActor: onMainActor)
        check += 1
    }
}

/// Runs `attempt` until it answers `true` (paced like `waitUntil`); after `limit` (or when the task
/// is cancelled) records an issue naming `what` and throws, which ends the test.
public func requireEventually(
    _ what: String, within limit: Duration = TestBounds.wait, isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ attempt: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    let onMainActor = isMainActor(isolation)
    var check = 0
    while try await !attempt() {
        if Task.isCancelled || ContinuousClock.now >= deadline {
            let reason = Task.isCancelled ? "cancelled" : "gave up after \(TestBounds.text(limit))"
            Issue.record("\(reason) waiting for \(what)", sourceLocation: sourceLocation)
            throw TestFailure("\(reason) waiting for \(what)")
        }
        await pauseBeforeCheck(check, onMainActor: onMainActor)
        check += 1
    }
}
