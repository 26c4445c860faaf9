public import Foundation

/// The source of time for the SDK: token expiry, clock-skew correction and polling intervals.
///
/// Inject a controllable clock in tests so they move time instead of sleeping. ``SystemClock`` is
/// the default.
public protocol NativeAuthClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Suspends the calling task for `seconds`.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled while it waits.
    func sleep(seconds: Double) async throws
}

/// The wall clock, with `Task.sleep` for waiting.
public struct SystemClock: NativeAuthClock {
    /// Creates the wall clock.
    public init() {}

    /// The current time.
    public func now() -> Date { Date() }

    /// Suspends the calling task for `seconds`; throws `CancellationError` when cancelled.
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        let nanoseconds = UInt64(min(seconds, 86_400) * 1_000_000_000)
        try await Task.sleep(nanoseconds: nanoseconds)
    }
}
