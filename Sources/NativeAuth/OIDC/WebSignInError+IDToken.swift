import Foundation

/// Which check an ID token failed, when ``WebSignInError/isInvalidIDToken`` is true.
@nonexhaustive
public enum IDTokenCheck: String, Sendable, Equatable, CustomStringConvertible {
    /// The token endpoint answered without an ID token, though `openid` was requested.
    case missing
    /// The token is not a well-formed JWT (three base64url parts, JSON header and claims).
    case malformed
    /// The token is signed with an algorithm the SDK does not accept (such as `none`).
    case algorithm
    /// The signature does not verify with the provider's keys.
    case signature
    /// `iss` is not the provider's issuer.
    case issuer
    /// `aud` does not contain the client id.
    case audience
    /// `azp` is present and is not the client id.
    case authorizedParty
    /// `exp` is in the past.
    case expired
    /// `iat` is too far in the future.
    case issuedInFuture
    /// `nbf` is too far in the future: the token is not valid yet.
    case notYetValid
    /// `nonce` is not the one sent in the authorization request.
    case nonce
    /// `sub` is missing, or is not the subject of the account being refreshed.
    case subject
    /// `at_hash` does not match the access token.
    case atHash
    /// `auth_time` is missing although `max_age` was requested, or is older than `max_age` allows.
    case authTime
    /// `acr` is not one of the `acr_values` a step-up asked for (``StepUpChallenge``): the provider
    /// signed the user in, but not in a way the resource takes (OpenID Connect Core §3.1.3.7 item 12,
    /// RFC 9470 §5). An ID token without `acr` is not refused for it.
    case authenticationContext

    /// The check's name.
    public var description: String { rawValue }
}

extension WebSignInError {
    /// The ID token failed a check; ``failedIDTokenCheck`` says which.
    public var isInvalidIDToken: Bool { failedIDTokenCheck != nil }

    /// The check the ID token failed, when ``isInvalidIDToken`` is true.
    public var failedIDTokenCheck: IDTokenCheck? {
        if case .invalidIDToken(let check) = code { return check }
        return nil
    }

    /// An ID token that failed `check`; `note` may add detail (never the token or a claim's secret value).
    static func invalidIDToken(_ check: IDTokenCheck, note: String? = nil, correlationId: UUID? = nil)
        -> WebSignInError
    {
        WebSignInError(.invalidIDToken(check), note: note, correlationId: correlationId)
    }
}
