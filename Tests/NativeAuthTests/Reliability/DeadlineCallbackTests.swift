import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// The request deadline for work that answers through a callback (the default transport's path):
/// the first of the outcome, the timeout and the caller's cancellation wins, exactly once, and the
/// work is then cancelled (which does nothing to work that already finished).
@Suite("Deadline: callback work", .hangLimit)
struct DeadlineCallbackTests {
    /// Counts calls of a cancel closure.
    final class Counter: Sendable {
        private let count = Locked(0)
        func increment() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test("the first outcome reaches the caller; a later one is dropped")
    func outcome() async throws {
        let value = try await Deadline.run(seconds: 600) {
            (complete: @escaping @Sendable (Result<Int, any Error>) -> Void) in
            complete(.success(42))
            complete(.success(7))
            return {}
        }
        #expect(value == 42)
    }

    @Test("an error of the work is thrown as it is")
    func failure() async throws {
        await #expect(throws: URLError(.networkConnectionLost)) {
            try await Deadline.run(seconds: 600) { (complete: @escaping @Sendable (Result<Int, any Error>) -> Void) in
                complete(.failure(URLError(.networkConnectionLost)))
                return {}
            }
        }
    }

    @Test("work that never answers ends with timedOut, and is cancelled")
    func timeout() async throws {
        let cancels = Counter()
        do {
            _ = try await Deadline.run(seconds: 0.05) { (_: @escaping @Sendable (Result<Int, any Error>) -> Void) in
                { cancels.increment() }
            }
            Issue.record("expected a timeout")
        } catch Deadline.Failure.timedOut {
            #expect(cancels.value == 1)
        }
    }

    @Test("cancelling the caller ends the wait with cancelled, and cancels the work")
    func cancellation() async throws {
        let cancels = Counter()
        let started = AsyncStream<Void>.makeStream()
        let waiting = Task {
            try await Deadline.run(seconds: 600) { (_: @escaping @Sendable (Result<Int, any Error>) -> Void) in
                started.continuation.yield()
                return { cancels.increment() }
            }
        }
        for await _ in started.stream { break }
        waiting.cancel()
        do {
            _ = try await waiting.value
            Issue.record("expected a cancellation")
        } catch Deadline.Failure.cancelled {
            #expect(cancels.value == 1)
        }
    }

    @Test("a caller cancelled before it starts waiting gets cancelled, and the work is never started")
    func cancelledBeforeStart() async throws {
        let starts = Counter()
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Deadline.run(seconds: 600) {
                (_: @escaping @Sendable (Result<Int, any Error>) -> Void) in
                starts.increment()
                return {}
            }
        }
        do {
            _ = try await waiting.value
            Issue.record("expected a cancellation")
        } catch Deadline.Failure.cancelled {
            #expect(starts.value == 0)
        }
    }
}
