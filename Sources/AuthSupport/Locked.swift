import Foundation

/// A value behind a lock: the one place mutable shared state lives outside actors.
///
/// `@unchecked Sendable` is safe because every access to `value` goes through `withLock`, which
/// holds `lock` for the whole access, and `Value` itself is required to be `Sendable`.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    package var current: Value { withLock { $0 } }
}

/// Reflection (`dump`, debuggers, `Mirror`) shows nothing behind the lock: reading the value
/// without taking it would race with its writers, and what is locked away is often a secret
/// (cached tokens, stored keys).
extension Locked: CustomReflectable {
    package var customMirror: Mirror { Mirror(self, children: [:]) }
}
