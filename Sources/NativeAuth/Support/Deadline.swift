import AuthSupport
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
        // The callback form below, with a task as the work: its gate and timer are compiled once.
        // Cancelled before the work began: it is not started.
        try await run(seconds: seconds) { complete in
            let worker = Task {
                do {
                    complete(.success(try await work()))
                } catch {
                    complete(.failure(error))
                }
            }
            return { worker.cancel() }
        }
    }

    /// Runs work that reports its outcome through a callback (``URLSessionTransport``'s own
    /// requests): `start` begins it and returns how to cancel it. The outcome, a timeout after
    /// `seconds` or the calling task's cancellation resumes the caller directly, with no task in
    /// between; whichever comes first wins, and the work is cancelled before the caller resumes
    /// (which must do nothing to work that already finished).
    static func run<T: Sendable>(
        seconds: TimeInterval,
        starting start: (@escaping @Sendable (Result<T, any Error>) -> Void) -> @Sendable () -> Void
    ) async throws -> T {
        let gate = Gate<T>()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                gate.arm(continuation)
                if gate.isFinished { return }
                let cancel = start { gate.finish($0) }
                let timer = Timer(seconds: seconds) { gate.finish(.failure(Failure.timedOut)) }
                gate.onFinish {
                    cancel()
                    timer.cancel()
                }
            }
        } onCancel: {
            gate.finish(.failure(Failure.cancelled))
        }
        return try gate.outcome.get()
    }

    /// A deadline on the process's one deadline timer (``DeadlineScheduler``) rather than a
    /// sleeping task or a dispatch timer per request: cancelling it wakes nothing, where a
    /// sleeping task is scheduled twice per request and a timer of its own wakes dispatch's
    /// manager thread to start, which shows under load.
    private struct Timer: Sendable {
        private let token: DeadlineScheduler.Token

        init(seconds: TimeInterval, _ fire: @escaping @Sendable () -> Void) {
            token = DeadlineScheduler.shared.schedule(after: seconds, fire)
        }

        func cancel() {
            DeadlineScheduler.shared.cancel(token)
        }
    }

    /// Resumes the continuation once, with the first outcome to arrive. The outcome is kept under
    /// the gate's lock and read there by the caller once it is resumed, rather than passed
    /// through the continuation: the thread sanitizer then sees it handed over on every path, as
    /// `HandedContinuation` (AuthSupport) tells, with no allocation of its own on each request.
    private final class Gate<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, Never>?
            /// The first outcome to arrive, kept for the caller.
            var outcome: Result<T, any Error>?
            var done = false
            var cleanup: (@Sendable () -> Void)?
        }

        private let state = Locked(State())

        func arm(_ continuation: CheckedContinuation<Void, Never>) {
            let early = state.withLock { state in
                if state.outcome != nil {
                    state.done = true
                    return true
                }
                state.continuation = continuation
                return false
            }
            if early { continuation.resume() }
        }

        /// Whether an outcome has already resumed the caller.
        var isFinished: Bool { state.withLock { $0.done } }

        /// The outcome the caller was resumed for.
        var outcome: Result<T, any Error> {
            // Set before the caller is resumed; a cancellation stands for it should it ever not be.
            state.withLock { $0.outcome } ?? .failure(Failure.cancelled)
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
                state -> (CheckedContinuation<Void, Never>?, (@Sendable () -> Void)?) in
                guard !state.done else { return (nil, nil) }
                // The first outcome is kept; before the continuation is armed (a cancellation),
                // it waits there for it.
                if state.outcome == nil { state.outcome = result }
                guard let continuation = state.continuation else { return (nil, nil) }
                state.done = true
                state.continuation = nil
                let cleanup = state.cleanup
                state.cleanup = nil
                return (continuation, cleanup)
            }
            // The work is told to stop before its caller goes on, so a caller that sees a timeout
            // or a cancellation knows the work was cancelled (a transport's task, the timer).
            cleanup?()
            continuation?.resume()
        }
    }
}
