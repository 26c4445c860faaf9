import Foundation

/// Why a call did not produce the answer its step expects.
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum WireFailure: Error, Sendable {
    /// The calling task was cancelled; nothing more is sent.
    case cancelled
    /// No answer: the transport (or a request interceptor) threw: no connection, timeout, reset,
    /// refusal. `endpoint` is where the request was going (a V1 endpoint, or a V2 call's name).
    case transport(any Error, endpoint: RequestEndpoint)
    /// An answer the API does not give: not JSON, wrong status, a missing field.
    case unexpected(UnexpectedAnswer)
    /// A documented error answer.
    case server(ServerError)
    /// `challenge_type: redirect`: the server needs a browser.
    case redirect(reason: String?)
}

/// What came back when the answer was not one the API gives.
struct UnexpectedAnswer: Sendable, Equatable {
    enum Problem: Sendable, Equatable {
        case status
        case emptyBody
        case notJSON
        case notAnObject
        case missingField(String)
        case unknownValue(field: String, value: String)
        /// A list the answer only makes sense with is empty (an attribute form naming no attribute).
        case emptyList(String)
        /// The body is larger than any answer of the API (``WireClient/maximumBodySize``).
        case tooLarge
    }

    var status: Int?
    var contentType: String?
    var problem: Problem
    var bodyLength: Int = 0
    /// The `Retry-After` header of a 429 or 503, as it came.
    var retryAfterHeader: String?

    @inline(never)
    init(status: Int? = nil, contentType: String? = nil, problem: Problem, bodyLength: Int = 0) {
        self.status = status
        self.contentType = contentType
        self.problem = problem
        self.bodyLength = bodyLength
    }

    /// What came back, without the body: status, content type, length and the problem.
    var summary: String {
        var text: String
        switch problem {
        case .status: text = "an unexpected HTTP status"
        case .emptyBody: text = "an empty body"
        case .notJSON: text = "a body that is not JSON"
        case .notAnObject: text = "a JSON body that is not an object"
        case .missingField(let field): text = "an answer without '\(field)'"
        case .unknownValue(let field, let value):
            text = "an unknown value '\(value.prefix(40))' for '\(field)'"
        case .emptyList(let field): text = "an answer with an empty '\(field)'"
        case .tooLarge: text = "a body larger than \(WireClient.maximumBodySize) bytes"
        }
        if let status { text += ", status \(status)" }
        if let contentType { text += ", content type \(contentType.prefix(80))" }
        if bodyLength > 0 { text += ", \(bodyLength) bytes" }
        return text
    }
}
