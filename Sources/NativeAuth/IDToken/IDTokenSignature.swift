package import AuthCrypto
import Foundation

/// Checks the signature of an ID token (a compact JWS, RFC 7515 §7.1) against the issuer's keys.
///
/// RS256, PS256, ES256 and EdDSA (Ed25519) are accepted, and only with a key published for the
/// algorithm: the header's `alg` must be one the named key allows (its `alg`, or what its `kty`
/// and `crv` sign with), so a token cannot choose how its key is used. `none` and HMAC (where a
/// public key could be misused as the secret) are always refused. Keys come only from the key set,
/// never from the token (`jwk`, `jku`, `x5u` and `x5c` header members are ignored). Claims are not
/// checked here; read them from the returned, verified payload. Package access, with the key set
/// and the errors it throws, so the benchmark harness can time it.
package enum IDTokenSignature {
    /// A token whose signature verified. A class: made once, then only read.
    package final class Verified: Sendable {
        /// The decoded protected header.
        let header: [String: JSONValue]
        /// The decoded payload bytes: the exact bytes that were signed.
        let payload: Data
        /// The `kid` of the key that verified the signature.
        let keyID: String?

        init(header: [String: JSONValue], payload: Data, keyID: String?) {
            self.header = header
            self.payload = payload
            self.keyID = keyID
        }

        /// The payload as a JSON object (the claims of an ID token); `nil` when it is not one.
        var claims: [String: JSONValue]? {
            (try? JSONValue.parse(payload, rejectingDuplicateMembers: true))?.objectValue
        }
    }

    /// Verifies `token` with the key from `keys` that its header names.
    ///
    /// The key is the one whose `kid` equals the header's `kid`; a token without `kid` uses the only
    /// key of a one-key set. Several keys with the same `kid` are each tried, up to
    /// ``JSONWebKeySet/maximumKeysPerID``; each only if it allows the header's algorithm.
    /// - Throws: `JWSVerificationError` naming the failed check; on `.unknownKeyID`, fetch the
    ///   JWK Set again (once) and retry.
    package static func verify(
        _ token: String, keys: JSONWebKeySet, verifier: any SignatureVerifier = .platformDefault
    ) throws(JWSVerificationError) -> Verified {
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw .malformed(.segmentCount) }
        guard let headerBytes = Base64URL.decodeCanonical(segments[0]) else { throw .malformed(.headerEncoding) }
        guard let headerValue = try? JSONValue.parse(Data(headerBytes), rejectingDuplicateMembers: true),
            case .object(let header) = headerValue
        else {
            throw .malformed(.headerNotJSONObject)
        }
        guard let algorithmName = header["alg"]?.stringValue else { throw .malformed(.algorithmMissing) }
        guard let algorithm = JWSAlgorithm(joseName: algorithmName) else { throw .unsupportedAlgorithm(algorithmName) }
        guard header["crit"] == nil else { throw .unsupportedCriticalHeader }
        let keyID: String?
        switch header["kid"] {
        case nil: keyID = nil
        case .string(let text): keyID = text
        default: throw .malformed(.invalidKeyID)
        }
        guard let payload = Base64URL.decodeCanonical(segments[1]) else { throw .malformed(.payloadEncoding) }
        guard !segments[2].isEmpty, let signature = Base64URL.decodeCanonical(segments[2]) else {
            throw .malformed(.signatureEncoding)
        }

        let candidates = try candidateKeys(for: keyID, in: keys)
        // The signing input is the ASCII text of the first two segments, dot included.
        let signingInput = Array(token.utf8.prefix(segments[0].count + 1 + segments[1].count))
        var anyKeyAllows = false
        for key in candidates where key.algorithms.contains(algorithm) {
            anyKeyAllows = true
            // The signature's length (RFC 8017 §8.2.2 step 1 for RSA; 64 bytes for ES256 and
            // EdDSA), checked here whichever verifier runs.
            guard let verificationKey = key.verificationKey, signature.count == verificationKey.signatureLength
            else { continue }
            if verifier.isValidSignature(signature, of: signingInput, algorithm: algorithm, key: verificationKey) {
                return Verified(header: header, payload: Data(payload), keyID: key.keyID)
            }
        }
        guard anyKeyAllows else { throw .algorithmNotAllowedByKey(algorithmName) }
        throw .badSignature
    }

    /// The keys to try for a token naming `keyID`.
    static func candidateKeys(
        for keyID: String?, in keys: JSONWebKeySet
    ) throws(JWSVerificationError) -> [JSONWebKey] {
        guard let keyID else {
            if keys.keys.count == 1 { return keys.keys }
            if keys.keys.isEmpty, keys.skipped.count == 1, let only = keys.skipped.first {
                throw .keyUnsuitable(only.reason)
            }
            throw .unknownKeyID(nil)
        }
        var matches: [JSONWebKey] = []
        for key in keys.keys where key.keyID == keyID && matches.count < JSONWebKeySet.maximumKeysPerID {
            matches.append(key)
        }
        if !matches.isEmpty { return matches }
        if let skipped = keys.skipped.first(where: { $0.keyID == keyID }) { throw .keyUnsuitable(skipped.reason) }
        throw .unknownKeyID(keyID)
    }

}
