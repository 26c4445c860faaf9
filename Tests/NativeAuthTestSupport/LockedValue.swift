import Foundation

/// A value behind a lock, for test doubles whose state is shared by the tasks and threads that
/// call them.
public final class LockedValue<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is read and written only while `lock` is held, and `Value` is `Sendable`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// The value now.
    public var current: Value { withLock { $0 } }
}
