import Foundation

/// Why ``UserAccountResult/getAccessToken(scopes:forceRefresh:)`` gave no token.
public struct RetrieveAccessTokenError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails

    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The refresh token expired or was revoked (`invalid_grant` with `bad_token`, or a first code
    /// of an expired, revoked or invalidated grant such as 70008 or 700082): the account was
    /// signed out and the user must sign in again.
    public var isRefreshTokenExpired: Bool { kind == .refreshTokenExpired }
    /// The user must interact before a token can be had (consent, a second factor, conditional
    /// access, a claims challenge): the account and its refresh token are kept, and tokens for
    /// other scopes still work. ``NativeAuthErrorDetails/claims`` holds the server's claims
    /// request when it sent one; sign in again with it.
    public var isInteractionRequired: Bool { kind == .interactionRequired }
    /// The server answered the refresh for another account, or with an ID token that cannot be
    /// read: nothing was stored and the account keeps its claims.
    public var isAccountMismatch: Bool { kind == .accountMismatch }
    /// The claims request given is not a JSON object; nothing was sent.
    public var isInvalidClaims: Bool { kind == .invalidArgument }
    /// The account is no longer signed in (signed out, or replaced by another sign-in).
    public var isNoAccount: Bool { kind == .noAccount }
    /// Proof of possession failed (DPoP, RFC 9449): the account's key could not be read back or
    /// sign, or the server refused the proof. The account and its credentials are kept.
    public var isProofOfPossessionFailed: Bool { kind == .proofOfPossession }
    /// The credential store could not be read; the credentials were kept.
    public var isStorageError: Bool { kind == .storage }

    /// The refresh needed the person's confirmation (``UserPresenceRequirement``) and did not get
    /// it, for any of the reasons below. Nothing was sent, the account and its credentials are
    /// kept, and a later call can ask again. ``NativeAuthErrorDetails/underlyingError`` is the
    /// checker's ``UserPresenceError``.
    public var isUserPresenceNotConfirmed: Bool { kind.presenceReason != nil }
    /// The person (or the app, or the system) cancelled the confirmation.
    public var isUserPresenceCancelled: Bool { kind.presenceReason == .cancelled }
    /// Biometry is locked after too many failed attempts; the device passcode unlocks it.
    public var isUserPresenceLockedOut: Bool { kind.presenceReason == .lockedOut }
    /// No face or finger is enrolled on the device.
    public var isUserPresenceNotEnrolled: Bool { kind.presenceReason == .notEnrolled }
    /// The device cannot confirm the person now (no biometry, no passcode, no prompt possible).
    public var isUserPresenceUnavailable: Bool { kind.presenceReason == .unavailable }
    /// The person was not recognised.
    public var isUserPresenceFailed: Bool { kind.presenceReason == .failed }
    /// The enrolled biometrics changed since this session's first confirmation: sign the user in
    /// again (the new session accepts the biometrics enrolled now). The account is kept until then.
    public var isBiometryChanged: Bool { kind.presenceReason == .biometryChanged }
}

extension RetrieveAccessTokenError {
    /// A refresh the checker gave no confirmation for.
    init(presence error: UserPresenceError, correlationId: UUID) {
        self.init(details: .init(.userPresence(error.reason), correlationId: correlationId, underlyingError: error))
    }
}

extension ErrorKind {
    /// Why the person's presence was not confirmed, when that is what went wrong.
    var presenceReason: UserPresenceError.Reason? {
        if case .userPresence(let reason) = self { return reason }
        return nil
    }
}
