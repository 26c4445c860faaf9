import Foundation
import NativeAuthEmulator
import Testing

/// The terminal the samples talk to: what they print is recorded, and what they read comes from
/// a script, so an interactive sample runs unattended in a test.
///
/// This module's `print` and `readLine` below take the place of the standard library's for every
/// sample compiled here. A test runs a sample inside `Console.$current.withValue(console) { … }`;
/// outside one, output goes nowhere and input is at its end.
final class Console: Sendable {
    @TaskLocal static var current: Console?

    private let state: Mutex<(output: [String], input: [@Sendable () -> String?])>

    /// A console whose input is these lines, read in order.
    init(input: [String] = []) {
        state = Mutex((output: [], input: input.map { line in { line } }))
    }

    /// Everything printed so far, one element per `print` call.
    var output: [String] { state.withLock { $0.output } }

    /// Whether some printed text contains `text`.
    func printed(_ text: String) -> Bool { output.contains { $0.contains(text) } }

    /// Adds lines to be read.
    func type(_ lines: String...) { state.withLock { $0.input += lines.map { line in { line } } } }

    /// Adds a line to be read, made when it is read: a code the tenant sends in the meantime.
    func type(_ line: @escaping @Sendable () -> String?) { state.withLock { $0.input.append(line) } }

    fileprivate func write(_ text: String) { state.withLock { $0.output.append(text) } }

    fileprivate func read() -> String? {
        let next = state.withLock { state in state.input.isEmpty ? nil : state.input.removeFirst() }
        return next?()
    }
}

/// A lock around a value; the samples' console is shared by the tasks a sample starts.
final class Mutex<Value: Sendable>: @unchecked Sendable {
    // Safe: `value` is read and written only while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Records the text on the current console, as `Swift.print` would write it.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Console.current?.write(items.map { "\($0)" }.joined(separator: separator) + terminator)
}

/// The next scripted line of the current console; `nil` when the script is used up.
func readLine(strippingNewline: Bool = true) -> String? {
    Console.current?.read()
}

/// How long a test waits for work it started (in process, so milliseconds alone; the bound leaves
/// room for a loaded two-core machine).
let waitBound: Duration = .seconds(30)

/// Yields until `condition` holds; after `waitBound` throws, which ends the test with an issue
/// naming `what`. A bound on a wait for work, never a sleep that stands in for it.
func requireUntil(
    _ what: String, isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + waitBound
    while !condition() {
        if Task.isCancelled || ContinuousClock.now >= deadline {
            try #require(condition(), "gave up waiting for \(what)", sourceLocation: sourceLocation)
            return
        }
        // A short pause between checks, not a yield: a test on the main actor that only yields keeps
        // the main actor (where delegates are called) busy, and under ThreadSanitizer the callback
        // it waits for never got its turn.
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// Fails a test with the outcome that came instead of the expected one.
struct UnexpectedSampleOutcome: Error, CustomStringConvertible {
    let description: String
}

/// Advances `clock` by a second each time a task sleeps on it, until cancelled: a password reset
/// waiting between polls goes on at once.
func advanceWhileSleeping(_ clock: ManualClock) -> Task<Void, Never> {
    Task {
        while (try? await clock.waitForSleepers()) != nil { clock.advance(by: 1) }
    }
}

/// Runs `attempt` until it answers `true`, yielding in between; after `waitBound` throws, which
/// ends the test with an issue naming `what`.
func requireEventually(
    _ what: String, isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, _ attempt: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + waitBound
    while try await !attempt() {
        if Task.isCancelled || ContinuousClock.now >= deadline {
            Issue.record("gave up waiting for \(what)", sourceLocation: sourceLocation)
            throw UnexpectedSampleOutcome(description: "gave up waiting for \(what)")
        }
        await Task.yield()
    }
}
