import AuthSupport
public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// The default ``HTTPTransport``: sends each request with a `URLSession` of its own.
///
/// The transport returns every response the server sends, whatever its status code, and never
/// follows a redirect: a `3xx` comes back as an ``HTTPResponse`` with its `Location` header and
/// body, for the caller to judge. It keeps no cookies and caches nothing.
///
/// Create one transport and share it: copies of a transport share one `URLSession`, which is
/// invalidated when the last copy goes away.
///
/// ```swift
/// let transport = URLSessionTransport(timeout: 15)
/// let response = try await transport.send(HTTPRequest(method: "GET", url: url))
/// ```
///
/// `send(_:)` throws the `URLError` of a failed exchange as it is (no connection, a timeout, a
/// reset), and `CancellationError` when the calling task is cancelled.
public struct URLSessionTransport: HTTPTransport {
    /// The request timeout used when none is given, in seconds.
    public static let defaultTimeout: TimeInterval = 30

    /// The timeout of each request, in seconds, as applied.
    ///
    /// This is the `timeout` given to ``init(timeout:configuration:)``, or ``defaultTimeout`` when
    /// that was not a positive number. With FoundationNetworking (Linux), which counts timeouts in
    /// whole seconds, it is rounded up to a whole number of seconds.
    public let timeout: TimeInterval

    private let session: SessionOwner

    /// Creates a transport with a `URLSession` of its own.
    ///
    /// - Parameters:
    ///   - timeout: How long a request may wait for data before it fails with
    ///     `URLError(.timedOut)`, in seconds. A value that is not a positive number means
    ///     ``defaultTimeout``. FoundationNetworking (Linux) counts whole seconds, so there the
    ///     value is rounded up.
    ///   - configuration: The starting configuration; the transport works on its own copy. Whatever
    ///     it says, cookies are off, there is no URL cache, and the request timeout is `timeout`.
    ///     `nil` (the default) means `URLSessionConfiguration.ephemeral`.
    ///
    /// Nothing is made until the first request: a transport that sends nothing (an app that
    /// launches with a stored session and a cached token) costs nothing.
    public init(
        timeout: TimeInterval = URLSessionTransport.defaultTimeout,
        configuration: URLSessionConfiguration? = nil
    ) {
        let applied = Self.appliedTimeout(timeout)
        self.timeout = applied
        self.session = SessionOwner(configuration: configuration.map { Self.prepared($0, timeout: applied) }) {
            Self.prepared(.ephemeral, timeout: applied)
        }
    }

    /// Sends `request` and returns the server's response, whatever its status code.
    ///
    /// A redirect is returned as it is, never followed. Response header names are kept as the
    /// server sent them; look them up with ``HTTPResponse/header(_:)``.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled, before or while the request
    ///   is in flight; the `URLError` of a failed exchange, as Foundation reported it (for example
    ///   `.notConnectedToInternet`, `.timedOut`, `.networkConnectionLost`); `URLError(.badServerResponse)`
    ///   when the answer is not an HTTP response.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let (data, response) = try await session.load(urlRequest(for: request))
        return try Self.response(data, response)
    }

    /// Starts sending `request` and calls `completion` with the outcome ``send(_:)`` would return
    /// or throw, from whatever thread URLSession reports on; the returned closure cancels the
    /// exchange (`completion` then gets `CancellationError` at once, if it was not called yet).
    ///
    /// The SDK's own requests go this way: the caller is resumed once, by the outcome, with no
    /// task in between.
    package func start(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> @Sendable () -> Void {
        session.start(urlRequest(for: request)) { outcome in
            completion(outcome.flatMap { data, response in Result { try Self.response(data, response) } })
        }
    }

    private static func response(_ data: Data, _ response: URLResponse) throws -> HTTPResponse {
        guard let httpResponse = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        return HTTPResponse(
            statusCode: httpResponse.statusCode,
            headers: Self.headers(of: httpResponse),
            body: data
        )
    }

    // MARK: Building and reading

    private func urlRequest(for request: HTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(
            url: request.url,
            cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: timeout
        )
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    private static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            headers[name] = (value as? String) ?? String(describing: value)
        }
        return headers
    }

    private static func appliedTimeout(_ timeout: TimeInterval) -> TimeInterval {
        let positive = timeout.isFinite && timeout > 0 ? timeout : defaultTimeout
        #if canImport(FoundationNetworking)
            // FoundationNetworking truncates the timeout to whole seconds, so 0.5 s would time out at once.
            return positive.rounded(.up)
        #else
            return positive
        #endif
    }

    private static func prepared(_ configuration: URLSessionConfiguration, timeout: TimeInterval)
        -> URLSessionConfiguration
    {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        copy.httpShouldSetCookies = false
        copy.httpCookieAcceptPolicy = .never
        copy.httpCookieStorage = nil
        copy.urlCache = nil
        copy.urlCredentialStorage = nil
        copy.requestCachePolicy = .reloadIgnoringLocalCacheData
        copy.timeoutIntervalForRequest = timeout
        return copy
    }
}

