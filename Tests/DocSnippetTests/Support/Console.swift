import Foundation
import NativeAuthTestSupport

/// The terminal the samples talk to: what they print is recorded, and what they read comes from
/// a script, so an interactive sample runs unattended in a test.
///
/// This module's `print` and `readLine` below take the place of the standard library's for every
/// sample compiled here. A test runs a sample inside `Console.$current.withValue(console) { … }`;
/// outside one, output goes nowhere and input is at its end.
final class Console: Sendable {
    @TaskLocal static var current: Console?

    private let state: LockedValue<(output: [String], input: [@Sendable () -> String?])>

    /// A console whose input is these lines, read in order.
    init(input: [String] = []) {
        state = LockedValue((output: [], input: input.map { line in { line } }))
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
