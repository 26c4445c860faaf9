/// Where ``NativeAuthClient/signIn(_:)`` leads.
@nonexhaustive
public indirect enum SignInStartResult: Sendable {
    /// A one-time code was sent; submit it on the state.
    case codeRequired(SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The server wants the password; submit it on the state.
    case passwordRequired(SignInPasswordRequiredState)
    /// Signed in.
    case completed(UserAccountResult)
    /// A second factor is required; choose a method on the state.
    case awaitingMFA(AwaitingMFAState, methods: [AuthMethod])
    /// The user must register a strong authentication method first.
    case strongAuthRegistrationRequired(RegisterStrongAuthState, methods: [AuthMethod])
    /// The server offers several first factors (a password, an email or SMS code) and the app
    /// asked to let the user choose (``SignInParameters/selectsAuthMethod``, native authentication
    /// V2 only): choose one on the state.
    case authMethodSelectionRequired(AuthMethodSelectionRequiredState, methods: [AuthMethod])
}

/// Where a submitted code, password or second factor leads.
@nonexhaustive
public indirect enum SignInResult: Sendable {
    /// Signed in.
    case completed(UserAccountResult)
    /// A second factor is required; choose a method on the state.
    case awaitingMFA(AwaitingMFAState, methods: [AuthMethod])
    /// The user must register a strong authentication method first.
    case strongAuthRegistrationRequired(RegisterStrongAuthState, methods: [AuthMethod])
}

extension SignInStartResult {
    init(_ result: SignInResult) {
        switch result {
        case .completed(let account): self = .completed(account)
        case .awaitingMFA(let state, let methods): self = .awaitingMFA(state, methods: methods)
        case .strongAuthRegistrationRequired(let state, let methods):
            self = .strongAuthRegistrationRequired(state, methods: methods)
        }
    }
}

/// Where challenging a method for registration leads.
@nonexhaustive
public indirect enum RegisterStrongAuthChallengeResult: Sendable {
    /// A code was sent to the contact; submit it on the state.
    case verificationRequired(
        RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The contact was already verified: the method is registered and the user signed in.
    case completed(UserAccountResult)
}
