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
    /// Proof of possession failed (DPoP, RFC 9449): the account's key could not be read back or
    /// sign, or the server refused the proof. The account and its credentials are kept.
    public var isProofOfPossessionFailed: Bool { kind == .proofOfPossession }
    /// The credential store could not be read.
    public var isStorageError: Bool { kind == .storage }
    /// The user must interact first: a refresh asked for it, or the resource answered 401 with a
    /// claims challenge (`error="insufficient_claims"`; ``NativeAuthErrorDetails/claims`` holds
    /// the decoded claims request to sign in again with) or a step-up challenge
    /// (``isStepUpRequired``).
    public var isInteractionRequired: Bool { kind == .interactionRequired }
    /// The resource answered 401 with a step-up challenge (`error="insufficient_user_authentication"`,
    /// RFC 9470 §3, on a Bearer or DPoP challenge): the sign-in behind the token is not strong or
    /// recent enough for it. ``stepUpChallenge`` says what it asks for; sign the user in again with
    /// it (``WebAuthClient/signInFirstParty(continuing:stepUp:password:scopes:additionalParameters:)``,
    /// or a browser sign-in with ``WebSignInParameters/init(stepUp:scopes:loginHint:)``), then
    /// send the request again. Nothing was retried, and the account stays signed in with its
    /// tokens. ``isInteractionRequired`` is true as well.
    public var isStepUpRequired: Bool { stepUpChallenge != nil }
    /// What the resource's step-up challenge asks for (`acr_values`, `max_age`, `scope`), when
    /// ``isStepUpRequired``; `nil` for every other error.
    public var stepUpChallenge: StepUpChallenge? { details.interaction as? StepUpChallenge }
    /// The claims request the resource or the server asked for, decoded; `nil` when none.
    public var claims: String? { details.claims }
    /// The refresh needed the person's confirmation and did not get it; the account is kept. As
    /// ``RetrieveAccessTokenError/isUserPresenceNotConfirmed``.
    public var isUserPresenceNotConfirmed: Bool { kind.presenceReason != nil }
    /// As ``RetrieveAccessTokenError/isUserPresenceCancelled``.
    public var isUserPresenceCancelled: Bool { kind.presenceReason == .cancelled }
    /// As ``RetrieveAccessTokenError/isUserPresenceLockedOut``.
    public var isUserPresenceLockedOut: Bool { kind.presenceReason == .lockedOut }
    /// As ``RetrieveAccessTokenError/isUserPresenceNotEnrolled``.
    public var isUserPresenceNotEnrolled: Bool { kind.presenceReason == .notEnrolled }
    /// As ``RetrieveAccessTokenError/isUserPresenceUnavailable``.
    public var isUserPresenceUnavailable: Bool { kind.presenceReason == .unavailable }
    /// As ``RetrieveAccessTokenError/isUserPresenceFailed``.
    public var isUserPresenceFailed: Bool { kind.presenceReason == .failed }
    /// As ``RetrieveAccessTokenError/isBiometryChanged``.
    public var isBiometryChanged: Bool { kind.presenceReason == .biometryChanged }

    init(_ error: RetrieveAccessTokenError) { details = error.details }
}
