import Foundation
import NativeAuthTestSupport
import Testing

/// The terminal the samples talk to: what they print is recorded, and what they read comes from
/// a script, so an interactive sample runs unattended in a test.
///
/// This module's `print` and `readLine` below take the place of the standard library's for every
/// sample compiled here. A test runs a sample inside `Console.$current.withValue(console) { … }`;
/// outside one, output goes nowhere and input is at its end.
final class Console: Sendable {
    @TaskLocal static var current: Console?

    private let state:
        LockedValue<(output: [String], input: [@Sendable () -> String?], taken: Int, waiters: [Int: Latch<String>])>

    /// A console whose input is these lines, read in order.
    init(input: [String] = []) {
        state = LockedValue((output: [], input: input.map { line in { line } }, taken: 0, waiters: [:]))
    }

    /// The next printed text that no earlier call took, once it is printed: the wait is woken by
    /// the print itself (a delegate sample prints once per callback), bounded by `TestBounds.wait`,
    /// which only a hang reaches.
    func next(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let (printed, latch) = state.withLock { state -> (String?, Latch<String>?) in
            let index = state.taken
            state.taken += 1
            if index < state.output.count { return (state.output[index], nil) }
            let latch = Latch<String>()
            state.waiters[index] = latch
            return (nil, latch)
        }
        if let printed { return printed }
        guard let latch else { throw TestFailure("nothing printed and nothing to wait on") }
        return try await latch.require(what, sourceLocation: sourceLocation)
    }

    /// Waits for the next printed text (see ``next(_:sourceLocation:)``) and requires it to contain
    /// `text`: a callback other than the expected one fails the test at once, naming what it printed.
    func expectNext(
        _ what: String, containing text: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let printed = try await next(what, sourceLocation: sourceLocation)
        try #require(
            printed.contains(text), "waiting for \(what): printed \(printed.debugDescription)",
            sourceLocation: sourceLocation)
    }

    /// Everything printed so far, one element per `print` call.
    var output: [String] { state.withLock { $0.output } }

    /// Whether some printed text contains `text`.
    func printed(_ text: String) -> Bool { output.contains { $0.contains(text) } }

    /// Adds lines to be read.
    func type(_ lines: String...) { state.withLock { $0.input += lines.map { line in { line } } } }

    /// Adds a line to be read, made when it is read: a code the tenant sends in the meantime.
    func type(_ line: @escaping @Sendable () -> String?) { state.withLock { $0.input.append(line) } }

    fileprivate func write(_ text: String) {
        let waiter = state.withLock { state -> Latch<String>? in
            state.output.append(text)
            return state.waiters.removeValue(forKey: state.output.count - 1)
        }
        waiter?.fulfill(text)
    }

    fileprivate func read() -> String? {
        let next = state.withLock { state in state.input.isEmpty ? nil : state.input.removeFirst() }
        return next?()
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

/// Fails a test with the outcome that came instead of the expected one.
struct UnexpectedSampleOutcome: Error, CustomStringConvertible {
    let description: String
}
