import AuthSupport
import Dispatch
import Foundation
import NativeAuthTestSupport
import Synchronization
import Testing

/// What a continuation hands over: built on another thread, read by the task it wakes.
private final class Handed: Sendable {
    let number: Int
    let text: String
    let list: [Int]

    init(_ number: Int) {
        self.number = number
        text = "value \(number)"
        list = Array(0..<number)
    }
}

private struct Refused: Error, Equatable {
    let code: Int
}

@Suite("Support: a continuation that hands its value over under a lock", .hangLimit)
struct HandedContinuationTests {
    /// The value is built and the continuation resumed on another thread before the task waits,
    /// so the task takes it at once, on its own thread; nothing else orders the two threads (the
    /// flag is a relaxed atomic). In a program of its own built with ThreadSanitizer, a plain
    /// `CheckedContinuation` resumed this way is reported as a race on each field read after it;
    /// inside this test process it is not (the same code, measured), so this test checks that
    /// the value arrives whole, and the sanitizer run of the whole suite watches the SDK's
    /// handoffs, where it reported one before they went through this type.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test func aValueResumedBeforeTheTaskWaitsReachesItWhole() async throws {
        let resumed = Atomic<Bool>(false)
        var waited = false
        let value = await withHandedContinuation(of: Handed.self) { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Handed(12))
                resumed.store(true, ordering: .relaxed)
            }
            // Bounded: a queue that never runs the block fails the expectation below, not the run.
            let limit = ContinuousClock.now + .seconds(60)
            while !resumed.load(ordering: .relaxed), ContinuousClock.now < limit {}
            waited = resumed.load(ordering: .relaxed)
        }
        #expect(waited, "the continuation was resumed before the task waited")
        #expect(value.number == 12)
        #expect(value.text == "value 12")
        #expect(value.list == Array(0..<12))
    }

    @Test func aValueResumedAfterTheTaskWaitsReachesIt() async {
        let value = await withHandedContinuation(of: Handed.self) { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Handed(3)) }
        }
        #expect(value.list == [0, 1, 2])
    }

    @Test func aResultHandsOverItsValueOrItsError() async throws {
        let success = await withHandedContinuation(of: Result<Int, Refused>.self) { continuation in
            DispatchQueue.global().async { continuation.resume(with: .success(7)) }
        }
        #expect(try success.get() == 7)
        let failure = await withHandedContinuation(of: Result<Int, Refused>.self) { continuation in
            continuation.resume(with: .failure(Refused(code: 9)))
        }
        #expect(throws: Refused(code: 9)) { try failure.get() }
    }
}
