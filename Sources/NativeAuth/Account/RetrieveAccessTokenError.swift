import Foundation

/// Why ``UserAccountResult/getAccessToken(scopes:forceRefresh:)`` gave no token.
public struct RetrieveAccessTokenError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails

    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The refresh token expired or was revoked (`invalid_grant`): the account was signed out and
    /// the user must sign in again.
    public var isRefreshTokenExpired: Bool { kind == .refreshTokenExpired }
    /// The account is no longer signed in (signed out, or replaced by another sign-in).
    public var isNoAccount: Bool { kind == .noAccount }
    /// The credential store could not be read; the credentials were kept.
    public var isStorageError: Bool { kind == .storage }
}
