public import Foundation

/// Asks the person at the device to confirm their presence before the SDK releases the stored
/// refresh token: Face ID, Touch ID, the device passcode, or a screen of the app's own.
///
/// On iOS, macOS and visionOS, `LocalAuthenticationPresenceChecker` does this with
/// LocalAuthentication. Another platform, or another kind of confirmation, supplies its own:
///
/// ```swift
/// struct PINScreen: UserPresenceChecker {
///     func confirmPresence(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation {
///         guard await askForPIN(reason) else { throw .cancelled }
///         return UserPresenceConfirmation()
///     }
/// }
/// ```
///
/// The SDK calls it from a task of its own, once for all the refreshes waiting at the time, and
/// sets no time limit on it: a person may take their time. When every caller waiting for the
/// refresh is cancelled, that task is cancelled: end the prompt then (LocalAuthentication's
/// `invalidate()`); the SDK has stopped waiting already and ignores a late answer.
public protocol UserPresenceChecker: Sendable {
    /// Asks the person to confirm, showing `reason`.
    ///
    /// - Returns: the confirmation, with the enrolled biometry's state when the checker knows it.
    /// - Throws: ``UserPresenceError`` saying why there is no confirmation; it never signs the
    ///   user out.
    func confirmPresence(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation

    /// Asks the device owner to confirm with their own credential (the device passcode, or the
    /// app's own), showing `reason`: after a confirmation whose biometry state differs from the
    /// session's, reported with another ``UserPresenceConfirmation/systemVersion`` than the one the
    /// session kept. An operating system update may change the state without anyone enrolling a
    /// face or a finger; the owner's credential tells the two apart, and the new state is then kept.
    /// The default asks ``confirmPresence(reason:)`` again.
    ///
    /// - Throws: ``UserPresenceError``; the refresh is then refused, and the next one asks again.
    func confirmOwner(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation
}

extension UserPresenceChecker {
    /// Asks ``confirmPresence(reason:)`` again: a checker with no separate owner credential.
    public func confirmOwner(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation {
        try await confirmPresence(reason: reason)
    }
}

/// A person's confirmation, as a ``UserPresenceChecker`` reports it.
public struct UserPresenceConfirmation: Sendable, Equatable, CustomStringConvertible {
    /// An opaque value that changes whenever the set of enrolled biometrics changes (a face or a
    /// finger added or removed), such as LocalAuthentication's `evaluatedPolicyDomainState`;
    /// `nil` when the checker cannot tell.
    ///
    /// The SDK keeps the first one a session reports with the stored account, and refuses a
    /// later confirmation of that session that reports another (``UserPresenceError/biometryChanged``)
    /// until the user signs in again.
    public var biometryState: Data?

    /// A confirmation; `biometryState` as LocalAuthentication's `evaluatedPolicyDomainState`
    /// gives it, or `nil`.
    public init(biometryState: Data? = nil) { self.biometryState = biometryState }

    /// What produced ``biometryState``: the operating system's version (and, for
    /// LocalAuthentication, the call it was read with), when the checker reports it; `nil`
    /// otherwise. A biometry state that differs from the session's is refused
    /// (``UserPresenceError/biometryChanged``) when it comes with the same `systemVersion` as the
    /// session's; with another one (an OS update, which may change the state by itself), the
    /// device owner is asked to confirm with their credential
    /// (``UserPresenceChecker/confirmOwner(reason:)``) and the new state is kept.
    public var systemVersion: String?

    /// A confirmation with the biometry state and what produced it.
    public init(biometryState: Data?, systemVersion: String?) {
        self.biometryState = biometryState
        self.systemVersion = systemVersion
    }

    /// Whether a biometry state is known; not the state itself.
    public var description: String {
        "UserPresenceConfirmation(biometryState: \(biometryState == nil ? "nil" : "<\(biometryState?.count ?? 0) bytes>"))"
    }
}
