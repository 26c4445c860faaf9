import AuthCrypto
import Foundation

/// Why a DPoP proof is refused.
enum DPoPRefusal: Error, Sendable, Equatable {
    /// The proof fails a check of RFC 9449 §4.3: `invalid_dpop_proof` (§5 at the token endpoint,
    /// §7.1 at the resource), with this description. The description never repeats what the proof
    /// holds.
    case invalid(String)
    /// The proof lacks the server's current nonce, or has one that is no longer accepted:
    /// `use_dpop_nonce` (§8 at the token endpoint, §9 at the resource).
    case useNonce
}

/// What the request a proof came with must match.
struct DPoPExpectation: Sendable {
    /// The request's method, for `htm` (§4.3 step 8).
    var method: String
    /// The URI the client sent the request to, without query and fragment, normalized as
    /// ``DPoPTargetURI`` does, for `htu` (step 9).
    var targetURI: String
    /// The tenant's time and how far `iat` may be from it, either way (step 11, §11.1).
    var now: Date
    var window: TimeInterval
    /// The nonces accepted now, when the server demands one (step 10, §8); `nil` otherwise.
    var nonces: [String]?
    /// The access token presented with the proof, at the resource: `ath` must be its hash (step 12).
    var accessToken: String?
}

/// A proof that passed every check of RFC 9449 §4.3 but the replay check, which needs the tenant's
/// memory (§11.1).
struct CheckedDPoPProof: Sendable, Equatable {
    /// The JWK thumbprint of the proof's key (RFC 7638): the `jkt` tokens are bound to (§6.1).
    var thumbprint: String
    var jti: String
    /// The `htu` as normalized: with `jti`, what a replay is recognised by.
    var targetURI: String
    var issuedAt: Date
}

/// The checks of a DPoP proof JWT (RFC 9449 §4.3), written for the emulator: it shares no code with
/// the SDK that makes the proofs, so a mistake on one side is not repeated on the other.
enum DPoPProofChecker {
    /// The longest `DPoP` header read. A proof with an 8192-bit RSA key is about 4 KiB.
    static let maximumLength = 8192

