/// A way of proving who the user is that the app's screens can handle.
public enum ChallengeType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A one-time code sent out of band, by email (or SMS).
    case oob
    /// A password.
    case password

    /// The wire name.
    public var description: String { rawValue }
}

/// A capability the app declares, letting the server continue natively where it would otherwise
/// require a browser.
public enum Capability: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The app can run the multi-factor step (``AwaitingMFAState``).
    case mfaRequired = "mfa_required"
    /// The app can register a strong authentication method during sign-in (``RegisterStrongAuthState``).
    case registrationRequired = "registration_required"

    /// The wire name.
    public var description: String { rawValue }
}

/// Where a one-time code was sent.
public enum ChannelType: Sendable, Hashable, CustomStringConvertible {
    /// An email address.
    case email
    /// A phone number, by text message.
    case sms
    /// A channel this version of the SDK does not know, with the server's name for it.
    case other(String)

    init(wire: String?) {
        switch wire?.lowercased() {
        case "email": self = .email
        case "sms": self = .sms
        case let other: self = .other(other ?? "")
        }
    }

    /// The channel's name: `email`, `sms` or the server's name.
    public var description: String {
        switch self {
        case .email: "email"
        case .sms: "sms"
        case .other(let name): name
        }
    }
}
