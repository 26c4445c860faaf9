import Foundation

/// Where ``NativeAuthClient/resetPassword(_:)`` leads.
@nonexhaustive
public enum ResetPasswordStartResult: Sendable {
    /// A code was sent to the user's email address; submit it on the state.
    case codeRequired(
        ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
}
