/// The check a signed token (compact JWS) failed. Descriptions never include token text.
package indirect enum JWSVerificationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with a token that cannot even be read.
    package enum Malformation: Hashable, Sendable {
        /// Not three dot-separated parts.
        case segmentCount
        /// The header is not canonical unpadded base64url.
        case headerEncoding
        /// The header is not a JSON object.
        case headerNotJSONObject
        /// The header has no string `alg`.
        case algorithmMissing
        /// The header's `kid` is not a string.
        case invalidKeyID
        /// The payload is not canonical unpadded base64url.
        case payloadEncoding
        /// The signature is empty or not canonical unpadded base64url.
        case signatureEncoding
    }

    /// The token cannot be read.
    case malformed(Malformation)
    /// The header's `alg` is not one the SDK verifies (RS256, PS256, ES256, EdDSA): `none`, HS256,
    /// RS384, ... The value is kept.
    case unsupportedAlgorithm(String)
    /// The header's `alg` is one the SDK verifies, but the key the token names is published for
    /// another (an RS256 key named by a PS256 token, an EC key by an RS256 token). The value is kept.
    case algorithmNotAllowedByKey(String)
    /// The header has `crit`, naming extensions this verifier does not implement.
    case unsupportedCriticalHeader
    /// No key in the set has this `kid` (or, without a `kid`, the set does not hold exactly one
    /// key). The caller may fetch the JWK Set again, once, and retry.
    case unknownKeyID(String?)
    /// The key the token names is in the set but cannot check signatures.
    case keyUnsuitable(JSONWebKeyRejection)
    /// The signature does not verify with the named key.
    case badSignature

    package var description: String {
        switch self {
        case .malformed(let malformation): "token is malformed: \(malformation)"
        case .unsupportedAlgorithm(let algorithm):
            "token algorithm \(LogSafe.quoted(algorithm)) is not RS256, PS256, ES256 or EdDSA"
        case .algorithmNotAllowedByKey(let algorithm):
            "token algorithm \(LogSafe.quoted(algorithm)) is not one its signing key is published for"
        case .unsupportedCriticalHeader: "token header has critical extensions that are not supported"
        case .unknownKeyID(let keyID): "no signing key for key ID \(LogSafe.quoted(keyID))"
        case .keyUnsuitable(let reason): "the token's signing key is unusable: \(reason)"
        case .badSignature: "token signature does not verify"
        }
    }
}
