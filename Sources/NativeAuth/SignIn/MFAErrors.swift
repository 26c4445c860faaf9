import Foundation

/// Why a multi-factor code could not be sent to the chosen method.
public struct MFARequestChallengeError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The method is blocked (`access_denied` / `provider_blocked_by_rep`, 550024); the state stays
    /// usable, so the user can choose another method.
    public var isMethodBlocked: Bool { kind == .methodBlocked }

    static var naming: ErrorNaming { ErrorNaming([.methodBlocked]) }
}

/// Why a submitted multi-factor code did not sign the user in.
public struct MFASubmitChallengeError: DetailedError {
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
