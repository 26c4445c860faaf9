import Foundation

/// Why ``NativeAuthClient/signIn(_:)`` failed.
public struct SignInStartError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The username is empty or not valid (checked before any request, or `invalid_request` 90100).
    public var isInvalidUsername: Bool { kind == .invalidUsername }
    /// The password given up front is empty or wrong (`invalid_grant`, 50126).
    public var isInvalidCredentials: Bool { kind == .invalidCredentials }

    static func classify(_ error: ServerError) -> ErrorKind? {
        if error.isError("user_not_found") || error.hasCode(50034) { return .userNotFound }
        if error.isError("invalid_grant") && error.hasCode(50126) { return .invalidCredentials }
        if error.isError("invalid_request") && error.hasCode(90100) { return .invalidUsername }
        return nil
    }
}

/// Why a submitted one-time code did not sign the user in.
public struct VerifyCodeError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The code is wrong, expired or empty (`invalid_grant` / `invalid_oob_value`). The state stays
    /// usable: ask for the code again.
    public var isInvalidCode: Bool { kind == .invalidCode }

    static func classify(_ error: ServerError) -> ErrorKind? {
        if error.isSuberror("invalid_oob_value") || error.hasCode(50181) { return .invalidCode }
        if error.isError("user_not_found") || error.hasCode(50034) { return .userNotFound }
        return nil
    }
}

extension VerifyCodeError {
    /// A `continue` step of sign-up or password reset: a wrong code, or an attribute that must be
    /// verified first.
    static func classifyContinue(_ error: ServerError) -> ErrorKind? {
        if let kind = classify(error) { return kind }
        if error.isError("verification_required") || error.isSuberror("verification_required") {
            return .verificationRequired
        }
        return nil
    }
}

/// Why a new code could not be sent.
public struct ResendCodeError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    static func classify(_ error: ServerError) -> ErrorKind? { nil }
}

/// Why a submitted password did not sign the user in.
public struct PasswordRequiredError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The password is wrong or empty (`invalid_grant`, 50126). The state stays usable.
    public var isInvalidPassword: Bool {
        if case .invalidPassword = kind { return true }
        return false
    }
    /// Why the tenant's password policy refused a new password (sign-up, password reset), when it did.
    public var passwordPolicyViolation: PasswordPolicyViolation? {
        if case .invalidPassword(let violation) = kind { return violation }
        return nil
    }
    /// The server could not complete the password reset; a new password may be submitted again.
    public var isPasswordResetFailed: Bool { kind == .passwordResetFailed }
    /// The server is still resetting the password (no final answer within six polls, or the wait
    /// was interrupted by a cancellation or a network failure). Calling
    /// ``ResetPasswordRequiredState/submitPassword(_:)`` again keeps waiting for that reset; the
    /// password passed then is not sent.
    public var isPasswordResetPending: Bool {
        (kind == .passwordResetPending || details.resetPending) && isStateStillUsable
    }

    static func classify(_ error: ServerError) -> ErrorKind? {
        if let violation = error.passwordPolicyViolation { return .invalidPassword(violation) }
        if error.isError("invalid_grant") && (error.hasCode(50126) || error.suberror == nil) {
            return .invalidPassword(nil)
        }
        if error.isError("user_not_found") || error.hasCode(50034) { return .userNotFound }
        return nil
    }
}
