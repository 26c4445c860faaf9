import Foundation

/// Where ``NativeAuthClient/resetPassword(_:)`` leads.
@nonexhaustive
public indirect enum ResetPasswordStartResult: Sendable {
    /// A code was sent to the user's email address or phone; submit it on the state.
    case codeRequired(
        ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The server offers several recovery methods (email, SMS) and the app asked to let the user
    /// choose (``ResetPasswordParameters/selectsAuthMethod``, native authentication V2 only):
    /// choose one on the state.
    case authMethodSelectionRequired(ResetPasswordAuthMethodSelectionRequiredState, methods: [AuthMethod])
}
