import Foundation

/// A value guarded by a lock: the one place the emulator keeps mutable state shared between tasks.
///
/// `@unchecked Sendable` is safe here because `value` is private and is only ever read or written
/// inside `withLock`, while `lock` is held, so no two threads touch it at the same time. The value
/// itself is `Sendable`, so nothing non-sendable can be smuggled in or out through it. The body of
/// `withLock` is synchronous (it cannot suspend while holding the lock) and must not take the same
/// lock again: the emulator's bodies only touch the value and the injected clock and random source,
/// which have locks of their own.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns what it returns.
    func withLock<Output>(_ body: (inout Value) throws -> Output) rethrows -> Output {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
