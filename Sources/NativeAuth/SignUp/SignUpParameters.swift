public import Foundation

/// What ``NativeAuthClient/signUp(_:)`` needs.
public struct SignUpParameters: Sendable, CustomStringConvertible {
    /// The new user's username (an email address).
    public var username: String
    /// The password, when the app collects it up front; the server may also ask for it later.
    public var password: String?
    /// Attributes to set on the new user.
    public var attributes: UserAttributes
    /// The correlation id sent with every request of the flow; a new one when `nil`.
    public var correlationId: UUID?

    /// Creates sign-up parameters.
    public init(
        username: String, password: String? = nil, attributes: UserAttributes = [:], correlationId: UUID? = nil
    ) {
        self.username = username
        self.password = password
        self.attributes = attributes
        self.correlationId = correlationId
    }

    /// The parameters without the password or attribute values.
    public var description: String {
        "SignUpParameters(username: \(username), password: \(password == nil ? "nil" : "<redacted>"), attributes: \(attributes))"
    }
}

/// Where ``NativeAuthClient/signUp(_:)`` leads.
@nonexhaustive
public enum SignUpStartResult: Sendable {
    /// A code was sent to verify the email address; submit it on the state.
    case codeRequired(SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The server refused some attribute values; the names are given. Start again with corrected values.
    case attributesInvalid([String])
}

/// Where a sign-up step (code, password, attributes) leads.
@nonexhaustive
public enum SignUpResult: Sendable {
    /// The user was created; sign them in with one more request on the state.
    case completed(SignInAfterSignUpState)
    /// The server wants a password next.
    case passwordRequired(SignUpPasswordRequiredState)
    /// The server wants more attributes; the list says which, with their type and pattern.
    case attributesRequired([RequiredAttribute], SignUpAttributesRequiredState)
}
