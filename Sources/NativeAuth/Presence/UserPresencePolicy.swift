public import Foundation

/// How long a person's confirmation (Face ID, Touch ID, the device passcode, or whatever the
/// app's ``UserPresenceChecker`` asks for) releases the stored refresh token.
///
/// Only a refresh needs a confirmation: a cached access token that is still valid is handed out
/// without one. Concurrent calls that need the same refresh share one confirmation, and a
/// confirmation under way serves every refresh that waits for one meanwhile. A failed or
/// cancelled confirmation never counts. A sign-in is not a confirmation: the first refresh of
/// every session asks.
///
/// Confirmations are kept in memory, by the client: a new client (after a relaunch, say) asks
/// again under every policy. Time is read from the configuration's ``NativeAuthClock``; a
/// confirmation dated in the future (the clock was set back) does not count.
@nonexhaustive
public enum UserPresencePolicy: Sendable, Equatable, CustomStringConvertible {
    /// Every refresh asks for a confirmation.
    case always
    /// A confirmation releases the refresh token for `timeout` seconds from the moment it was
    /// given, within the session it was given in: a sign-out, a new sign-in or an account
    /// replaced by another client on the same store ends it before the timeout.
    case session(timeout: TimeInterval)
    /// A confirmation releases the refresh token for `timeout` seconds from the moment it was
    /// given, for this client (so for this launch of the app), whoever is signed in: a sign-out
    /// does not end it. A timeout of `.infinity` means for as long as the client lives.
    case appLaunch(timeout: TimeInterval = 3_600)

    /// The policy and its timeout.
    public var description: String {
        switch self {
        case .always: "always"
        case .session(let timeout): "session(timeout: \(timeout))"
        case .appLaunch(let timeout): "appLaunch(timeout: \(timeout))"
        }
    }

    /// Whether a confirmation given at `confirmedAt`, in the session `confirmedIn`, still releases
    /// the refresh token at `now` in the session `session`. A timeout that is not positive, or
    /// not a number, makes every refresh ask.
    func stillCounts(confirmedAt: Date, confirmedIn: String?, now: Date, session: String?) -> Bool {
        let elapsed = now.timeIntervalSince(confirmedAt)
        switch self {
        case .always:
            return false
        case .session(let timeout):
            return confirmedIn == session && elapsed >= 0 && elapsed < timeout
        case .appLaunch(let timeout):
            return elapsed >= 0 && elapsed < timeout
        }
    }
}

/// What a client asks before it releases the stored refresh token: when (``policy``), how
/// (``checker``) and with what words (``reason``).
///
/// ```swift
/// configuration.userPresence = UserPresenceRequirement(
///     policy: .session(timeout: 300), reason: "Confirm it is you to stay signed in",
///     checker: LocalAuthenticationPresenceChecker())
/// ```
public struct UserPresenceRequirement: Sendable, CustomStringConvertible {
    /// When a refresh needs a new confirmation.
    public var policy: UserPresencePolicy
    /// The text the checker shows the person (LocalAuthentication's `localizedReason`). Empty
    /// text is replaced by a default sentence, since LocalAuthentication refuses it.
    public var reason: String {
        didSet { reason = Self.usable(reason) }
    }
    /// Asks the person to confirm: LocalAuthentication on Apple platforms, or the app's own.
    public var checker: any UserPresenceChecker

    /// The sentence used when ``reason`` is empty.
    public static let defaultReason = "Confirm it is you to stay signed in."

    /// A requirement.
    ///
    /// - Parameters:
    ///   - policy: when a refresh needs a new confirmation.
    ///   - reason: the text shown to the person; empty text is replaced by ``defaultReason``.
    ///   - checker: what asks the person.
    public init(policy: UserPresencePolicy, reason: String, checker: any UserPresenceChecker) {
        self.policy = policy
        self.reason = Self.usable(reason)
        self.checker = checker
    }

    /// The policy and the checker's type; not the reason.
    public var description: String { "UserPresenceRequirement(policy: \(policy), checker: \(type(of: checker)))" }

    private static func usable(_ reason: String) -> String {
        reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? defaultReason : reason
    }
}
