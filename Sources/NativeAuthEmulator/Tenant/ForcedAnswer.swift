public import Foundation

/// An answer that ``EmulatedTenant/force(_:on:times:)`` makes an endpoint give instead of its
/// real one, to test how a client copes with errors, browser-required answers, odd bodies and
/// lost connections.
///
/// A forced answer changes nothing in the tenant: no flow moves, no code is sent.
public enum ForcedAnswer: Sendable, Equatable {
    /// A JSON error body with the standard shape (`error`, `error_description`, `error_codes`,
    /// `suberror`, `timestamp`, `trace_id`, `correlation_id`).
    ///
    /// - Parameters:
    ///   - error: The `error` value, such as `"invalid_client"` or `"server_error"`.
    ///   - suberror: The `suberror`, omitted when `nil`.
    ///   - codes: The `error_codes`.
    ///   - description: The `error_description`; a default one names the error and first code.
    ///   - status: The HTTP status code.
    case error(String, suberror: String? = nil, codes: [Int] = [], description: String? = nil, status: Int = 400)
    /// A 200 `{"challenge_type":"redirect","redirect_reason":…}`: the browser is required.
    case redirect(reason: String = "The tenant requires a browser-based sign-in.")
    /// Exactly this response, with no header added: for HTML error pages, 5xx, 429, broken JSON.
    case raw(status: Int, headers: [String: String], body: Data)
    /// No response at all: ``EmulatedTenant/send(_:)`` throws `URLError(.networkConnectionLost)`.
    case networkFailure
    /// No response in time: `URLError(.timedOut)`; the request was not processed.
    case timeout
    /// The connection could not be made: `URLError(.cannotConnectToHost)`; nothing was processed.
    case cannotConnect
    /// 429 Too Many Requests with a JSON error body and, when given, a `Retry-After` header in
    /// seconds; the request was not processed.
    case tooManyRequests(retryAfter: Int? = nil)
    /// 503 Service Unavailable with an HTML page and, when given, a `Retry-After` header.
    case serviceUnavailable(retryAfter: Int? = nil)
    /// The request is processed as usual (codes are sent, flows move), then the connection drops
    /// before the answer arrives: `URLError(.networkConnectionLost)`.
    case lostAfterProcessing
    /// The request is processed as usual, then only the first `keepingBytes` of the answer's body arrive.
    case truncatedAfterProcessing(keepingBytes: Int)
}
