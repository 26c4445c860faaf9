import Foundation

/// How the SDK reads a server error: the one place where `error`, `suberror`, `error_codes`
/// and `error_description` values are matched.
///
/// Rules, as Microsoft's own clients read the same answers:
/// - Only the **first** error code counts (`error_codes[0]`); codes further down the list are
///   detail, never an outcome.
/// - A code counts only under the `error` it belongs to: 50034 under `invalid_request` is not
///   "user not found".
/// - A wrong password is `invalid_grant` with first code 50126 and no suberror, nothing else.
extension ServerError {
    /// The first error code, the only one the SDK classifies by.
    var firstCode: Int? { errorCodes.first }

    func isError(_ value: String) -> Bool { error.caseInsensitiveCompare(value) == .orderedSame }
    func isSuberror(_ value: String) -> Bool { suberror?.caseInsensitiveCompare(value) == .orderedSame }
    /// `error` is `value` and the first error code is one of `codes`.
    func isError(_ value: String, firstCodeIn codes: Set<Int>) -> Bool {
        isError(value) && firstCode.map(codes.contains) == true
    }
    /// `error` or `suberror` is `value`.
    func names(_ value: String) -> Bool { isError(value) || isSuberror(value) }

    // MARK: Every step

    /// The app is misconfigured: not a public client, native auth off, unknown or confidential
    /// client, or a `client_id` the server calls not valid (90100 about `client_id`).
    var isConfigurationError: Bool {
        isError("invalid_client") || isError("unauthorized_client") || isSuberror("nativeauthapi_disabled")
            || firstCode == 550022 || firstCode == 700016
            || (isError("invalid_request", firstCodeIn: [90100]) && describes("client_id"))
    }

    /// The continuation token is unknown, used up or expired: the flow cannot go on.
    var isInvalidContinuationToken: Bool {
        isError("expired_token") || isError("invalid_request", firstCodeIn: [55000, 55200, 55112, 552003])
    }

    /// No such user (`user_not_found`, or 50034 first on the token endpoint's `invalid_grant`).
    var isUserNotFound: Bool { isError("user_not_found") || isError("invalid_grant", firstCodeIn: [50034]) }

    /// A user with this username exists (`user_already_exists`).
    var isUserAlreadyExists: Bool { isError("user_already_exists") }

    /// The username is empty or not valid: 90100 first, with a description about the username
    /// (90100 is "a parameter is empty or not valid" for any parameter).
    var isInvalidUsername: Bool { isError("invalid_request", firstCodeIn: [90100]) && describes("username") }

    /// A wrong one-time code (`invalid_oob_value`, or 50181 first under `invalid_grant`).
    var isInvalidCode: Bool { isSuberror("invalid_oob_value") || isError("invalid_grant", firstCodeIn: [50181]) }

    /// An attribute must be verified first.
    var isVerificationRequired: Bool { names("verification_required") }

    /// The method or contact is blocked (`provider_blocked_by_rep`, or 550024 first).
    var isMethodBlocked: Bool { isSuberror("provider_blocked_by_rep") || firstCode == 550024 }

    /// The password was refused by the tenant's password policy, with the specific reason.
    var passwordPolicyViolation: PasswordPolicyViolation? {
        guard let suberror, suberror.lowercased().hasPrefix("password_") else { return nil }
        return PasswordPolicyViolation(wire: suberror)
    }

    /// An error answer that consumes the continuation token and moves the flow on to another step
    /// (a second factor, method registration, a password or attributes at sign-up).
    var movesFlow: Bool {
        continuationToken != nil
            && ["mfa_required", "registration_required", "credential_required", "attributes_required"].contains(
                where: names)
    }

    // MARK: Password steps

    /// What `invalid_grant` on a step that checks a password means, by its first code; `nil` for
    /// anything else. Only 50126 is a wrong password.
    var passwordStepKind: ErrorKind? {
        guard isError("invalid_grant"), suberror == nil, let firstCode else { return nil }
        return Self.passwordStepCodes[firstCode]
    }

    static let passwordStepCodes: [Int: ErrorKind] = [
        50126: .invalidCredentials,
        50053: .accountLocked,
        50057: .accountDisabled,
        50055: .passwordExpired,
        50142: .passwordChangeRequired,
        50133: .passwordChangeRequired,
        50132: .passwordChangeRequired,
        50076: .strongAuthenticationRequired,
        50079: .strongAuthenticationRequired,
    ]

    // MARK: Refresh

    /// What a refused refresh means: the refresh token is dead (sign the user out), or the user
    /// must interact (keep the account and its refresh token); `nil` for any other error.
    ///
    /// Dead: `bad_token` or `user_account_deleted`, or a first code of an expired, revoked or
    /// invalidated grant. Interaction: consent, multi-factor or conditional access, a claims
    /// challenge, `interaction_required`, and any other `invalid_grant`.
    var refreshKind: ErrorKind? {
        let grantError = isError("invalid_grant") || isError("expired_token") || isError("interaction_required")
        guard grantError || isError("consent_required") || isError("login_required") else { return nil }
        if isSuberror("bad_token") || isSuberror("user_account_deleted")
            || (grantError && firstCode.map(Self.deadGrantCodes.contains) == true)
        {
            return .refreshTokenExpired
        }
        return .interactionRequired
    }

    static let deadGrantCodes: Set<Int> = [70008, 700082, 70043, 50173, 50132, 50133, 70000]

    // MARK: Helpers

    /// Whether the description names `parameter` (case-insensitive).
    private func describes(_ parameter: String) -> Bool {
        errorDescription?.range(of: parameter, options: .caseInsensitive) != nil
    }
}
