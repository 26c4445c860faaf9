public import Foundation

/// What ``NativeAuthClient/signUpOrSignIn(_:)`` needs: the username, and the attributes to give
/// the account if the user turns out to be new.
public struct SignUpOrSignInParameters: Sendable, CustomStringConvertible {
    /// The user's username (an email address), new or known.
    public var username: String
    /// Attributes to set on the account when the user is new (sent with `signup/v1.0/start`);
    /// not sent when the user already has an account.
    public var attributes: UserAttributes
    /// Scopes for the access token, beyond `openid profile offline_access` (always asked for).
    public var scopes: [String]
    /// An OIDC claims request (a JSON object) sent as `claims` with the token request, as in
    /// ``SignInParameters/claims``.
    public var claims: String?
    /// The correlation id sent with every request of the flow, sign-in and sign-up alike; a new
    /// one when `nil`.
    public var correlationId: UUID?

    /// Creates sign-up-or-sign-in parameters.
    public init(
        username: String, attributes: UserAttributes = [:], scopes: [String] = [], claims: String? = nil,
        correlationId: UUID? = nil
    ) {
        self.username = username
        self.attributes = attributes
        self.scopes = scopes
        self.claims = claims
        self.correlationId = correlationId
    }

    /// The parameters without the attribute values.
    public var description: String {
        "SignUpOrSignInParameters(username: \(username), attributes: \(attributes), scopes: \(scopes))"
    }
}

/// Where ``NativeAuthClient/signUpOrSignIn(_:)`` leads.
@nonexhaustive
public enum SignUpOrSignInStartResult: Sendable {
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
}

/// Where the code submitted on a ``SignUpOrSignInCodeRequiredState`` leads.
@nonexhaustive
public enum SignUpOrSignInResult: Sendable {
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

/// Why ``NativeAuthClient/signUpOrSignIn(_:)`` failed.
public struct SignUpOrSignInStartError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The username is empty or not valid (checked before any request, or `invalid_request` 90100).
    public var isInvalidUsername: Bool { kind == .invalidUsername }
    /// An attribute name or value cannot be sent (checked before any request);
    /// ``invalidAttributes`` names it.
    public var isInvalidAttributes: Bool { kind == .attributesInvalid }
    /// The names of the attributes that cannot be sent.
    public var invalidAttributes: [String] { details.invalidAttributes }
    /// The tenant requires attributes that were not given (`attributes_required` at sign-up):
    /// start again with them.
    public var isAttributesRequired: Bool { kind == .attributesRequired }
    /// No user has this username, and the server refused to sign one up: sign-up is turned off
    /// for the app, or not allowed for this username. The server's own answer is in the raw
    /// fields (``NativeAuthError/serverError``, ``NativeAuthError/serverErrorDescription``).
    public var isSignUpUnavailable: Bool { kind == .signUpUnavailable }
    /// A user with this username was created between the sign-in and the sign-up requests:
    /// start again, and the user signs in.
    public var isUserAlreadyExists: Bool { kind == .userAlreadyExists }
}
