import Foundation

/// Where ``NativeAuthClient/signUpOrSignIn(_:)`` leads.
@nonexhaustive
public indirect enum SignUpOrSignInStartResult: Sendable {
    /// A one-time code was sent, to sign the user in or to verify the new user's address
    /// (``SignUpOrSignInCodeRequiredState/isNewUser`` says which); submit it on the state.
    case codeRequired(
        SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?)
    /// The user has an account that signs in with a password: the server asked for the password,
    /// not a code. Submit it on the state, as after ``NativeAuthClient/signIn(_:)``.
    case passwordRequired(SignInPasswordRequiredState)
    /// The user is new and the server refused some attribute values; the names are given. Start
    /// again with corrected values.
    case attributesInvalid([String])
    /// The user is new and the server asks for the password before it sends the code (a V2
    /// server may). Continue on the sign-up state: its ``SignUpPasswordRequiredState/submitPassword(_:)``
    /// leads to ``SignUpResult/codeRequired(_:sentTo:channelTargetType:codeLength:)``, and the
    /// sign-up's ``SignUpResult/completed(_:)`` signs the user in.
    case newUserPasswordRequired(SignUpPasswordRequiredState)
}

/// Where the code submitted on a ``SignUpOrSignInCodeRequiredState`` leads.
@nonexhaustive
public indirect enum SignUpOrSignInResult: Sendable {
    /// Signed in. `accountCreated` is `true` when this flow created the account.
    case completed(UserAccountResult, accountCreated: Bool)
    /// A second factor is required; choose a method on the state.
    case awaitingMFA(AwaitingMFAState, methods: [AuthMethod])
    /// The user must register a strong authentication method first.
    case strongAuthRegistrationRequired(RegisterStrongAuthState, methods: [AuthMethod])
    /// The user is new and the tenant wants a password before it creates the account; continue
    /// with the sign-up state (its ``SignUpResult/completed(_:)`` signs in with one request).
    case newUserPasswordRequired(SignUpPasswordRequiredState)
    /// The user is new and the tenant wants more attributes than were given; continue with the
    /// sign-up state.
    case newUserAttributesRequired([RequiredAttribute], SignUpAttributesRequiredState)
}

extension SignUpOrSignInResult {
    init(_ result: SignInResult, accountCreated: Bool) {
        switch result {
        case .completed(let account): self = .completed(account, accountCreated: accountCreated)
        case .awaitingMFA(let state, let methods): self = .awaitingMFA(state, methods: methods)
        case .strongAuthRegistrationRequired(let state, let methods):
            self = .strongAuthRegistrationRequired(state, methods: methods)
        }
    }
}
