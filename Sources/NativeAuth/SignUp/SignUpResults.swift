import Foundation

/// Where ``NativeAuthClient/signUp(_:)`` leads.
@nonexhaustive
public indirect enum SignUpStartResult: Sendable {
    /// A code was sent to verify the email address; submit it on the state.
    case codeRequired(SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The server refused some attribute values; the names are given. Start again with corrected values.
    case attributesInvalid([String])
    /// The server wants the password before it sends the code (over V2, a server that asks for it
    /// with the email address and got none up front); submit it on the state, which leads to the
    /// code.
    case passwordRequired(SignUpPasswordRequiredState)
}

/// Where a sign-up step (code, password, attributes) leads.
@nonexhaustive
public indirect enum SignUpResult: Sendable {
    /// The user was created; sign them in with one more request on the state.
    case completed(SignInAfterSignUpState)
    /// The server wants a password next.
    case passwordRequired(SignUpPasswordRequiredState)
    /// The server wants more attributes; the list says which, with their type and pattern.
    case attributesRequired([RequiredAttribute], SignUpAttributesRequiredState)
    /// A code was sent to verify the email address: the step after a password the server asked
    /// for before the code (``SignUpStartResult/passwordRequired(_:)``).
    case codeRequired(SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}
