import Testing

/// Runs each test it applies to in a task at low priority: for the long or CPU-heavy suites (the
/// property run, the fuzz targets, the source scans, long arithmetic, RSA signing in a loop, the
/// storage tests that write and read megabytes or flip every bit of a file).
///
/// Every other test resumes its awaits on the default-priority threads of the concurrency pool,
/// two on a two-core machine. At the default priority, these tests held those threads for seconds
/// at a time (a synchronous test keeps its thread until it returns) and queued thousands of jobs
/// in front of the others'; under ThreadSanitizer the rest of the suite stalled behind them for
/// half a minute, and bounded waits expired. At low priority their jobs wait while
/// default-priority jobs are ready for the same threads; with Linux's libdispatch they run on
/// threads of their own, at a slightly lower scheduling priority (nice 2), which the system
/// time-slices with the default ones, so the rest of the suite is never held up behind them and
/// they still get a fair share of a busy machine. (Background priority would be nice 10: starved
/// by other processes on a busy machine, past the tests' time limits.)
///
/// The task inherits the test's task-local values, so issues are recorded against the test, and
/// cancelling the test (its time limit) cancels it. Its outcome comes through a continuation:
/// awaiting the task itself would raise it to the test's priority.
struct LowPriorityTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else {
            try await function()  // a suite: each of its test cases gets the scope
            return
        }
        // The task runs `function` to its end before the scope returns, and a finished task has
        // released its closure, so `function` does not escape.
        try await withoutActuallyEscaping(function) { function in
            let task = Task(priority: .low) { try await function() }
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    Task(priority: .low) { continuation.resume(with: await task.result) }
                }
            } onCancel: {
                task.cancel()
            }
        }
    }
}

extension Trait where Self == LowPriorityTrait {
    /// Runs the suite's tests (or the test) at low priority: see ``LowPriorityTrait``.
    static var lowPriority: Self { Self() }
}