// MARK: - Session

/// Owns the `URLSession` of a transport and its copies, and invalidates it when they are all gone.
///
/// A `URLSession` keeps its delegate, and itself, alive until it is invalidated; the owner lets
/// the session go once no transport can use it any more. Requests in flight finish first.
///
/// The session is made by the first request, not with the transport: making one costs a few
/// milliseconds, and an app that starts with a stored session and a cached token sends nothing.
private final class SessionOwner: Sendable {
    private let state: Locked<Lazy>
    private let delegate = URLSessionTransport.SessionDelegate()

    /// The configuration (`nil`: the default one, made then) until the session is made, then the
    /// session.
    private enum Lazy: @unchecked Sendable {
        // @unchecked: the configuration is a private copy, read once, under the owner's lock, to
        // make the session; nothing else holds it.
        case configuration(URLSessionConfiguration?)
        case session(URLSession)
    }

    /// Makes the default configuration, at the first request.
    private let makeDefault: @Sendable () -> URLSessionConfiguration

    init(
        configuration: URLSessionConfiguration?, default makeDefault: @escaping @Sendable () -> URLSessionConfiguration
    ) {
        state = Locked(.configuration(configuration))
        self.makeDefault = makeDefault
    }

    deinit {
        if case .session(let session) = state.current { session.finishTasksAndInvalidate() }
    }

    /// The session, made on first use.
    private var session: URLSession {
        state.withLock { state in
            switch state {
            case .session(let session):
                return session
            case .configuration(let configuration):
                // The delegate is the session's, not a task's: FoundationNetworking asks only the
                // session's delegate about redirects.
                let session = URLSession(
                    configuration: configuration ?? makeDefault(), delegate: delegate, delegateQueue: nil)
                state = .session(session)
                return session
            }
        }
    }

    /// Runs one data task for `request` and returns its body and response.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled, before or while the data
    ///   task runs (the data task is then cancelled); otherwise the error the data task ends with.
    func load(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let exchange = URLSessionTransport.Exchange()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard exchange.begin(continuation) else { return }
                run(request, in: exchange)
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    /// Starts one data task for `request`; `completion` gets its body and response, or its error,
    /// or `CancellationError` once the returned closure was called.
    func start(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<(Data, URLResponse), any Error>) -> Void
    ) -> @Sendable () -> Void {
        let exchange = URLSessionTransport.Exchange()
        if exchange.begin(completion) { run(request, in: exchange) }
        return { exchange.cancel() }
    }

    private func run(_ request: URLRequest, in exchange: URLSessionTransport.Exchange) {
        let task = session.dataTask(with: request)
        delegate.register(exchange, for: task)
        if exchange.attach(task) {
            task.resume()
        } else {
            delegate.unregister(task)
        }
    }
}
