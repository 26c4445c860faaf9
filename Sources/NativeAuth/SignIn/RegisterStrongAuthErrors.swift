import Foundation

/// Why a strong authentication method could not be challenged for registration.
public struct RegisterStrongAuthChallengeError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The contact (email address or phone number) is empty or not valid (`invalid_request`,
    /// 901001); the state stays usable.
    public var isInvalidInput: Bool { kind == .invalidInput }
    /// The contact is blocked (`provider_blocked_by_rep`); the state stays usable.
    public var isMethodBlocked: Bool { kind == .methodBlocked }

    static var naming: ErrorNaming { ErrorNaming([.invalidContact, .methodBlocked]) }
}

/// Why a registration code did not complete sign-in.
public struct RegisterStrongAuthSubmitChallengeError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The code is wrong, expired or empty; the state stays usable.
    public var isInvalidChallenge: Bool { kind == .invalidCode }
    /// The code is wrong, expired or empty: the earlier name of ``isInvalidChallenge``, MSAL's
    /// name for this error.
    @available(*, deprecated, renamed: "isInvalidChallenge")
    public var isInvalidCode: Bool { isInvalidChallenge }

    static var naming: ErrorNaming { ErrorNaming([.invalidCode]) }
}
