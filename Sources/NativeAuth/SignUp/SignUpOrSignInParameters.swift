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
