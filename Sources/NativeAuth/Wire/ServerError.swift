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

/// Why the tenant's password policy refused a password.
public enum PasswordPolicyViolation: Sendable, Hashable, CustomStringConvertible {
    /// Too weak: not enough kinds of characters (`password_too_weak`).
    case tooWeak
    /// Shorter than the minimum, 8 characters (`password_too_short`).
    case tooShort
    /// Longer than the maximum, 256 characters (`password_too_long`).
    case tooLong
    /// Used recently by this user (`password_recently_used`).
    case recentlyUsed
    /// On the tenant's banned list (`password_banned`).
    case banned
    /// Holds characters that are not allowed (`password_is_invalid`).
    case invalid
    /// A reason this version of the SDK does not know, with the server's suberror.
    case other(String)

    init(wire: String) {
        switch wire.lowercased() {
        case "password_too_weak": self = .tooWeak
        case "password_too_short": self = .tooShort
        case "password_too_long": self = .tooLong
        case "password_recently_used": self = .recentlyUsed
        case "password_banned": self = .banned
        case "password_is_invalid": self = .invalid
        default: self = .other(wire)
        }
    }

    /// The reason in plain language.
    public var description: String {
        switch self {
        case .tooWeak: "the password is too weak"
        case .tooShort: "the password is too short"
        case .tooLong: "the password is too long"
        case .recentlyUsed: "the password was used recently"
        case .banned: "the password is not allowed"
        case .invalid: "the password holds characters that are not allowed"
        case .other(let suberror): "the password was refused (\(suberror))"
        }
    }
}
