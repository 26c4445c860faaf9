import AuthCrypto
import Foundation

/// The public key of a DPoP proof, from its `jwk` header (RFC 9449 §4.2; RFC 7517), read and checked
/// by the emulator itself: the key the proof's signature must verify with (§4.3 step 6), with no
/// private member (step 7), and whose JWK thumbprint (RFC 7638) is the `jkt` the tenant binds tokens
/// to (§6.1).
///
/// RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3) is checked with the encoding and comparison
/// written here and only the modular exponentiation taken from `AuthCrypto`. PS256 (RFC 7518 §3.5),
/// ES256 (§3.4) and EdDSA with Ed25519 (RFC 8037 §3.1) are checked by `AuthCrypto`'s verifiers, on
/// every platform; none of that code makes proofs, so the client's signing is still checked by
/// code it does not share.
struct DPoPPublicKey: Sendable {
    enum Material: Sendable {
        /// `kty` `RSA`: the modulus and the public exponent, big-endian, without leading zero bytes.
        case rsa(modulus: [UInt8], exponent: [UInt8])
        /// `kty` `EC`, `crv` `P-256`: a point on the curve.
        case p256(P256PublicKey)
        /// `kty` `OKP`, `crv` `Ed25519`: a point on the curve.
        case ed25519(Ed25519PublicKey)
    }

    let material: Material
    /// The proof's `alg`, which the key was read for.
    let algorithm: String
    /// The JWK SHA-256 thumbprint (RFC 7638 §3), base64url: the `jkt` of RFC 9449 §6.1.
    let thumbprint: String

    /// The `alg` values the tenant verifies, as its discovery document lists them
    /// (`dpop_signing_alg_values_supported`, RFC 9449 §5.1).
    static let supportedAlgorithms = ["RS256", "PS256", "ES256", "EdDSA"]

    /// JOSE algorithms that are symmetric (RFC 7518 §3.2): never acceptable for a proof (§4.2).
    static let symmetricAlgorithms: Set<String> = ["HS256", "HS384", "HS512"]

    /// Members only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4.1): a `jwk` with
    /// any of them is refused (RFC 9449 §4.3 step 7).
    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// The smallest and largest RSA modulus taken, in bits: RFC 7518 §3.3 asks for 2048 or more;
    /// larger than 8192 bits only costs time.
    static let modulusBits = 2048...8192

    /// Reads `jwk` as the key of a proof signed with `algorithm` (already one of
    /// ``supportedAlgorithms``).
    init(jwk: JSONObject, algorithm: String) throws(DPoPRefusal) {
        for member in Self.privateMembers where jwk[member] != nil {
            throw .invalid("The jwk header holds a private key member; a proof carries the public key only.")
        }
        self.algorithm = algorithm
        switch (algorithm, jwk["kty"]) {
        case ("RS256", .string("RSA")?), ("PS256", .string("RSA")?):
            let n = try Self.member("n", of: jwk)
            let e = try Self.member("e", of: jwk)
            let modulus = Self.trimmed(try Self.bytes(n, "n"))
            let exponent = Self.trimmed(try Self.bytes(e, "e"))
            let bits = modulus.isEmpty ? 0 : (modulus.count - 1) * 8 + (8 - modulus[0].leadingZeroBitCount)
            guard Self.modulusBits.contains(bits), modulus.last.map({ $0 & 1 == 1 }) == true else {
                throw .invalid("The jwk is not an RSA public key of 2048 to 8192 bits.")
            }
            // An odd exponent of at least 3 and at most 64 bits (65537 in practice).
            guard (1...8).contains(exponent.count), exponent.last.map({ $0 & 1 == 1 }) == true,
                exponent != [1]
            else { throw .invalid("The jwk's RSA exponent is not an odd number from 3 to 2^64.") }
            material = .rsa(modulus: modulus, exponent: exponent)
            thumbprint = Self.thumbprint(["e": .string(e), "kty": "RSA", "n": .string(n)])
        case ("ES256", .string("EC")?):
            guard jwk["crv"] == .string("P-256") else { throw .invalid("The jwk of an ES256 proof is not on P-256.") }
            let x = try Self.member("x", of: jwk)
            let y = try Self.member("y", of: jwk)
            let xBytes = try Self.bytes(x, "x")
            let yBytes = try Self.bytes(y, "y")
            guard xBytes.count == 32, yBytes.count == 32 else {
                throw .invalid("The jwk's P-256 coordinates are not 32 bytes each.")
            }
            guard let point = try? P256PublicKey(x: xBytes, y: yBytes) else {
                throw .invalid("The jwk's x and y are not a point of P-256.")
            }
            material = .p256(point)
            thumbprint = Self.thumbprint(["crv": "P-256", "kty": "EC", "x": .string(x), "y": .string(y)])
        case ("EdDSA", .string("OKP")?):
            guard jwk["crv"] == .string("Ed25519") else {
                throw .invalid("The jwk of an EdDSA proof is not on Ed25519.")
            }
            let x = try Self.member("x", of: jwk)
            guard let point = try? Ed25519PublicKey(try Self.bytes(x, "x")) else {
                throw .invalid("The jwk's x is not the encoding of an Ed25519 point.")
            }
            material = .ed25519(point)
            // RFC 8037 §2: an OKP key's required members are crv, kty and x.
            thumbprint = Self.thumbprint(["crv": "Ed25519", "kty": "OKP", "x": .string(x)])
        default:
            throw .invalid(
                "The jwk is not a key of the proof's alg (RSA for RS256 and PS256, EC P-256 for ES256,"
                    + " OKP Ed25519 for EdDSA).")
        }
    }

