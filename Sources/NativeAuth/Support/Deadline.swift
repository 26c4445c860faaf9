import Foundation

/// Runs work that may never end (a custom transport that neither answers nor honours
/// cancellation) so that its caller always gets an outcome: the work's result, a timeout after
/// `seconds`, or a cancellation as soon as the calling task is cancelled.
///
/// The work runs in a task of its own; when the caller stops waiting, that task is cancelled and
/// left to end in its own time, and whatever it returns then is dropped.
enum Deadline {
    enum Failure: Error, Sendable {
        case timedOut
        case cancelled
    }

    static func run<T: Sendable>(
        seconds: TimeInterval, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let gate = Gate<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                gate.arm(continuation)
                let worker = Task {
                    do {
                        gate.finish(.success(try await work()))
                    } catch {
                        gate.finish(.failure(error))
                    }
                }
                let timer = Task {
                    try? await Task.sleep(nanoseconds: UInt64(max(0, min(seconds, 86_400)) * 1_000_000_000))
                    if !Task.isCancelled { gate.finish(.failure(Failure.timedOut)) }
                }
                gate.onFinish {
                    worker.cancel()
                    timer.cancel()
                }
            }
        } onCancel: {
            gate.finish(.failure(Failure.cancelled))
        }
    }

    /// Resumes the continuation once, with the first outcome to arrive.
    private final class Gate<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var early: Result<T, any Error>?
            var done = false
            var cleanup: (@Sendable () -> Void)?
        }

        private let state = Locked(State())

        func arm(_ continuation: CheckedContinuation<T, any Error>) {
            let early: Result<T, any Error>? = state.withLock { state in
                if let early = state.early {
                    state.done = true
                    return early
                }
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
            let runNow = state.withLock { state in
                if state.done { return true }
                state.cleanup = cleanup
                return false
            }
            if runNow { cleanup() }
        }

        func finish(_ result: Result<T, any Error>) {
            let (continuation, cleanup) = state.withLock {
                state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
                guard !state.done else { return (nil, nil) }
                guard let continuation = state.continuation else {
                    // Cancelled before the continuation was armed.
                    if state.early == nil { state.early = result }
                    return (nil, nil)
                }
                state.done = true
                state.continuation = nil
                let cleanup = state.cleanup
                state.cleanup = nil
                return (continuation, cleanup)
            }
            continuation?.resume(with: result)
            cleanup?()
        }
    }
}
