import Foundation

/// Why ``UserAccountResult/send(_:scopes:using:)`` gave no response.
public struct AuthorizedRequestError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// No access token could be had: the session expired and the user must sign in again.
    public var isRefreshTokenExpired: Bool { kind == .refreshTokenExpired }
    /// The account is no longer signed in.
    public var isNoAccount: Bool { kind == .noAccount }
    /// The credential store could not be read.
    public var isStorageError: Bool { kind == .storage }

    init(_ error: RetrieveAccessTokenError) { details = error.details }
}
