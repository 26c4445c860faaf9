import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The delegate of a transport's session: it gathers each data task's response and body for its
    /// ``Exchange``, and refuses every redirect, so a `3xx` reaches the caller as the response it is.
    ///
    /// Data tasks report through this delegate rather than a completion handler because
    /// FoundationNetworking (Linux) drops the body of a refused redirect when it calls a completion
    /// handler, and never completes a `401` that carries a `WWW-Authenticate: Basic` challenge
    /// unless the session's delegate answers that challenge.
    ///
    /// `@unchecked Sendable` is safe: `exchanges` is read and written only while `lock` is held,
    /// and nothing is called out while it is held.
    final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let lock = NSLock()
        /// The exchanges of the tasks in flight, by task identifier: a few at a time, so a list.
        private var exchanges: [(task: Int, exchange: Exchange)] = []

        override init() {
            super.init()
        }

        /// Routes the events of `task` to `exchange`, until the task completes or is unregistered.
        func register(_ exchange: Exchange, for task: URLSessionTask) {
            lock.withLock { exchanges.append((task.taskIdentifier, exchange)) }
        }

        /// Stops routing the events of `task`; returns the exchange they went to.
        @discardableResult
        func unregister(_ task: URLSessionTask) -> Exchange? {
            lock.withLock {
                guard let index = exchanges.firstIndex(where: { $0.task == task.taskIdentifier }) else { return nil }
                return exchanges.remove(at: index).exchange
            }
        }

        private func exchange(for task: URLSessionTask) -> Exchange? {
            lock.withLock { exchanges.first(where: { $0.task == task.taskIdentifier })?.exchange }
        }

        func urlSession(
            _ session: URLSession,
            dataTask: URLSessionDataTask,
            didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            exchange(for: dataTask)?.receive(response)
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            exchange(for: dataTask)?.append(data)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            unregister(task)?.complete(error: error, fallbackResponse: task.response)
        }

        func urlSession(
            _ session: URLSession,
            task: URLSessionTask,
            willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        #if canImport(FoundationNetworking)
            /// Ends the exchange with the `401` (or `407`) that raised an HTTP authentication challenge.
            ///
            /// FoundationNetworking offers the challenge before completing the task, and with no
            /// credential to try it never completes it. The transport answers with the response as it
            /// is, like Apple platforms do when no credential is available, and cancels the challenge so
            /// the data task ends.
            func urlSession(
                _ session: URLSession,
                task: URLSessionTask,
                didReceive challenge: URLAuthenticationChallenge,
                completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
            ) {
                guard let response = challenge.failureResponse as? HTTPURLResponse, let exchange = unregister(task)
                else {
                    completionHandler(.performDefaultHandling, nil)
                    return
                }
                exchange.complete(error: nil, fallbackResponse: response)
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        #endif
    }

    /// One request in flight: what to call with its outcome (the calling task's continuation, or
    /// the SDK's request deadline), the data task, and the response and body gathered so far.
    ///
    /// The caller, its cancellation and the session delegate all reach it; it makes sure the
    /// outcome is delivered exactly once.
    ///
    /// `@unchecked Sendable` is safe: every stored property is read and written only while `lock`
    /// is held, and nothing is called out while it is held.
    final class Exchange: @unchecked Sendable {
        typealias Outcome = (Data, URLResponse)

        private let lock = NSLock()
        private var continuation: (@Sendable (Result<Outcome, any Error>) -> Void)?
        private var task: URLSessionDataTask?
        private var response: URLResponse?
        private var body = Data()
        private var isCancelled = false
        private var isFinished = false

        /// Keeps `continuation` for the outcome. Resumes it at once with `CancellationError`, and
        /// returns `false`, when the calling task was already cancelled.
        func begin(_ continuation: CheckedContinuation<Outcome, any Error>) -> Bool {
            begin { continuation.resume(with: $0) }
        }

        /// Keeps `completion` for the outcome. Calls it at once with `CancellationError`, and
        /// returns `false`, when the exchange was already cancelled.
        func begin(_ completion: @escaping @Sendable (Result<Outcome, any Error>) -> Void) -> Bool {
            let cancelled = lock.withLock {
                if !isCancelled { self.continuation = completion }
                return isCancelled
            }
            if cancelled { completion(.failure(CancellationError())) }
            return !cancelled
        }

        /// Keeps `task` for cancellation. Returns `false`, and cancels the task, when the exchange
        /// ended before the task could start.
        func attach(_ task: URLSessionDataTask) -> Bool {
            let ended = lock.withLock {
                if !isCancelled && !isFinished { self.task = task }
                return isCancelled || isFinished
            }
            if ended { Self.cancelLater(task) }
            return !ended
        }

        /// Starts the body over for a (new) response.
        func receive(_ response: URLResponse) {
            lock.withLock {
                self.response = response
                body = Data()
            }
        }

        /// Adds a piece of the body.
        func append(_ data: Data) {
            lock.withLock { body.append(data) }
        }

        /// Ends the exchange with the data task's outcome, unless it ended already.
        ///
        /// With no `error`, the outcome is the body gathered and the response received, or
        /// `fallbackResponse` when none was; with neither, `URLError(.badServerResponse)`.
        func complete(error: (any Error)?, fallbackResponse: URLResponse?) {
            let (pending, result): ((@Sendable (Result<Outcome, any Error>) -> Void)?, Result<Outcome, any Error>) =
                lock.withLock {
                    isFinished = true
                    task = nil
                    defer { continuation = nil }
                    if let error { return (continuation, .failure(error)) }
                    guard let response = response ?? fallbackResponse else {
                        return (continuation, .failure(URLError(.badServerResponse)))
                    }
                    return (continuation, .success((body, response)))
                }
            pending?(result)
        }

        /// Ends the exchange at once with `CancellationError`, and cancels the data task.
        func cancel() {
            let (pending, running): ((@Sendable (Result<Outcome, any Error>) -> Void)?, URLSessionDataTask?) =
                lock.withLock {
                    isCancelled = true
                    defer {
                        continuation = nil
                        task = nil
                    }
                    return (continuation, task)
                }
            pending?(.failure(CancellationError()))
            if let running { Self.cancelLater(running) }
        }

        /// Cancels `task` from a dispatch queue.
        ///
        /// In FoundationNetworking `URLSessionTask.cancel()` waits for the session's work queue; a
        /// task cancellation handler must not block, so it does not make that call itself.
        private static func cancelLater(_ task: URLSessionDataTask) {
            DispatchQueue.global(qos: .utility).async { task.cancel() }
        }
    }
}
