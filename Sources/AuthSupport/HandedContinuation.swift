/// A continuation whose value is handed to the waiting task under a lock.
///
/// A checked continuation that is resumed before its task has started to wait lets the task
/// take the value and go on at once, on the thread it is on. The concurrency runtime orders the
/// resuming thread's writes before the task's reads on that path with an atomic of its own, and
/// tells ThreadSanitizer nothing of it: the sanitizer then reports a race on each field of the
/// value that was written on the resuming thread (an error or a response built there). Handed
/// over through ``Locked`` instead, the value is written and read under one lock, an ordering
/// the sanitizer sees on every path, and the continuation only wakes the task.
package struct HandedContinuation<Value: Sendable>: Sendable {
    fileprivate let slot: Locked<Value?>
    fileprivate let continuation: CheckedContinuation<Void, Never>

    /// Hands `value` to the waiting task and wakes it. Call it once, as a checked
    /// continuation's `resume`.
    package func resume(returning value: Value) {
        slot.withLock { $0 = value }
        continuation.resume()
    }
}

extension HandedContinuation {
    /// Hands `result`'s value or error to the waiting task, which gets it from `get()`.
    package func resume<Success, Failure>(with result: Result<Success, Failure>)
    where Value == Result<Success, Failure> {
        resume(returning: result)
    }
}

/// Suspends the calling task, runs `body` with a continuation for it, and returns the value that
/// continuation is resumed with: `withCheckedContinuation`, with the value handed over as
/// ``HandedContinuation`` tells.
package func withHandedContinuation<Value: Sendable>(
    isolation: isolated (any Actor)? = #isolation,
    of type: Value.Type = Value.self,
    _ body: (HandedContinuation<Value>) -> Void
) async -> Value {
    let slot = Locked<Value?>(nil)
    await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Void, Never>) in
        body(HandedContinuation(slot: slot, continuation: continuation))
    }
    // The continuation is only resumed by `resume(returning:)`, which fills the slot first.
    guard let value = slot.withLock({ $0.take() }) else {
        preconditionFailure("a handed continuation was resumed without its value")
    }
    return value
}
