public import Foundation

/// What ``NativeAuthClient/signIn(_:)`` needs.
public struct SignInParameters: Sendable, CustomStringConvertible {
    /// The user's username (an email address).
    public var username: String
    /// The password, when the app asks for it up front; ignored when the server chooses a code.
    public var password: String?
    /// Scopes for the access token, beyond `openid profile offline_access` (always asked for).
    public var scopes: [String]
    /// The correlation id sent with every request of the flow; a new one when `nil`.
    public var correlationId: UUID?
    /// An OIDC claims request (a JSON object, such as `{"access_token":{"acrs":{"essential":true,"value":"c1"}}}`)
    /// sent as `claims` with the token request, for an authentication context or a claims
    /// challenge a resource asked for.
    public var claims: String?
    /// Whether the user chooses the first factor when the server offers several (native
    /// authentication V2 only): `signIn` then returns
    /// ``SignInStartResult/authMethodSelectionRequired(_:methods:)``. When `false` (the default),
    /// the SDK chooses as MSAL does: the password method when a password is given, else the first
    /// email or SMS code method, else the password method.
    public var selectsAuthMethod = false

    /// Creates sign-in parameters.
    public init(
        username: String, password: String? = nil, scopes: [String] = [], correlationId: UUID? = nil,
        claims: String? = nil
    ) {
        self.username = username
        self.password = password
        self.scopes = scopes
        self.correlationId = correlationId
        self.claims = claims
    }

    /// The parameters without the password.
    public var description: String {
        "SignInParameters(username: \(username), password: \(password == nil ? "nil" : "<redacted>"), scopes: \(scopes))"
    }
}