    /// Checks `value`, the `DPoP` header of a request, against what the request is.
    static func check(_ value: String, against expected: DPoPExpectation) throws(DPoPRefusal) -> CheckedDPoPProof {
        // Step 2: one well-formed JWS in compact serialization (RFC 7515 §7.1): three base64url
        // segments, the first two JSON objects.
        guard value.utf8.count <= maximumLength else {
            throw .invalid("The DPoP proof is longer than \(maximumLength) bytes.")
        }
        let segments = value.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let signature = base64URL(segments[2]), !signature.isEmpty else {
            throw .invalid("The DPoP header is not a signed JWT (three base64url parts).")
        }
        let header = try object(segments[0], "header")
        let claims = try object(segments[1], "payload")

        // Step 4: the type.
        guard header["typ"] == .string("dpop+jwt") else { throw .invalid("The proof's typ is not dpop+jwt.") }
        // Step 5: an asymmetric algorithm the tenant verifies; never none, never a MAC.
        guard case .string(let algorithm)? = header["alg"] else { throw .invalid("The proof has no alg.") }
        guard algorithm != "none" else { throw .invalid("The proof is not signed (alg none).") }
        guard !DPoPPublicKey.symmetricAlgorithms.contains(algorithm) else {
            throw .invalid("The proof's alg is symmetric; a proof is signed with a private key.")
        }
        guard DPoPPublicKey.supportedAlgorithms.contains(algorithm) else {
            throw .invalid(
                "The proof's alg is not supported; the tenant takes "
                    + DPoPPublicKey.supportedAlgorithms.joined(separator: ", ") + ".")
        }
        // RFC 7515 §4.1.11: no extension the tenant would have to understand.
        guard header["crit"] == nil else { throw .invalid("The proof has a crit header the tenant does not know.") }
        // Steps 6 and 7: the key is public, and the signature verifies with it.
        guard case .object(let jwk)? = header["jwk"] else { throw .invalid("The proof has no jwk object.") }
        let key = try DPoPPublicKey(jwk: jwk, algorithm: algorithm)
        let input = Array(value.utf8.prefix(segments[0].utf8.count + 1 + segments[1].utf8.count))
        guard key.verifies(Array(signature), of: input) else {
            throw .invalid("The proof's signature does not verify with its jwk.")
        }

        // Step 3: the claims of §4.2.
        guard case .string(let jti)? = claims["jti"], !jti.isEmpty else { throw .invalid("The proof has no jti.") }
        guard case .string(let method)? = claims["htm"] else { throw .invalid("The proof has no htm.") }
        guard case .string(let uri)? = claims["htu"] else { throw .invalid("The proof has no htu.") }
        let issuedAt: TimeInterval
        switch claims["iat"] {
        case .integer(let seconds)?: issuedAt = TimeInterval(seconds)
        case .double(let seconds)? where seconds.isFinite: issuedAt = seconds
        default: throw .invalid("The proof has no numeric iat.")
        }

        // Step 8.
        guard method == expected.method else {
            throw .invalid("The proof's htm is not this request's method, \(expected.method).")
        }
        // Step 9: §4.2 has `htu` without query and fragment; both sides are normalized first.
        guard !uri.contains("?"), !uri.contains("#") else {
            throw .invalid("The proof's htu has a query or a fragment; it must have neither.")
        }
        guard DPoPTargetURI.normalized(uri) == expected.targetURI else {
            throw .invalid("The proof's htu is not this request's URI, \(expected.targetURI).")
        }
        // Step 11, §11.1: created recently, by the tenant's clock.
        let age = expected.now.timeIntervalSince1970 - issuedAt
        guard abs(age) <= expected.window else {
            throw .invalid(
                age > 0
                    ? "The proof's iat is more than \(Int(expected.window)) seconds in the past."
                    : "The proof's iat is more than \(Int(expected.window)) seconds in the future.")
        }
        // Step 12, first half: the proof is for the access token it comes with.
        if let accessToken = expected.accessToken {
            guard case .string(let hash)? = claims["ath"] else { throw .invalid("The proof has no ath.") }
            guard hash == Encoding.base64URL(Data(SHA256.hash(Array(accessToken.utf8)))) else {
                throw .invalid("The proof's ath is not the hash of the access token it came with.")
            }
        }
        // Step 10, §8: the server's nonce, the current one or the one before.
        if let nonces = expected.nonces {
            guard case .string(let nonce)? = claims["nonce"], nonces.contains(nonce) else { throw .useNonce }
        }
        return CheckedDPoPProof(
            thumbprint: key.thumbprint, jti: jti, targetURI: expected.targetURI,
            issuedAt: Date(timeIntervalSince1970: issuedAt))
    }

    /// The JSON object in one segment of the JWT, or a refusal naming the `part`.
    private static func object(_ segment: Substring, _ part: String) throws(DPoPRefusal) -> JSONObject {
        guard let data = base64URL(segment), let text = String(data: data, encoding: .utf8),
            case .object(let object)? = try? JSONParser.parse(text)
        else { throw .invalid("The proof's \(part) is not a base64url JSON object.") }
        return object
    }

    /// The bytes of strict base64url text (RFC 7515 §2: the URL-safe alphabet, no padding, no
    /// white space), or `nil`. Only the canonical encoding is taken: unused low bits in the last
    /// character must be zero, so one byte string has one spelling.
    static func base64URL(_ text: some StringProtocol) -> Data? {
        let valid = text.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard valid, text.utf8.count % 4 != 1, let data = Encoding.base64URLDecode(String(text)),
            Encoding.base64URL(data) == text
        else { return nil }
        return data
    }
}
