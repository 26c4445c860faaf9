public import Foundation

/// What ``NativeAuthClient/resetPassword(_:)`` needs.
public struct ResetPasswordParameters: Sendable, CustomStringConvertible {
    /// The user's username (an email address).
    public var username: String
    /// The correlation id sent with every request of the flow; a new one when `nil`.
    public var correlationId: UUID?
    /// Whether the user chooses the recovery method when the server offers several (native
    /// authentication V2 only): `resetPassword` then returns
    /// ``ResetPasswordStartResult/authMethodSelectionRequired(_:methods:)``. When `false` (the
    /// default), the SDK sends the code to the first email method, else to the first SMS method.
    public var selectsAuthMethod = false

    /// Creates password-reset parameters.
    public init(username: String, correlationId: UUID? = nil) {
        self.username = username
        self.correlationId = correlationId
    }

    /// The username.
    public var description: String { "ResetPasswordParameters(username: \(username))" }
}
