import Foundation

/// When the SDK sends a request again by itself. A retry must never repeat an action the server
/// may already have carried out: a code checked, a password set, a refresh token redeemed.
///
/// - A 429 or 503 answer means the server did not process the request: one retry after its
///   `Retry-After` (seconds or an HTTP date; 1 s when absent), unless that is longer than
///   `maximumWait`, then the error is returned at once.
/// - No connection could be made (host unreachable or unknown, no network at all): the request
///   never left, so one retry after 1 s.
/// - Reads that change nothing (`introspect`, `poll_completion`): one retry after 1 s on a
///   500, 502 or 504 answer, a timeout or a dropped connection.
/// - Everything else (a timeout or dropped connection on a step that acts, any other status)
///   is returned to the app; the state stays usable, so the user can try again.
struct RetryPolicy: Sendable {
    let clock: any NativeAuthClock
    /// The longest `Retry-After` the SDK waits for.
    let maximumWait: TimeInterval
    /// One retry at most.
    let maximumAttempts = 2

    static let notSentCodes: Set<URLError.Code> = [
        .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
    ]
    static let ambiguousCodes: Set<URLError.Code> = [.timedOut, .networkConnectionLost]
    static let idempotent: Set<Endpoint> = [.signInIntrospect, .registerIntrospect, .resetPasswordPollCompletion]

    /// The seconds to wait before retrying after `failure`, or `nil` for no retry.
    func delay(after failure: WireFailure, endpoint: Endpoint) -> TimeInterval? {
        switch failure {
        case .transport(let error, _):
            guard let code = (error as? URLError)?.code else { return nil }
            if Self.notSentCodes.contains(code) { return 1 }
            if Self.ambiguousCodes.contains(code), Self.idempotent.contains(endpoint) { return 1 }
            return nil
        case .unexpected(let answer):
            switch answer.status {
            case 429?, 503?:
                let wait =
                    answer.retryAfterHeader.flatMap { header -> TimeInterval? in
                        if let seconds = Int(header.trimmingCharacters(in: .whitespaces)) {
                            return TimeInterval(max(0, seconds))
                        }
                        return HTTPDate.parse(header).map { max(0, $0.timeIntervalSince(clock.now())) }
                    } ?? 1
                return wait <= maximumWait ? wait : nil
            case 500?, 502?, 504?:
                return Self.idempotent.contains(endpoint) ? 1 : nil
            default:
                return nil
            }
        case .cancelled, .server, .redirect:
            return nil
        }
    }
}
