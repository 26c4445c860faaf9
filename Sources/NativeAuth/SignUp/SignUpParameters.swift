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
