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

    static var naming: ErrorNaming { ErrorNaming([.userNotFound, .passwordStep, .invalidUsername]) }
}

/// Why a submitted one-time code did not sign the user in.
public struct VerifyCodeError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The code is wrong, expired or empty (`invalid_grant` / `invalid_oob_value`). The state stays
    /// usable: ask for the code again.
    public var isInvalidCode: Bool { kind == .invalidCode }

    static var naming: ErrorNaming { ErrorNaming([.invalidCode, .userNotFound]) }
}

extension VerifyCodeError {
    /// A `continue` step of sign-up or password reset: a wrong code, or an attribute that must be
    /// verified first.
    static var namingContinue: ErrorNaming { ErrorNaming([.invalidCode, .userNotFound, .verificationRequired]) }

    /// Sign-in's code at the token endpoint (``naming``); sign-up's code at its `continue` step,
    /// which may also refuse attributes; the password reset's code at its `continue` step.
    static func naming(at endpoint: Endpoint) -> ErrorNaming {
        switch endpoint {
        case .signUpContinue, .signUpChallenge: .signUpContinue
        case .resetPasswordContinue: namingContinue
        case .signInIntrospect, .registerIntrospect: .none
        default: naming
        }
    }
}

/// Why a new code could not be sent.
public struct ResendCodeError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    static var naming: ErrorNaming { .none }
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

    /// A wrong password here is the password step's own error, not wrong credentials.
    static var naming: ErrorNaming {
        ErrorNaming([.passwordPolicy, .passwordStep, .userNotFound], wrongPasswordIsInvalidPassword: true)
    }

    /// ``naming``; at sign-up's `continue` step, then what that step may also hear.
    static func naming(at endpoint: Endpoint) -> ErrorNaming {
        switch endpoint {
        case .signUpContinue, .signUpChallenge: naming.otherwise(.signUpContinue)
        case .signInIntrospect, .registerIntrospect: .none
        default: naming
        }
    }
}

extension SignInStartError {
    /// The account is locked after too many failed attempts (`invalid_grant`, 50053). Not a wrong
    /// password: do not ask for it again.
    public var isAccountLocked: Bool { kind == .accountLocked }
    /// The account is disabled (`invalid_grant`, 50057).
    public var isAccountDisabled: Bool { kind == .accountDisabled }
    /// The password has expired (`invalid_grant`, 50055): the user must reset it.
    public var isPasswordExpired: Bool { kind == .passwordExpired }
    /// The user must change the password first (`invalid_grant`, 50142, 50133 or 50132).
    public var isPasswordChangeRequired: Bool { kind == .passwordChangeRequired }
    /// The tenant requires a stronger sign-in than this flow offers (`invalid_grant`, 50076 or
    /// 50079): sign in with the browser.
    public var isStrongAuthenticationRequired: Bool { kind == .strongAuthenticationRequired }
}

extension PasswordRequiredError {
    /// The account is locked after too many failed attempts (`invalid_grant`, 50053). Not a wrong
    /// password: the state is spent.
    public var isAccountLocked: Bool { kind == .accountLocked }
    /// The account is disabled (`invalid_grant`, 50057).
    public var isAccountDisabled: Bool { kind == .accountDisabled }
    /// The password has expired (`invalid_grant`, 50055): the user must reset it.
    public var isPasswordExpired: Bool { kind == .passwordExpired }
    /// The user must change the password first (`invalid_grant`, 50142, 50133 or 50132).
    public var isPasswordChangeRequired: Bool { kind == .passwordChangeRequired }
    /// The tenant requires a stronger sign-in than this flow offers (`invalid_grant`, 50076 or
    /// 50079): sign in with the browser.
    public var isStrongAuthenticationRequired: Bool { kind == .strongAuthenticationRequired }
}
