/// Why the tenant's password policy refused a password.
public enum PasswordPolicyViolation: Sendable, Hashable, CustomStringConvertible {
    /// Too weak: not enough kinds of characters (`password_too_weak`).
    case tooWeak
    /// Shorter than the minimum, 8 characters (`password_too_short`).
    case tooShort
    /// Longer than the maximum, 256 characters (`password_too_long`).
    case tooLong
    /// Used recently by this user (`password_recently_used`).
    case recentlyUsed
    /// On the tenant's banned list (`password_banned`).
    case banned
    /// Holds characters that are not allowed (`password_is_invalid`).
    case invalid
    /// A reason this version of the SDK does not know, with the server's suberror.
    case other(String)

    init(wire: String) {
        switch wire.lowercased() {
        case "password_too_weak": self = .tooWeak
        case "password_too_short": self = .tooShort
        case "password_too_long": self = .tooLong
        case "password_recently_used": self = .recentlyUsed
        case "password_banned": self = .banned
        case "password_is_invalid": self = .invalid
        default: self = .other(wire)
        }
    }

    /// The reason in plain language.
    public var description: String {
        switch self {
        case .tooWeak: "the password is too weak"
        case .tooShort: "the password is too short"
        case .tooLong: "the password is too long"
        case .recentlyUsed: "the password was used recently"
        case .banned: "the password is not allowed"
        case .invalid: "the password holds characters that are not allowed"
        case .other(let suberror): "the password was refused (\(suberror))"
        }
    }
}
