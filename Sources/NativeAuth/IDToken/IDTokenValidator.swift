import AuthCrypto
import Foundation

/// Checks an ID token from a web provider (OpenID Connect Core §3.1.3.7): its signature
/// against the provider's keys, then `iss`, `aud` (and `azp` when there are several audiences),
/// `exp`, `iat` and `nbf` on the provider's clock, `auth_time` when `max_age` was asked for, `acr`
/// against a step-up's `acr_values`, `nonce`, `sub` (present, and unchanged on a refresh) and `at_hash` when present. Every failure
/// names its check; nothing is stored on a failure. Docs/WebSignIn.md lists the checks in order.
struct IDTokenValidator: Sendable {
    let issuer: String
    let clientId: String
    /// The tolerance for `exp`, `iat`, `nbf` and an `auth_time` in the future, after the measured
    /// clock skew (at most ``WebProvider/maximumClockCorrection``) is corrected.
    var leeway: TimeInterval = 300
    /// The tolerance for an `auth_time` older than `max_age` allows: small, since `max_age` is
    /// often a few seconds (RFC 9470's example is 5) and the skew is already corrected; it
    /// covers the seconds between the authentication and the code's redemption.
    var authTimeAllowance: TimeInterval = 60
    /// The signature algorithms accepted (the web client's setting): a token whose key verified it
    /// with another is refused (``IDTokenCheck/algorithm``).
    var acceptedAlgorithms = IDTokenValidator.supportedAlgorithms

    /// Every algorithm the checks verify (RFC 7518 §3.3, §3.4, §3.5; RFC 8037).
    static let supportedAlgorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"]

    /// A class: built once per check and handed along by reference.
    final class Expectations: Sendable {
        /// The `nonce` sent with the authorization request; `nil` on a refresh.
        let nonce: Secret?
        /// The `sub` of the signed-in account, on a refresh.
        let subject: String?
        /// The access token of the same answer, for `at_hash`.
        let accessToken: Secret?
        /// The `max_age` sent with the authorization request, in seconds; `nil` when none was (and
        /// on a refresh, which is no new authentication).
        let maxAge: Int?
        /// The `acr_values` of a step-up (``StepUpChallenge``): an `acr` claim must be one of them.
        /// Empty for no check.
        let acrValues: [String]
        /// The provider's time now (ours corrected by the measured skew).
        let now: Date

        init(
            nonce: Secret?, subject: String?, accessToken: Secret?, maxAge: Int? = nil, acrValues: [String] = [],
            now: Date
        ) {
            self.nonce = nonce
            self.subject = subject
            self.accessToken = accessToken
            self.maxAge = maxAge
            self.acrValues = acrValues
            self.now = now
        }
    }

    /// Verifies `idToken` and returns its claims.
    func validate(_ idToken: Secret, keys: JWKSCache, expecting expected: Expectations) async throws(WebSignInError)
        -> Claims
    {
        let verified: IDTokenSignature.Verified
        do {
            verified = try await keys.verify(idToken.reveal)
        } catch let error as JWSVerificationError {
            switch error {
            case .unsupportedAlgorithm, .algorithmNotAllowedByKey, .unsupportedCriticalHeader:
                throw Self.fail(.algorithm)
            case .malformed: throw Self.fail(.malformed)
            case .unknownKeyID, .keyUnsuitable, .badSignature:
                // Why: a 1024-bit key and a bad signature must not read the same to an app.
                throw WebSignInError(.invalidIDToken(.signature), note: "(\(error.description))")
            }
        } catch let error as WebSignInError {
            throw error
        } catch {
            throw Self.fail(.signature)
        }
        return try check(verified, expecting: expected)
    }

    /// The checks after the signature's, in their order; synchronous, out of the async function
    /// whose resumption would hold them.
    private func check(_ verified: IDTokenSignature.Verified, expecting expected: Expectations)
        throws(WebSignInError) -> Claims
    {
        guard let algorithm = verified.header["alg"]?.stringValue, acceptedAlgorithms.contains(algorithm) else {
            throw Self.fail(.algorithm)
        }
        guard let payload = verified.claims else { throw Self.fail(.malformed) }
        let claims = Claims(payload)
        guard claims.issuer == issuer else { throw Self.fail(.issuer) }
        let audiences = claims.audiences
        guard audiences.contains(clientId) else { throw Self.fail(.audience) }
        if let party = claims.string("azp") {
            guard party == clientId else { throw Self.fail(.authorizedParty) }
        } else if audiences.count > 1 {
            throw Self.fail(.authorizedParty)
        }
        guard let expires = claims.expiresAt, expires.addingTimeInterval(leeway) > expected.now else {
            throw Self.fail(.expired)
        }
        guard let issued = claims.issuedAt, issued <= expected.now.addingTimeInterval(leeway) else {
            throw Self.fail(.issuedInFuture)
        }
        // RFC 7519 §4.1.5: never accepted before `nbf`, with the same leeway.
        if let notBefore = claims.all["nbf"] {
            guard let seconds = notBefore.doubleValue, seconds.isFinite else { throw Self.fail(.malformed) }
            guard Date(timeIntervalSince1970: seconds) <= expected.now.addingTimeInterval(leeway) else {
                throw Self.fail(.notYetValid)
            }
        }
        // OpenID Connect Core §3.1.2.1 and §3.1.3.7 item 13: with `max_age`, `auth_time` must be
        // there, and no older than `max_age` allows (nor in the future).
        if let maxAge = expected.maxAge {
            guard let authTime = claims.date("auth_time"),
                authTime.addingTimeInterval(TimeInterval(maxAge) + min(leeway, authTimeAllowance)) >= expected.now,
                authTime <= expected.now.addingTimeInterval(leeway)
            else { throw Self.fail(.authTime) }
        }
        // OpenID Connect Core §3.1.3.7 item 12: the client should check an `acr` it asked for. A
        // step-up's values are the resource's requirement (RFC 9470 §3), and a provider that cannot
        // meet them should fail rather than issue tokens the resource refuses again (§5): an `acr`
        // outside them is refused. `acr_values` asks for `acr` as a voluntary claim (Core
        // §3.1.2.1), which a provider may leave out of the ID token (RFC 9470 §5): its absence is
        // not refused, and the resource judges the access token.
        if !expected.acrValues.isEmpty, let acr = claims.all["acr"] {
            guard let value = acr.stringValue, expected.acrValues.contains(value) else {
                throw Self.fail(.authenticationContext)
            }
        }
        if let nonce = expected.nonce {
            guard let found = claims.string("nonce"), OAuthRandom.constantTimeEqual(found, nonce.reveal) else {
                throw Self.fail(.nonce)
            }
        }
        guard let subject = claims.subject, !subject.isEmpty else { throw Self.fail(.subject) }
        if let previous = expected.subject, previous != subject { throw Self.fail(.subject) }
        if let atHash = claims.string("at_hash"), let accessToken = expected.accessToken {
            let digest = SHA256.hash(Array(accessToken.reveal.utf8))
            let expectedHash = Base64URL.encode(Data(digest.prefix(16)))
            guard OAuthRandom.constantTimeEqual(atHash, expectedHash) else { throw Self.fail(.atHash) }
        }
        return claims
    }

    @inline(never)
    static func fail(_ check: IDTokenCheck) -> WebSignInError {
        WebSignInError(.invalidIDToken(check))
    }
}