    /// Whether `signature` is this key's signature of `input` (the JWS signing input).
    func verifies(_ signature: [UInt8], of input: [UInt8]) -> Bool {
        switch material {
        case .rsa(let modulus, let exponent) where algorithm == "PS256":
            guard let key = try? RSAPublicKey(modulus: modulus, exponent: exponent) else { return false }
            return (try? RSAPSSSignature.verifySHA256(signature: signature, message: input, key: key)) != nil
        case .rsa(let modulus, let exponent):
            return Self.verifyRS256(signature, of: input, modulus: modulus, exponent: exponent)
        case .p256(let key):
            // RFC 7518 §3.4: the signature is R ‖ S, 32 bytes each, not DER.
            return ECDSAP256.isValidSignature(signature, of: input, key: key)
        case .ed25519(let key):
            return Ed25519.isValidSignature(signature, of: input, key: key)
        }
    }

    // MARK: - RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 §8.2.2)

    /// The DER encoding of the SHA-256 `DigestInfo` up to the hash (RFC 8017 §9.2, note 1).
    static let digestInfoPrefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04,
        0x20,
    ]

    /// RSASSA-PKCS1-v1_5 verification (RFC 8017 §8.2.2): the signature is exactly k bytes (step 1),
    /// its value below n (RSAVP1, §5.2.2), and s^e mod n, as k bytes, is byte for byte the
    /// EMSA-PKCS1-v1_5 encoding of the SHA-256 of `input` (steps 2 to 4). The whole encoding is
    /// rebuilt and compared; nothing is parsed out of the opened signature.
    static func verifyRS256(_ signature: [UInt8], of input: [UInt8], modulus: [UInt8], exponent: [UInt8]) -> Bool {
        let length = modulus.count
        guard signature.count == length, let expected = encoding(AuthCrypto.SHA256.hash(input), length: length) else {
            return false
        }
        let n = BigUInt(bigEndian: modulus)
        let s = BigUInt(bigEndian: signature)
        guard s < n, let context = MontgomeryModulus(n),
            let opened = context.power(s, BigUInt(bigEndian: exponent))?.bigEndianBytes(count: length)
        else { return false }
        return opened == expected
    }

    /// EMSA-PKCS1-v1_5 (RFC 8017 §9.2): `00 01 FF…FF 00 ‖ DigestInfo ‖ H`, `length` bytes, with at
    /// least 8 bytes of `FF`; `nil` when it does not fit.
    static func encoding(_ digest: [UInt8], length: Int) -> [UInt8]? {
        let digestInfo = digestInfoPrefix + digest
        let padding = length - digestInfo.count - 3
        guard digest.count == 32, padding >= 8 else { return nil }
        return [0x00, 0x01] + [UInt8](repeating: 0xFF, count: padding) + [0x00] + digestInfo
    }

    // MARK: - Reading the members

    private static func member(_ name: String, of jwk: JSONObject) throws(DPoPRefusal) -> String {
        guard case .string(let value)? = jwk[name], !value.isEmpty else {
            throw .invalid("The jwk has no \(name) string.")
        }
        return value
    }

    private static func bytes(_ text: String, _ name: String) throws(DPoPRefusal) -> [UInt8] {
        guard let data = DPoPProofChecker.base64URL(text) else {
            throw .invalid("The jwk's \(name) is not base64url.")
        }
        return Array(data)
    }

    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0 })
    }

    /// RFC 7638 §3: the required members only, in lexicographic order, no white space; SHA-256;
    /// base64url. The members are hashed as the `jwk` gave them.
    static func thumbprint(_ required: JSONObject) -> String {
        Encoding.base64URL(Data(AuthCrypto.SHA256.hash(Array(required.data))))
    }
}
