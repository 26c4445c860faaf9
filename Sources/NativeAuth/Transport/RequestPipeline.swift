package import Foundation

/// A transport that can report an answer through a callback, with a timeout of its own: the
/// capability behind the pipeline's fast path, where the caller is resumed by the answer with no
/// task in between. ``URLSessionTransport`` has it; an app's transport need not (it then runs in a
/// task of its own, which a deadline can leave behind). Package-wide so that the benchmarks' canned
/// servers take the path an app's ``URLSessionTransport`` takes.
package protocol CallbackTransport: HTTPTransport {
    /// The transport's own timeout for one request, in seconds.
    var timeout: TimeInterval { get }

    /// Starts sending `request` and calls `completion` once with the outcome `send(_:)` would give;
    /// the returned closure cancels the exchange (`completion` then gets `CancellationError`, if it
    /// was not called yet).
    func start(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> @Sendable () -> Void
}

extension URLSessionTransport: CallbackTransport {}

/// The one way every request to the identity provider takes, native and web alike: the task's
/// cancellation, the request interceptors (handed the endpoint's name), the request deadline, the
/// safe-retry policy, logging and the body-size cap. What an answer means is its caller's business
/// (`WireClient` for the native API, `WebHTTP` for the web client).
///
/// Requests to an app's own APIs (``UserAccountResult/send(_:scopes:using:)``) do not come this
/// way: they go to ``transport`` unintercepted.
///
/// A class: it never changes once built, and its fields are shared rather than copied.
final class RequestPipeline: Sendable {
    /// The transport as the app gave it.
    let transport: any HTTPTransport
    let interceptors: [any RequestInterceptor]
    let log: Log
    let retry: RetryPolicy
    /// The SDK's own deadline for one request, interceptors included, whatever the transport does.
    let requestTimeout: TimeInterval

    /// The largest body the SDK reads: every answer of the native API and of an OpenID provider is
    /// a few kilobytes, so anything over this is refused before it is parsed.
    static let maximumBodySize = 1 << 20

    init(
        transport: any HTTPTransport, interceptors: [any RequestInterceptor] = [], log: Log, retry: RetryPolicy,
        requestTimeout: TimeInterval? = nil
    ) {
        self.transport = transport
        self.interceptors = interceptors
        self.log = log
        self.retry = retry
        self.requestTimeout = requestTimeout ?? Self.defaultTimeout(for: transport)
    }

    /// The same pipeline with another retry policy (the web requests of a native client are sent
    /// once, like every web client's).
    func with(retry: RetryPolicy) -> RequestPipeline {
        RequestPipeline(
            transport: transport, interceptors: interceptors, log: log, retry: retry, requestTimeout: requestTimeout)
    }

    /// A pipeline for the web client's tools that have no client configuration (registration):
    /// no interceptors, the default deadline, no retry.
    static func web(transport: any HTTPTransport, log: Log) -> RequestPipeline {
        RequestPipeline(transport: transport, log: log, retry: .never)
    }

    /// A little above the transport's own timeout, so the transport reports first when it can.
    static func defaultTimeout(for transport: any HTTPTransport) -> TimeInterval {
        ((transport as? any CallbackTransport)?.timeout ?? 30) + 5
    }

    /// Why a request got no answer the caller can read.
    /// Indirect: a value is one reference to its case's fields, so copying it, and the code
    /// that copies and destroys it, stay small.
    indirect enum Failure: Error, Sendable {
        /// The calling task was cancelled; nothing more is sent.
        case cancelled
        /// No answer within ``requestTimeout``.
        case timedOut
        /// The transport threw (no connection, a timeout, a reset), or an interceptor refused the
        /// request (a ``RequestInterceptorError``).
        case noAnswer(any Error)
        /// The answer's body is over ``maximumBodySize``; the response comes without its body,
        /// with the body's length.
        case tooLarge(HTTPResponse, bodyLength: Int)

        /// The error an app sees as the underlying error of a request that got no answer.
        var underlyingError: (any Error)? {
            switch self {
            case .cancelled, .tooLarge: nil
            case .timedOut: URLError(.timedOut)
            case .noAnswer(let error): error
            }
        }
    }

    /// Sends `request` to `endpoint` and returns the answer, whatever its status, sending it once
    /// more where ``RetryPolicy`` says that cannot repeat an action. `readOnly` says the request
    /// changes nothing at the server (a discovery document, a key set, a status poll), so a
    /// timeout or a dropped connection may be retried too. `metadata` is added to the log record
    /// of the request (never a value of the request: names only).
    /// Not inlined: every request of the SDK comes here, and one copy of it is enough.
    @inline(never)
    func send(
        _ request: HTTPRequest, to endpoint: RequestEndpoint, readOnly: Bool, correlationId: UUID?,
        metadata: [String: String] = [:]
    ) async throws(Failure) -> HTTPResponse {
        var attempt = 1
        while true {
            let outcome: Result<HTTPResponse, Failure>
            do {
                outcome = .success(
                    try await sendOnce(request, to: endpoint, correlationId: correlationId, metadata: metadata))
            } catch {
                outcome = .failure(error)
            }
            guard attempt < retry.maximumAttempts, let delay = retry.delay(after: outcome, readOnly: readOnly) else {
                return try outcome.get()
            }
            log(
                .debug, "retrying", ["endpoint": endpoint.name, "after_seconds": "\(delay)"],
                correlationId: correlationId)
            do {
                try await retry.clock.sleep(seconds: delay)
            } catch {
                throw .cancelled
            }
            attempt += 1
        }
    }

    @inline(never)
    private func sendOnce(
        _ request: HTTPRequest, to endpoint: RequestEndpoint, correlationId: UUID?, metadata: [String: String]
    ) async throws(Failure) -> HTTPResponse {
        guard !Task.isCancelled else {
            log(.debug, "request not sent: task cancelled", ["endpoint": endpoint.name], correlationId: correlationId)
            throw .cancelled
        }
        log(
            .debug, "request sent", metadata.merging(["endpoint": endpoint.name]) { _, name in name },
            correlationId: correlationId)
        var response: HTTPResponse
        do {
            if interceptors.isEmpty, let transport = transport as? any CallbackTransport {
                // A callback transport answers with no task between it and the caller.
                response = try await Deadline.run(seconds: requestTimeout) { complete in
                    transport.start(request, completion: complete)
                }
            } else {
                response = try await Deadline.run(seconds: requestTimeout) { [self] in
                    try await transport.send(try await intercepted(request, endpoint: endpoint))
                }
            }
        } catch {
            throw failure(error, endpoint: endpoint, correlationId: correlationId)
        }
        guard response.body.count <= Self.maximumBodySize else {
            log(
                .warning, "answer refused: too large",
                ["endpoint": endpoint.name, "status": "\(response.statusCode)", "bytes": "\(response.body.count)"],
                correlationId: correlationId)
            let length = response.body.count
            response.body = Data()
            throw .tooLarge(response, bodyLength: length)
        }
        return response
    }

    /// `request` as the interceptors leave it, in order.
    private func intercepted(_ request: HTTPRequest, endpoint: RequestEndpoint) async throws -> HTTPRequest {
        var intercepted = InterceptedRequest(endpoint: endpoint, request: request)
        for (index, interceptor) in interceptors.enumerated() {
            do {
                try await interceptor.intercept(&intercepted)
            } catch let error as CancellationError {
                throw error
            } catch {
                var refusal =
                    (error as? RequestInterceptorError)
                    ?? RequestInterceptorError(endpoint: endpoint, reason: .refused(error))
                refusal.interceptorIndex = index
                refusal.interceptorType = String(describing: type(of: interceptor))
                throw refusal
            }
        }
        return intercepted.request
    }

    /// The failure `error` stands for, logged.
    private func failure(_ error: any Error, endpoint: RequestEndpoint, correlationId: UUID?) -> Failure {
        if case Deadline.Failure.timedOut = error {
            log(
                .warning, "no answer within the request deadline",
                ["endpoint": endpoint.name, "seconds": "\(requestTimeout)"], correlationId: correlationId)
            return .timedOut
        }
        if error is Deadline.Failure || error is CancellationError || Task.isCancelled
            || (error as? URLError)?.code == .cancelled
        {
            log(.debug, "request cancelled", ["endpoint": endpoint.name], correlationId: correlationId)
            return .cancelled
        }
        log(
            .warning, "no answer from the server", ["endpoint": endpoint.name, "error": Self.describe(error)],
            correlationId: correlationId)
        return .noAnswer(error)
    }

    /// An error's kind, for logs: a `URLError`'s code, or the type's name (never its text).
    static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError { return "URLError \(urlError.code.rawValue)" }
        return String(describing: type(of: error))
    }
}

extension RequestPipeline: CustomReflectable {
    /// The pipeline's settings; the app's transport and interceptors are the app's to show, and
    /// reflection of the SDK does not walk into them.
    var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "transport": String(describing: type(of: transport)), "interceptors": interceptors.count,
                "requestTimeout": requestTimeout,
            ])
    }
}
