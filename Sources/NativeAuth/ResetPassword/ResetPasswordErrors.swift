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

    static func classify(_ error: ServerError) -> ErrorKind? {
        if error.isError("user_not_found") || error.hasCode(50034) { return .userNotFound }
        if error.hasCode(500222) { return .userHasNoPassword }
        if error.isError("invalid_request") && error.hasCode(90100) { return .invalidUsername }
        return nil
    }
}

/// Why sign-in after a password reset failed.
public struct SignInAfterResetPasswordError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    static func classify(_ error: ServerError) -> ErrorKind? {
        if error.isError("user_not_found") { return .userNotFound }
        return nil
    }
}
