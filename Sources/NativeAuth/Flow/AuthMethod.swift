import Foundation

/// A way the user can prove who they are in a second step (multi-factor) or register.
public struct AuthMethod: Sendable, Hashable, CustomStringConvertible {
    /// The server's id for the method, sent back to choose it.
    public let id: String
    /// The challenge type, such as `oob`.
    public let challengeType: String
    /// Where codes go (email, SMS), as in MSAL's `MSALAuthMethod`.
    public let channelTargetType: ChannelType
    /// A masked hint of the contact, such as `a***e@co**o.com`.
    public let loginHint: String

    /// Creates a method (for tests and previews; the SDK makes them from server answers).
    public init(id: String, challengeType: String = "oob", channelTargetType: ChannelType, loginHint: String) {
        self.id = id
        self.challengeType = challengeType
        self.channelTargetType = channelTargetType
        self.loginHint = loginHint
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
