import Foundation

/// One documented error answer of the API (Docs/Protocol.md, "Error answers"), before it is written.
///
/// Handlers throw these; the tenant turns them into a 400 (or `status`) JSON body with `timestamp`,
/// `trace_id` and `correlation_id` added.
struct APIError: Error, Sendable, Equatable {
    var status = 400
    var error: String
    var suberror: String?
    var codes: [Int]
    /// The description without its `AADSTSnnnnn: ` prefix.
    var message: String
    /// Fields after the standard ones: `continuation_token`, `required_attributes`, `invalid_attributes`.
    var extras = JSONObject()

    init(_ error: String, suberror: String? = nil, code: Int, _ message: String, extras: JSONObject = JSONObject()) {
        self.error = error
        self.suberror = suberror
        self.codes = [code]
        self.message = message
        self.extras = extras
    }

    init(forced error: String, suberror: String?, codes: [Int], description: String?, status: Int) {
        self.status = status
        self.error = error
        self.suberror = suberror
        self.codes = codes
        self.message = description ?? "The tenant was told to answer \(error)."
        self.hasCustomDescription = description != nil
    }

    /// Whether `message` is to be sent as it is, without the `AADSTS` prefix.
    var hasCustomDescription = false
    /// Written as an OAuth error answer only: `error`, `error_description` and the ``extras``, as
    /// OAuth 2.0 for First-Party Applications writes its answers (no `timestamp`, `trace_id` or
    /// `correlation_id`).
    var draftShape = false

    /// The `error_description` as sent.
    func description(traceId: String, correlationId: String, timestamp: String) -> String {
        if hasCustomDescription { return message }
        let prefix = codes.first.map { "AADSTS\($0): " } ?? ""
        return "\(prefix)\(message) Trace ID: \(traceId) Correlation ID: \(correlationId) Timestamp: \(timestamp)"
    }
}

// MARK: - The catalogue

extension APIError {
    static func invalidClient(_ clientId: String, tenant: String) -> APIError {
        APIError(
            "invalid_client", code: 700016,
            "Application with identifier '\(clientId)' was not found in the directory '\(tenant)'. This can happen "
                + "if the application has not been installed by the administrator of the tenant.")
    }

    /// Sign-up turned off (``EmulatorSettings/signUpEnabled``): the OAuth 2.0 error for a client
    /// not allowed to use the request (RFC 6749 §5.2), with no Entra code (none is documented).
    static var signUpDisabled: APIError {
        APIError(
            forced: "unauthorized_client", suberror: nil, codes: [],
            description: "The tenant does not sign new users up.", status: 400)
    }

    static func missingParameter(_ name: String) -> APIError {
        APIError(
            "invalid_request", code: 90100,
            "The request body must contain the following parameter: '\(name)'. The \(name) parameter is empty or not valid."
        )
    }

    static func invalidParameter(_ name: String, _ reason: String) -> APIError {
        APIError("invalid_request", code: 90100, "The \(name) parameter is not valid: \(reason).")
    }

    static func malformedBody(_ reason: String) -> APIError {
        APIError("invalid_request", code: 90100, "The request body is not a valid form: \(reason).")
    }

    static func unsupportedMediaType(_ contentType: String?) -> APIError {
        APIError(
            "invalid_request", code: 90100,
            "The request body must be application/x-www-form-urlencoded; got '\(contentType ?? "no Content-Type")'.")
    }

    static let redirectMissing = APIError(
        "invalid_request", code: 901007, "The challenge_type list parameter must include 'redirect'.")

    static func unsupportedChallengeType(_ values: [String]) -> APIError {
        APIError(
            "unsupported_challenge_type", code: 550015,
            "The challenge_type list contains an unsupported challenge type: \(values.joined(separator: " ")).")
    }

    static func unsupportedGrantType(_ value: String) -> APIError {
        APIError("unsupported_grant_type", code: 70003, "The app requested an unsupported grant type '\(value)'.")
    }

