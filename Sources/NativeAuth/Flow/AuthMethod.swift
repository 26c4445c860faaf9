import Foundation

/// A way the user can prove who they are in a second step (multi-factor) or register.
///
/// Its fields live in one immutable instance it shares: a method is copied into states, results
/// and delegate calls, and a copy is then one reference.
public struct AuthMethod: Sendable, Hashable, CustomStringConvertible {
    private final class Fields: Sendable {
        let id: String
        let challengeType: String
        let channelTargetType: ChannelType
        let loginHint: String

        init(id: String, challengeType: String, channelTargetType: ChannelType, loginHint: String) {
            self.id = id
            self.challengeType = challengeType
            self.channelTargetType = channelTargetType
            self.loginHint = loginHint
        }
    }

    private let fields: Fields

    /// The server's id for the method, sent back to choose it.
    public var id: String { fields.id }
    /// The challenge type, such as `oob`.
    public var challengeType: String { fields.challengeType }
    /// Where codes go (email, SMS), as in MSAL's `MSALAuthMethod`.
    public var channelTargetType: ChannelType { fields.channelTargetType }
    /// A masked hint of the contact, such as `a***e@co**o.com`.
    public var loginHint: String { fields.loginHint }

    /// Creates a method (for tests and previews; the SDK makes them from server answers).
    public init(id: String, challengeType: String = "oob", channelTargetType: ChannelType, loginHint: String) {
        fields = Fields(
            id: id, challengeType: challengeType, channelTargetType: channelTargetType, loginHint: loginHint)
    }

    /// Equal when every field is.
    public static func == (lhs: AuthMethod, rhs: AuthMethod) -> Bool {
        lhs.id == rhs.id && lhs.challengeType == rhs.challengeType && lhs.channelTargetType == rhs.channelTargetType
            && lhs.loginHint == rhs.loginHint
    }

    /// Hashes every field, in the order they are declared.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(challengeType)
        hasher.combine(channelTargetType)
        hasher.combine(loginHint)
    }

    /// Creates a method: the earlier name of ``init(id:challengeType:channelTargetType:loginHint:)``.
    @available(*, deprecated, renamed: "init(id:challengeType:channelTargetType:loginHint:)")
    public init(id: String, challengeType: String = "oob", channel: ChannelType, loginHint: String) {
        self.init(id: id, challengeType: challengeType, channelTargetType: channel, loginHint: loginHint)
    }

    /// Where codes go: the earlier name of ``channelTargetType``.
    @available(*, deprecated, renamed: "channelTargetType")
    public var channel: ChannelType { channelTargetType }

    init(_ wire: WireAuthMethod) {
        self.init(
            id: wire.id, challengeType: wire.challengeType, channelTargetType: wire.channel, loginHint: wire.loginHint)
    }

    /// The method's channel and hint.
    public var description: String { "AuthMethod(\(id), \(channelTargetType), \(loginHint))" }
}
