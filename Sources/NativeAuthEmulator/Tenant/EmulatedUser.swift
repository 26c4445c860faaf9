public import Foundation

/// A user account of an ``EmulatedTenant``.
///
/// Add users with ``EmulatedTenant/addUser(_:)``; read their current state (after a sign-up, a
/// password reset or a method registration) with ``EmulatedTenant/user(named:)``.
public struct EmulatedUser: Sendable, Equatable {
    /// The sign-in name: an email address. Matched case-insensitively.
    public var username: String
    /// The password, or `nil` for a passwordless account that signs in with an email code only.
    public var password: String?
    /// Profile attributes such as `displayName`, `givenName`, `surname` or `city`.
    public var attributes: [String: String]
    /// The strong-authentication methods the user has registered for MFA. When not empty, every
    /// sign-in asks for a second factor.
    public var mfaMethods: [EmulatedAuthMethod]
    /// Whether the user must register a strong-authentication method during the next sign-in.
    public var requiresMethodRegistration: Bool
    /// Earlier passwords, oldest first. A password reset refuses these (and the current password)
    /// with `password_recently_used`.
    public var passwordHistory: [String]
    /// Whether the user can sign in only through the browser, as a user of a social or federated
    /// identity would. Native sign-in (`oauth2/v2.0/initiate`, and a later `challenge`) and
    /// password reset (`resetpassword/v1.0/start`) then answer `challenge_type: redirect`; sign-up
    /// with the username answers `user_already_exists` as for any existing user; browser sign-in
    /// (`oauth2/v2.0/authorize`) and refresh work as usual.
    public var requiresBrowser: Bool

    /// Creates a user.
    ///
    /// - Parameters:
    ///   - username: The email address the user signs in with.
    ///   - password: The password; `nil` makes the account passwordless (email code only).
    ///   - attributes: Profile attributes such as `displayName`.
    ///   - mfaMethods: Registered second-factor methods; when not empty, sign-in requires MFA.
    ///   - requiresMethodRegistration: Whether sign-in requires registering a method first.
    ///   - passwordHistory: Earlier passwords that a reset must not reuse.
    ///   - requiresBrowser: Whether the user can sign in only through the browser.
    public init(
        username: String, password: String? = nil, attributes: [String: String] = [:],
        mfaMethods: [EmulatedAuthMethod] = [], requiresMethodRegistration: Bool = false,
        passwordHistory: [String] = [], requiresBrowser: Bool = false
    ) {
        self.username = username
        self.password = password
        self.attributes = attributes
        self.mfaMethods = mfaMethods
        self.requiresMethodRegistration = requiresMethodRegistration
        self.passwordHistory = passwordHistory
        self.requiresBrowser = requiresBrowser
    }
}

/// A strong-authentication method of an ``EmulatedUser``: where MFA codes are sent.
public struct EmulatedAuthMethod: Sendable, Equatable {
    /// The method id the client sends back on `oauth2/v2.0/challenge` (`id`).
    public var id: String
    /// The channel: `"email"` or `"sms"`.
    public var channel: String
    /// The email address or phone number codes go to.
    public var address: String

    /// Creates a method.
    ///
    /// - Parameters:
    ///   - id: The method id, unique for the user.
    ///   - channel: `"email"` or `"sms"`.
    ///   - address: The email address or phone number codes are sent to.
    public init(id: String, channel: String, address: String) {
        self.id = id
        self.channel = channel
        self.address = address
    }
}

/// A one-time code the emulated tenant "sent": it lands in ``EmulatedTenant/outbox`` instead of a
/// mailbox or phone.
public struct SentCode: Sendable, Equatable {
    /// The email address or phone number the code was sent to.
    public let to: String
    /// The code itself.
    public let code: String
    /// Why it was sent: `"signIn"`, `"signUp"`, `"resetPassword"`, `"mfa"` or `"registration"`.
    public let purpose: String
    /// When it was sent, on the tenant's clock.
    public let sentAt: Date

    /// Creates a record of a sent code.
    public init(to: String, code: String, purpose: String, sentAt: Date) {
        self.to = to
        self.code = code
        self.purpose = purpose
        self.sentAt = sentAt
    }
}
