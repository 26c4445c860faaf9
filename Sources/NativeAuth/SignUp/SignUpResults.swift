import Foundation

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
