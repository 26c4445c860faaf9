import Foundation

/// Why a ``UserPresenceChecker`` gave no confirmation.
///
/// A checker throws one of the static values (`throw UserPresenceError.cancelled`);
/// `getAccessToken` reports it as a `RetrieveAccessTokenError` whose `isUserPresenceCancelled`,
/// `isUserPresenceLockedOut`, … answers, with this error in `details.underlyingError`. None of
/// them signs the user out or removes a credential.
public struct UserPresenceError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Reason: Sendable, Equatable {
        case cancelled, lockedOut, notEnrolled, unavailable, failed, biometryChanged
    }

    let reason: Reason
    /// What the platform reported, such as LocalAuthentication's `LAError`; `nil` for the static
    /// values. Not compared by `==`.
    public let underlyingError: (any Error)?

    init(_ reason: Reason, underlyingError: (any Error)? = nil) {
        self.reason = reason
        self.underlyingError = underlyingError
    }

    /// The person cancelled the prompt, or the app or the system did (another app came to the
    /// front, the screen locked).
    public static let cancelled = UserPresenceError(.cancelled)
    /// Biometry is locked after too many failed attempts; the device passcode unlocks it.
    public static let lockedOut = UserPresenceError(.lockedOut)
    /// The device can check biometry, but no face or finger is enrolled.
    public static let notEnrolled = UserPresenceError(.notEnrolled)
    /// The device cannot confirm the person now: no biometry, no passcode set, or no prompt
    /// can be shown.
    public static let unavailable = UserPresenceError(.unavailable)
    /// The person was not recognised.
    public static let failed = UserPresenceError(.failed)
    /// The enrolled biometrics changed since this session's first confirmation (a face or a
    /// finger was added or removed): the person must sign in again.
    public static let biometryChanged = UserPresenceError(.biometryChanged)

    /// Equal when the reason is the same; what the platform reported is not compared.
    public static func == (lhs: UserPresenceError, rhs: UserPresenceError) -> Bool { lhs.reason == rhs.reason }

    /// The reason in plain language.
    public var description: String { "UserPresenceError: " + Self.sentence(reason) }

    static func sentence(_ reason: Reason) -> String {
        switch reason {
        case .cancelled: "The confirmation of the user's presence was cancelled; the account is kept."
        case .lockedOut: "Biometry is locked after too many failed attempts; the account is kept."
        case .notEnrolled: "No biometry is enrolled on the device; the account is kept."
        case .unavailable: "The device cannot confirm the user's presence now; the account is kept."
        case .failed: "The user was not recognised; the account is kept."
        case .biometryChanged:
            "The enrolled biometrics changed since the session's first confirmation; the user must sign in again. The account is kept."
        }
    }
}

extension UserPresenceError {
    /// The reason for a LocalAuthentication failure, from its `LAError.Code` raw value (`nil`
    /// when the error is not a LocalAuthentication error). Kept here, apart from the framework,
    /// so that it runs in the tests on every platform; the raw values are those of the framework's
    /// `kLAError…` constants, checked against `LAError.Code` by a test on Apple platforms.
    ///
    /// - https://developer.apple.com/documentation/localauthentication/laerror-swift.struct/code
    init(localAuthenticationCode code: Int?, underlyingError: (any Error)?) {
        let reason: Reason
        switch code {
        case LocalAuthenticationCode.userCancel, LocalAuthenticationCode.appCancel,
            LocalAuthenticationCode.systemCancel, LocalAuthenticationCode.userFallback,
            LocalAuthenticationCode.invalidContext:
            reason = .cancelled
        case LocalAuthenticationCode.biometryLockout:
            reason = .lockedOut
        case LocalAuthenticationCode.biometryNotEnrolled:
            reason = .notEnrolled
        case LocalAuthenticationCode.biometryNotAvailable, LocalAuthenticationCode.passcodeNotSet,
            LocalAuthenticationCode.notInteractive, LocalAuthenticationCode.companionNotAvailable,
            LocalAuthenticationCode.biometryNotPaired, LocalAuthenticationCode.biometryDisconnected,
            LocalAuthenticationCode.invalidDimensions:
            reason = .unavailable
        default:
            // authenticationFailed, a code this version does not know, or no code at all.
            reason = .failed
        }
        self.init(reason, underlyingError: underlyingError)
    }
}

/// The raw values of `LAError.Code` (the framework's `kLAError…` constants).
enum LocalAuthenticationCode {
    static let authenticationFailed = -1
    static let userCancel = -2
    /// The person chose the fallback button ("Enter Password") of a biometrics-only prompt.
    static let userFallback = -3
    static let systemCancel = -4
    static let passcodeNotSet = -5
    static let biometryNotAvailable = -6
    static let biometryNotEnrolled = -7
    static let biometryLockout = -8
    static let appCancel = -9
    /// The context was invalidated, as the SDK does when nobody waits for the prompt any more.
    static let invalidContext = -10
    static let companionNotAvailable = -11
    static let biometryNotPaired = -12
    static let biometryDisconnected = -13
    static let invalidDimensions = -14
    static let notInteractive = -1004
}
