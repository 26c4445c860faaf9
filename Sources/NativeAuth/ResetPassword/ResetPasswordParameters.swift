public import Foundation

/// What ``NativeAuthClient/resetPassword(_:)`` needs.
public struct ResetPasswordParameters: Sendable, CustomStringConvertible {
    /// The user's username (an email address).
    public var username: String
    /// The correlation id sent with every request of the flow; a new one when `nil`.
    public var correlationId: UUID?

    /// Creates password-reset parameters.
    public init(username: String, correlationId: UUID? = nil) {
        self.username = username
        self.correlationId = correlationId
    }

    /// The username.
    public var description: String { "ResetPasswordParameters(username: \(username))" }
}
