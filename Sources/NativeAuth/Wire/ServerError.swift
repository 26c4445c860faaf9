import Foundation

/// A documented error answer of the API (the error body of PROTOCOL.md), decoded leniently:
/// every field but `error` may be missing, and unknown values are kept as they came.
struct ServerError: Sendable, Equatable {
    let status: Int
    let error: String
    let suberror: String?
    let errorCodes: [Int]
    let errorDescription: String?
    let errorURI: String?
    let traceId: String?
    let correlationId: String?
    let timestamp: String?
    let continuationToken: Secret?
    let requiredAttributes: [WireRequiredAttribute]
    let invalidAttributes: [String]
    let unverifiedAttributes: [String]

    /// Decodes an error body; `nil` when `object` has no string `error`.
    init?(status: Int, object: WireObject) {
        guard let error = object.string("error"), !error.isEmpty else { return nil }
        self.status = status
        self.error = error
        suberror = object.string("suberror").flatMap { $0.isEmpty ? nil : $0 }
        errorCodes = object.intList("error_codes")
        errorDescription = object.string("error_description")
        errorURI = object.string("error_uri")
        traceId = object.string("trace_id")
        correlationId = object.string("correlation_id")
        timestamp = object.string("timestamp")
        continuationToken = object.string("continuation_token").flatMap { $0.isEmpty ? nil : Secret($0) }
        requiredAttributes = (object.array("required_attributes") ?? []).compactMap(WireRequiredAttribute.init)
        invalidAttributes = object.attributeNames("invalid_attributes")
        unverifiedAttributes = object.attributeNames("unverified_attributes")
    }

    func isError(_ value: String) -> Bool { error.caseInsensitiveCompare(value) == .orderedSame }
    func isSuberror(_ value: String) -> Bool { suberror?.caseInsensitiveCompare(value) == .orderedSame }
    func hasCode(_ code: Int) -> Bool { errorCodes.contains(code) }

    /// The app is misconfigured: not a public client, native auth off, unknown or confidential client.
    var isConfigurationError: Bool {
        isError("invalid_client") || isError("unauthorized_client") || isSuberror("nativeauthapi_disabled")
            || hasCode(550022) || hasCode(700016)
    }

    /// An error answer that consumes the continuation token and moves the flow on to another step
    /// (a second factor, method registration, a password or attributes at sign-up).
    var movesFlow: Bool {
        continuationToken != nil
            && ["mfa_required", "registration_required", "credential_required", "attributes_required"].contains {
                isError($0) || isSuberror($0)
            }
    }

    /// The continuation token is unknown, used up or expired: the flow cannot go on.
    var isInvalidContinuationToken: Bool {
        isError("invalid_request") && [55000, 55200, 55112, 552003].contains(where: hasCode)
    }

    /// The password was refused by the tenant's password policy, with the specific reason.
    var passwordPolicyViolation: PasswordPolicyViolation? {
        guard let suberror, suberror.lowercased().hasPrefix("password_") else { return nil }
        return PasswordPolicyViolation(wire: suberror)
    }
}

/// A required user attribute, as the server describes it.
struct WireRequiredAttribute: Sendable, Equatable {
    let name: String
    let type: String?
    let required: Bool
    let regex: String?

    init?(_ value: JSONValue) {
        guard let object = value.objectValue.map(WireObject.init), let name = object.string("name"), !name.isEmpty
        else { return nil }
        self.name = name
        type = object.string("type")
        required = object.bool("required") ?? true
        regex = object.object("options")?.string("regex")
    }
}
