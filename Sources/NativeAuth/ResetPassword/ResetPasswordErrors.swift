import Foundation

/// Why ``NativeAuthClient/resetPassword(_:)`` failed.
public struct ResetPasswordStartError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The user signs in without a password, so there is none to reset (`invalid_request`, 500222).
    public var isUserDoesNotHavePassword: Bool { kind == .userHasNoPassword }
    /// The username is empty or not valid.
    public var isInvalidUsername: Bool { kind == .invalidUsername }

    static var naming: ErrorNaming { ErrorNaming([.userNotFound, .userHasNoPassword, .invalidUsername]) }

    /// ``naming`` at `start`; the code it asks for next names nothing of its own.
    static func naming(at endpoint: Endpoint) -> ErrorNaming { endpoint == .resetPasswordStart ? naming : .none }
}

/// Why sign-in after a password reset failed.
public struct SignInAfterResetPasswordError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The password was changed, but the server gave no token to sign in with: ask the user to
    /// sign in with the new password.
    public var isSignInUnavailable: Bool { kind == .signInUnavailable }

    static var naming: ErrorNaming { ErrorNaming([.userNotFound]) }
}
