public import Testing

/// For the suites whose work is long computation on the test's own thread: RSA key generation and
/// signing, big-integer arithmetic, fuzzing, the random property sequences, the source scans of
/// the documents, the storage sweeps that write and read megabytes or flip every bit of a file.
///
/// Two things, so that the rest of the suite keeps the concurrency pool's threads:
///
/// - **One at a time.** Such a suite (or test function, when the trait is on the test) runs only
///   once it holds ``CPUHeavyGate``, shared by every test target of the package: two of them never
///   compute side by side, and a two-core machine always has a core for the other tests. A suite
///   waits at the gate before its tests start, outside their time limits (a time limit applies to
///   each test case, not to a suite). Put `.serialized` on a suite with this trait too, so its own
///   tests take turns.
/// - **At low priority.** Each test case runs in a task at low priority. Every other test resumes
///   its awaits on the default-priority threads of the pool (two on a two-core machine); a
///   synchronous test keeps its thread until it returns. At low priority its jobs wait while
///   default-priority jobs are ready for the same threads; with Linux's libdispatch they run on
///   threads of their own, at a slightly lower scheduling priority (nice 2), which the system
///   time-slices with the default ones. (Background priority would be nice 10: starved by other
///   processes on a busy machine.)
///
/// The low-priority task inherits the test's task-local values, so issues are recorded against the
/// test, and cancelling the test (its time limit) cancels it. Its outcome comes through a
/// continuation: awaiting the task itself would raise it to the test's priority.
public struct CPUHeavyTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Whether the current task already holds the gate (a test of a suite that took it).
    @TaskLocal static var holdsGate = false

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else {
            // A suite, or a test function as a whole: take the gate, unless a suite around it has.
            if Self.holdsGate {
                try await function()
                return
            }
            await CPUHeavyGate.shared.enter()
            do {
                try await Self.$holdsGate.withValue(true) { try await function() }
            } catch {
                await CPUHeavyGate.shared.leave()
                throw error
            }
            await CPUHeavyGate.shared.leave()
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

extension Trait where Self == CPUHeavyTrait {
    /// Runs the suite (or test) alone among the CPU-heavy ones, its test cases at low priority: see
    /// ``CPUHeavyTrait``.
    public static var cpuHeavy: Self { Self() }
}

/// A first-come, first-served gate that one CPU-heavy suite holds at a time, across the package's
/// test targets.
public actor CPUHeavyGate {
    public static let shared = CPUHeavyGate()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    public func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
