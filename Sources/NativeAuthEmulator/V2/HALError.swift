import Foundation
import NativeAuth

/// An error answer of a Native Auth V2 HAL endpoint (Docs/NativeAuthV2Protocol.md, "Errors"), before it is
/// written: the nested shape `{"error":{"code","message","timestamp","traceId","correlationId",
/// "innerError":{"code"}}}`, with the `AADSTS` number at the start of `message`.
struct HALError: Error, Sendable, Equatable {
    var status = 400
    /// `error.code`, camelCase.
    var code: String
    /// `error.innerError.code`, when there is one.
    var innerCode: String?
    /// The `AADSTS` number `message` starts with.
    var aadsts: Int
    /// The message without its `AADSTSnnnnn: ` prefix.
    var message: String
    /// `error.innerError.details`, written only with an `innerCode`.
    var details: [HALErrorDetail] = []

    init(_ code: String, inner: String? = nil, aadsts: Int, _ message: String) {
        self.code = code
        self.innerCode = inner
        self.aadsts = aadsts
        self.message = message
    }
}

// MARK: - The catalogue

extension HALError {
    static func malformed(_ reason: String) -> HALError {
        HALError("invalidRequest", aadsts: 90100, "The request is not valid: \(reason).")
    }

    static func missing(_ name: String) -> HALError {
        HALError("invalidRequest", aadsts: 90100, "The request body must contain a non-empty string '\(name)'.")
    }

    /// An unknown, spent or foreign continuation token, or one that does not allow the step.
    static func invalidContinuationToken(_ reason: String) -> HALError {
        HALError(
            "invalidRequest", inner: "invalidContinuationToken", aadsts: 55000,
            "The continuation token is not valid: \(reason).")
    }

    static let expiredContinuationToken = HALError(
        "expiredToken", inner: "invalidContinuationToken", aadsts: 552003,
        "The continuation token is expired. Start the flow again.")

    static let userNotFound = HALError(
        "userNotFound", aadsts: 50034, "The user account {EmailHidden} does not exist in the directory.")

    static let invalidOneTimeCode = HALError(
        "invalidGrant", inner: "invalidOneTimeCode", aadsts: 50184, "The code is incorrect or no longer valid.")

    static let invalidUserNameOrPassword = HALError(
        "invalidGrant", inner: "invalidUserNameOrPassword", aadsts: 50126,
        "Error validating credentials due to invalid username or password.")

    static let unknownMethod = HALError(
        "invalidRequest", aadsts: 90100, "No authentication method of this step has this type and id.")
}

extension TenantState {
    /// The answer for `error`: JSON, with the trace and correlation ids and the timestamp the
    /// flat OAuth errors carry, under their camelCase names.
    mutating func halErrorResponse(_ error: HALError, call: Call) -> HTTPResponse {
        let traceId = Encoding.randomUUID(from: random)
        let correlationId = call.correlationId ?? Encoding.randomUUID(from: random)
        let timestamp = Encoding.errorTimestamp(call.now)
        var object: JSONObject = [
            "code": .string(error.code),
            "message": .string(
                "AADSTS\(error.aadsts): \(error.message) Trace ID: \(traceId) Correlation ID: \(correlationId) "
                    + "Timestamp: \(timestamp)"),
            "timestamp": .string(timestamp),
            "traceId": .string(traceId),
            "correlationId": .string(correlationId),
        ]
        if let inner = error.innerCode {
            var innerError: JSONObject = ["code": .string(inner)]
            if !error.details.isEmpty { innerError["details"] = .array(error.details.map { .object($0.json) }) }
            object["innerError"] = .object(innerError)
        }
        return jsonResponse(status: error.status, body: ["error": .object(object)], call: call)
    }
}