    static func invalidScope(_ value: String) -> APIError {
        APIError(
            "invalid_scope", code: 70011, "The provided value for the input parameter 'scope' is not valid: '\(value)'."
        )
    }

    static let userNotFound = APIError(
        "user_not_found", code: 50034, "The user account {EmailHidden} does not exist in the directory.")

    static let userAlreadyExists = APIError(
        "user_already_exists", code: 1003037,
        "It looks like you may already have an account with this email address. Please sign in instead.")

    static let noPassword = APIError(
        "invalid_request", code: 500222, "The user does not have a password and cannot reset it.")

    static let invalidCode = APIError(
        "invalid_grant", suberror: "invalid_oob_value", code: 50181, "The code is incorrect or no longer valid.")

    static let badCredentials = APIError(
        "invalid_grant", code: 50126, "Error validating credentials due to invalid username or password.")

    static func invalidContinuationToken(code: Int, _ reason: String) -> APIError {
        APIError("invalid_request", code: code, "The continuation token is not valid: \(reason).")
    }

    static func expiredToken(code: Int) -> APIError {
        APIError("expired_token", code: code, "The continuation token is expired. Start the flow again.")
    }

    static func credentialRequired(continuationToken: String) -> APIError {
        APIError(
            "credential_required", code: 55103, "A credential is required to finish sign-up.",
            extras: ["continuation_token": .string(continuationToken)])
    }

    static func attributesRequired(continuationToken: String, attributes: [EmulatedRequiredAttribute]) -> APIError {
        let list: [JSON] = attributes.map { attribute in
            var object: JSONObject = [
                "name": .string(attribute.name), "type": .string(attribute.type), "required": .bool(attribute.required),
            ]
            if let regex = attribute.regex { object["options"] = .object(["regex": .string(regex)]) }
            return .object(object)
        }
        return APIError(
            "attributes_required", code: 55106, "User attributes are required to finish sign-up.",
            extras: ["continuation_token": .string(continuationToken), "required_attributes": .array(list)])
    }

    static func attributeValidationFailed(_ names: [String]) -> APIError {
        APIError(
            "invalid_grant", suberror: "attribute_validation_failed", code: 3_000_002,
            "Attribute validation failed for: \(names.joined(separator: ", ")).",
            extras: ["invalid_attributes": .array(names.map { .object(["name": .string($0)]) })])
    }

    static func passwordPolicy(_ suberror: String, _ message: String) -> APIError {
        APIError("invalid_grant", suberror: suberror, code: 399246, message)
    }

    static func mfaRequired(continuationToken: String) -> APIError {
        APIError(
            "invalid_grant", suberror: "mfa_required", code: 50076,
            "Due to a configuration change made by your administrator, or because you moved to a new location, "
                + "you must use multi-factor authentication to access the application.",
            extras: ["continuation_token": .string(continuationToken)])
    }

    static func registrationRequired(continuationToken: String) -> APIError {
        APIError(
            "invalid_grant", suberror: "registration_required", code: 50079,
            "Due to a configuration change made by your administrator, you must register a strong "
                + "authentication method to access the application.",
            extras: ["continuation_token": .string(continuationToken)])
    }

    static let methodBlocked = APIError(
        "access_denied", suberror: "provider_blocked_by_rep", code: 550024,
        "The authentication method is blocked. Use another method or try again later.")

    static func invalidContact(_ reason: String) -> APIError {
        APIError("invalid_request", code: 901001, "The challenge target is not valid: \(reason).")
    }

    static func invalidRefreshToken(_ reason: String) -> APIError {
        APIError(
            "invalid_grant", suberror: "bad_token", code: 70008,
            "The provided value for the input parameter 'refresh_token' is not valid: \(reason).")
    }

    static let expiredRefreshToken = APIError(
        "invalid_grant", code: 700082,
        "The refresh token has expired due to inactivity. The token was issued too long ago.")
}
