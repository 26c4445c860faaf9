public import Testing

/// For the suites whose work is long computation on the test's own thread: RSA key generation and
/// signing, big-integer arithmetic, fuzzing, the random property sequences, the source scans of
/// the documents, the storage sweeps that write and read megabytes or flip every bit of a file.
///
/// Such a suite (or test function, when the trait is on the test) runs only once it holds
/// ``CPUHeavyGate``, which every test target of the package shares: two of them never compute side
/// by side, so on a two-core machine the rest of the suite always has one of the concurrency
/// pool's two threads (a synchronous test keeps its thread until it returns). Put `.serialized`
/// on a suite with this trait too, so that its own tests take turns.
///
/// A suite waits at the gate before its tests start, outside their time limits (a time limit
/// applies to each test case, not to a suite). Its tests run at the default priority: at low
/// priority (nice 2 on Linux) they were starved by the other processes of a busy machine, and
/// cases that take milliseconds alone took seconds each.
public struct CPUHeavyTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Whether the current task already holds the gate (a test of a suite that took it).
    @TaskLocal static var holdsGate = false

    /// A scope around a suite, or a test function as a whole; none around each test case.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil ? self : nil }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A test of a suite that holds the gate already runs under it.
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
    }
}

extension Trait where Self == CPUHeavyTrait {
    /// Runs the suite (or test) alone among the CPU-heavy ones: see ``CPUHeavyTrait``.
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
