import AuthCrypto
import Foundation

/// Checks an ID token from a web provider (OpenID Connect Core §3.1.3.7): its RS256 signature
/// against the provider's keys, then `iss`, `aud` (and `azp` when there are several audiences),
/// `exp` and `iat` on the provider's clock, `nonce`, `sub` (present, and unchanged on a refresh)
/// and `at_hash` when present. Every failure names its check; nothing is stored on a failure.
struct IDTokenValidator: Sendable {
    let issuer: String
    let clientId: String
    /// The tolerance for `exp` and `iat`, after the measured clock skew is corrected.
    var leeway: TimeInterval = 300

    struct Expectations: Sendable {
        /// The `nonce` sent with the authorization request; `nil` on a refresh.
        var nonce: Secret?
        /// The `sub` of the signed-in account, on a refresh.
        var subject: String?
        /// The access token of the same answer, for `at_hash`.
        var accessToken: Secret?
        /// The provider's time now (ours corrected by the measured skew).
        var now: Date
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
            case .unsupportedAlgorithm, .unsupportedCriticalHeader: throw Self.fail(.algorithm)
            case .malformed: throw Self.fail(.malformed)
            case .unknownKeyID, .keyUnsuitable, .badSignature: throw Self.fail(.signature)
            }
        } catch let error as WebSignInError {
            throw error
        } catch {
            throw Self.fail(.signature)
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

    static func fail(_ check: IDTokenCheck) -> WebSignInError {
        WebSignInError(.invalidIDToken(check))
    }
}
