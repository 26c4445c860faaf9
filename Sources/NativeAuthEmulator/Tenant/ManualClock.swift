import AuthSupport
public import Foundation
public import NativeAuth

/// A clock that moves only when told to, so tests move time instead of sleeping.
///
/// ``sleep(seconds:)`` suspends the calling task until ``advance(by:)`` or ``set(_:)`` moves the
/// clock to or past the sleeper's deadline. ``waitForSleepers(_:)`` waits, without polling, until a
/// task is parked before moving time:
///
/// ```swift
/// let clock = ManualClock()
/// let poller = Task { try await clock.sleep(seconds: 5) }
/// try await clock.waitForSleepers()
/// clock.advance(by: 5)
/// try await poller.value
/// ```
public final class ManualClock: NativeAuthClock, Sendable {
    private enum Sleeper {
        /// Registered, continuation not yet stored.
        case pending(deadline: Date)
        /// Parked until the clock reaches the deadline.
        case waiting(deadline: Date, continuation: CheckedContinuation<Void, any Error>)
        /// Cancelled before the continuation was stored.
        case cancelled
    }

    private enum SleeperWaiter {
        /// Registered, continuation not yet stored.
        case pending(count: Int)
        /// Waiting until `count` tasks are parked.
        case waiting(count: Int, continuation: CheckedContinuation<Void, any Error>)
        /// Cancelled before the continuation was stored.
        case cancelled
    }

    private struct State {
        var now: Date
        var nextSleeperID = 0
        var sleepers: [Int: Sleeper] = [:]
        var nextWaiterID = 0
        var waiters: [Int: SleeperWaiter] = [:]

        /// The tasks parked in `sleep`.
        var parked: Int {
            sleepers.values.filter { sleeper in
                if case .waiting = sleeper { return true }
                return false
            }.count
        }
    }

    private let state: Locked<State>

    /// Creates a clock that reads `now` until it is moved: by default 2027-01-15 08:00:00 UTC
    /// (1,800,000,000 seconds after 1970), the same on every machine, so a test's times are too.
    /// A `WebAuthClient` left on the system clock reads an in-process tenant's time from it
    /// (`ServerClockTransport`); a client over HTTP must be given the clock, or a server that
    /// runs on the system clock.
    public init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Locked(State(now: now))
    }

    /// The clock's current time.
    public func now() -> Date {
        state.withLock { $0.now }
    }

    /// The number of tasks currently suspended in ``sleep(seconds:)``.
    public var sleepers: Int {
        state.withLock { $0.parked }
    }

    /// Suspends the calling task until at least `count` tasks are parked in ``sleep(seconds:)``;
    /// returns at once when they already are. Woken by the sleepers themselves: no polling.
    ///
    /// A task that keeps time moving for code that sleeps on the clock:
    ///
    /// ```swift
    /// let mover = Task {
    ///     while (try? await clock.waitForSleepers()) != nil { clock.advance(by: 1) }
    /// }
    /// defer { mover.cancel() }
    /// ```
    /// - Throws: `CancellationError` when the calling task is cancelled, before or while it waits.
    public func waitForSleepers(_ count: Int = 1) async throws {
        try Task.checkCancellation()
        let id: Int? = state.withLock { state in
            guard state.parked < count else { return nil }
            let id = state.nextWaiterID
            state.nextWaiterID += 1
            state.waiters[id] = .pending(count: count)
            return id
        }
        guard let id else { return }
        defer { state.withLock { _ = $0.waiters.removeValue(forKey: id) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    switch state.waiters[id] {
                    case .pending(let count):
                        if state.parked >= count {
                            state.waiters[id] = nil
                            return .success(())
                        }
                        state.waiters[id] = .waiting(count: count, continuation: continuation)
                        return nil
                    case .cancelled, .waiting, nil:
                        state.waiters[id] = nil
                        return .failure(CancellationError())
                    }
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                switch state.waiters[id] {
                case .waiting(_, let continuation):
                    state.waiters[id] = nil
                    return continuation
                case .pending:
                    state.waiters[id] = .cancelled
                    return nil
                case .cancelled, nil:
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `seconds` and wakes every sleeper whose deadline has been reached.
    public func advance(by seconds: TimeInterval) {
        let woken = state.withLock { state in
            state.now = state.now.addingTimeInterval(max(0, seconds))
            return Self.takeDue(&state)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Sets the clock to `date` (forward or back) and wakes every sleeper whose deadline has been reached.
    public func set(_ date: Date) {
        let woken = state.withLock { state in
            state.now = date
            return Self.takeDue(&state)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Suspends the calling task until the clock has been moved `seconds` past the time of the call.
    ///
    /// Returns at once when `seconds` is zero or less.
    /// - Throws: `CancellationError` when the calling task is cancelled, before or while it waits.
    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        let id: Int? = state.withLock { state in
            let deadline = state.now.addingTimeInterval(seconds)
            guard deadline > state.now else { return nil }
            let id = state.nextSleeperID
            state.nextSleeperID += 1
            state.sleepers[id] = .pending(deadline: deadline)
            return id
        }
        guard let id else { return }
        defer { state.withLock { _ = $0.sleepers.removeValue(forKey: id) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, released) = state.withLock {
                    state -> (Result<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
                    switch state.sleepers[id] {
                    case .pending(let deadline):
                        if state.now >= deadline {
                            state.sleepers[id] = nil
                            return (.success(()), [])
                        }
                        state.sleepers[id] = .waiting(deadline: deadline, continuation: continuation)
                        return (nil, Self.takeSatisfiedWaiters(&state))
                    case .cancelled, .waiting, nil:
                        state.sleepers[id] = nil
                        return (.failure(CancellationError()), [])
                    }
                }
                for waiter in released { waiter.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
                switch state.sleepers[id] {
                case .waiting(_, let continuation):
                    state.sleepers[id] = nil
                    return continuation
                case .pending:
                    state.sleepers[id] = .cancelled
                    return nil
                case .cancelled, nil:
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// The waiters of ``waitForSleepers(_:)`` whose count of parked tasks is reached.
    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        let parked = state.parked
        var released: [CheckedContinuation<Void, any Error>] = []
        for (id, waiter) in state.waiters {
            if case .waiting(let count, let continuation) = waiter, parked >= count {
                state.waiters[id] = nil
                released.append(continuation)
            }
        }
        return released
    }

    private static func takeDue(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var due: [(deadline: Date, id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
        for (id, sleeper) in state.sleepers {
            if case .waiting(let deadline, let continuation) = sleeper, deadline <= state.now {
                due.append((deadline, id, continuation))
            }
        }
        for entry in due { state.sleepers[entry.id] = nil }
        return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }.map(\.continuation)
    }
}
