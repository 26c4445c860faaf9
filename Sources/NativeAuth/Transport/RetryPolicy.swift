import Foundation

/// When the ``RequestPipeline`` sends a request again by itself. A retry must never repeat an
/// action the server may already have carried out: a code checked, a password set, a refresh token
/// redeemed. The native API's requests retry as below; the web client's are sent once
/// (``never``).
///
/// - A 429 or 503 answer means the server did not process the request: one retry after its
///   `Retry-After` (seconds or an HTTP date; 1 s when absent), unless that is longer than
///   `maximumWait`, then the error is returned at once.
/// - No connection could be made (host unreachable or unknown, no network at all): the request
///   never left, so one retry after 1 s.
/// - Reads that change nothing (`introspect`, `poll_completion`): one retry after 1 s on a 500, 502 or 504 answer, a timeout or a dropped connection.
/// - Everything else (a timeout or dropped connection on a step that acts, any other status)
///   is returned to the app; the state stays usable, so the user can try again.
struct RetryPolicy: Sendable {
    let clock: any NativeAuthClock
    /// The longest `Retry-After` the SDK waits for.
    let maximumWait: TimeInterval
    /// How many times a request is sent at most: 2 (one retry) for the native API; 1 for the web
    /// client, which, like other OpenID Connect clients, reports every failure to the app.
    let maximumAttempts: Int

    init(clock: any NativeAuthClock, maximumWait: TimeInterval, maximumAttempts: Int = 2) {
        self.clock = clock
        self.maximumWait = maximumWait
        self.maximumAttempts = maximumAttempts
    }

    /// No retry: every request is sent once.
    static let never = RetryPolicy(clock: SystemClock(), maximumWait: 0, maximumAttempts: 1)

    static let notSentCodes: [URLError.Code] = [
        .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
    ]
    static let ambiguousCodes: [URLError.Code] = [.timedOut, .networkConnectionLost]
    /// The seconds to wait before sending a request again after `outcome`, or `nil` for no retry.
    /// `readOnly`: the request changes nothing at the server.
    func delay(after outcome: Result<HTTPResponse, RequestPipeline.Failure>, readOnly: Bool) -> TimeInterval? {
        switch outcome {
        case .failure(.noAnswer(let error)):
            guard let code = (error as? URLError)?.code else { return nil }
            if Self.notSentCodes.contains(code) { return 1 }
            if Self.ambiguousCodes.contains(code), readOnly { return 1 }
            return nil
        case .failure(.timedOut):
            return readOnly ? 1 : nil
        case .failure(.cancelled):
            return nil
        case .failure(.tooLarge(let response, _)):
            // The status still says whether the server processed the request.
            return delay(after: .success(response), readOnly: readOnly)
        case .success(let response):
            switch response.statusCode {
            case 429, 503:
                let wait =
                    response.header("Retry-After").flatMap { header -> TimeInterval? in
                        if let seconds = Int(decimal: header.trimmingCharacters(in: .whitespaces)) {
                            return TimeInterval(max(0, seconds))
                        }
                        return HTTPDate.parse(header).map { max(0, $0.timeIntervalSince(clock.now())) }
                    } ?? 1
                return wait <= maximumWait ? wait : nil
            case 500, 502, 504:
                return readOnly ? 1 : nil
            default:
                return nil
            }
        }
    }
}
