public import Foundation
public import NativeAuth
public import NativeAuthEmulator

/// A clock the test sets by hand, which records every sleep asked of it.
///
/// By default a sleep returns at once and leaves the time as it is (waits for retries and polling
/// cost nothing); with `advancesOnSleep` a sleep moves the clock forward by its length, so a
/// polling loop runs through its whole schedule with no waiting. A cancelled task's sleep throws.
public final class TestClock: NativeAuthClock, Sendable {
    private let state: LockedValue<(now: Date, sleeps: [Double])>
    private let advancesOnSleep: Bool

    public init(_ now: Date = Date(timeIntervalSince1970: 1_800_000_000), advancesOnSleep: Bool = false) {
        state = LockedValue((now, []))
        self.advancesOnSleep = advancesOnSleep
    }

    /// Every sleep so far, in seconds, in order.
    public var sleeps: [Double] { state.current.sleeps }

    public func now() -> Date { state.current.now }

    public func advance(by seconds: TimeInterval) { state.withLock { $0.now = $0.now.addingTimeInterval(seconds) } }

    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(seconds)
            if advancesOnSleep { state.now = state.now.addingTimeInterval(max(0, seconds)) }
        }
    }
}

/// Advances `clock` by `step` seconds each time a task sleeps on it, until the returned task is
/// cancelled: a password reset waiting between polls goes on at once, woken by the sleepers
/// themselves instead of by polling.
public func advanceWhileSleeping(_ clock: ManualClock, by step: TimeInterval = 1) -> Task<Void, Never> {
    Task {
        while (try? await clock.waitForSleepers()) != nil { clock.advance(by: step) }
    }
}
