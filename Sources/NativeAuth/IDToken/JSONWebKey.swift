import AuthCrypto
import AuthSupport
import Foundation

/// A public key from a JWK Set (RFC 7517) that may check signatures, with the algorithms it is
/// published for: the key decides the algorithm, never the token alone.
///
/// Only keys that can check a signature are built. Every kind: `use`, when present, "sig";
/// `key_ops`, when present, including "verify". Then by `kty`:
/// - "RSA": `n` and `e` acceptable to `RSAPublicKey` (2048 to 8192 bits, odd; an odd exponent of at
///   least 3 and below 2^256); `alg` "RS256" or "PS256", or absent for both.
/// - "EC": `crv` "P-256", `x` and `y` 32 bytes each, below the field prime, a point on the curve
///   (`P256PublicKey`); `alg` "ES256" or absent.
/// - "OKP": `crv` "Ed25519", `x` the 32-byte encoding of a curve point (`Ed25519PublicKey`); `alg`
///   "EdDSA" (or its fully specified name "Ed25519") or absent.
///
/// Private members, if a careless set has them, are ignored.
///
/// Reading an RSA key checks only sizes and parities; the expensive part (the modulus's
/// Montgomery form) is done the first time a token names the key, so a key set full of keys no
/// token uses costs little. An EC or OKP key is checked in full when read: a few field
/// operations for P-256, one exponentiation of 256-bit numbers (microseconds) for Ed25519.
///
/// A class, and its material an indirect enum: a key never changes once read, and a reference is
/// what sets and caches copy.
final class JSONWebKey: Sendable, Hashable {
    /// What the key is, checked.
    indirect enum Material: Sendable, Hashable {
        /// The modulus and exponent, big-endian, without leading zeros (checked, not prepared).
        case rsa(modulus: [UInt8], exponent: [UInt8])
        /// A P-256 point.
        case p256(P256PublicKey)
        /// An Ed25519 point.
        case ed25519(Ed25519PublicKey)
    }

    /// The `kid` member, which tokens name in their header.
    let keyID: String?
    /// The key itself.
    let material: Material
    /// The algorithms the key may verify: its `alg`, or every algorithm its type signs with.
    let algorithms: Set<JWSAlgorithm>
    /// The prepared RSA key, made on first use and shared by copies of this key.
    private let prepared: Locked<RSAPublicKey?>

    /// An RSA key from its parts, for callers that already hold them; `algorithms` defaults to
    /// both RSA algorithms.
    init(keyID: String?, publicKey: RSAPublicKey, algorithms: Set<JWSAlgorithm> = [.rs256, .ps256]) {
        self.keyID = keyID
        material = .rsa(modulus: publicKey.modulusBytes, exponent: publicKey.exponentBytes)
        self.algorithms = algorithms
        prepared = Locked(publicKey)
    }

    /// The RSA public key, prepared on first use; `nil` for other kinds, or if the checked bytes
    /// cannot be prepared.
    var publicKey: RSAPublicKey? {
        guard case .rsa(let modulus, let exponent) = material else { return nil }
        if let key = prepared.current { return key }
        guard let key = try? RSAPublicKey(modulus: modulus, exponent: exponent) else { return nil }
        prepared.withLock { $0 = key }
        return key
    }

    /// The key to verify with, prepared when it is RSA; `nil` only if RSA bytes cannot be prepared.
    var verificationKey: SignatureVerificationKey? {
        switch material {
        case .rsa: publicKey.map(SignatureVerificationKey.rsa)
        case .p256(let key): .p256(key)
        case .ed25519(let key): .ed25519(key)
        }
    }

    /// Whether the RSA key was prepared (a token named it); `true` for other kinds.
    var isPrepared: Bool {
        guard case .rsa = material else { return true }
        return prepared.current != nil
    }

    static func == (lhs: JSONWebKey, rhs: JSONWebKey) -> Bool {
        lhs.keyID == rhs.keyID && lhs.material == rhs.material && lhs.algorithms == rhs.algorithms
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(keyID)
        hasher.combine(material)
    }

    /// Reads one member of a JWK Set's `keys` array.
    /// - Throws: `JSONWebKeyRejection` naming why the key cannot check signatures.
    init(_ value: JSONValue) throws(JSONWebKeyRejection) {
        guard case .object(let members) = value else { throw .notAnObject }
        if let kid = members["kid"], kid.stringValue == nil { throw .invalidParameter("kid") }
        let keyType = members["kty"]?.stringValue
        guard let keyType, ["RSA", "EC", "OKP"].contains(keyType) else { throw .unsupportedKeyType(keyType) }
        if let use = members["use"] {
            guard let text = use.stringValue else { throw .invalidParameter("use") }
            guard text == "sig" else { throw .unsupportedUse(text) }
        }
        if let operations = members["key_ops"] {
            guard let list = operations.arrayValue else { throw .invalidParameter("key_ops") }
            guard list.contains(.string("verify")) else { throw .notForVerification }
        }
        let typeAlgorithms: Set<JWSAlgorithm>
        switch keyType {
        case "RSA":
            typeAlgorithms = [.rs256, .ps256]
            material = try Self.rsa(members)
        case "EC":
            typeAlgorithms = [.es256]
            material = .p256(try Self.p256(members))
        default:
            typeAlgorithms = [.edDSA]
            material = .ed25519(try Self.ed25519(members))
        }
        if let algorithm = members["alg"] {
            guard let text = algorithm.stringValue else { throw .invalidParameter("alg") }
            guard let named = JWSAlgorithm(joseName: text), typeAlgorithms.contains(named) else {
                throw .unsupportedAlgorithm(text)
            }
            algorithms = [named]
        } else {
            algorithms = typeAlgorithms
        }
        prepared = Locked(nil)
        keyID = members["kid"]?.stringValue
    }

    private static func rsa(_ members: [String: JSONValue]) throws(JSONWebKeyRejection) -> Material {
        let modulus = try bytes("n", of: members)
        let exponent = try bytes("e", of: members)
        do {
            try RSAPublicKey.check(modulus: modulus, exponent: exponent)
        } catch {
            throw .unsuitableKey(error)
        }
        return .rsa(modulus: withoutLeadingZeros(modulus), exponent: withoutLeadingZeros(exponent))
    }

    /// Big-endian bytes without their leading zeros.
    private static func withoutLeadingZeros(_ bytes: Data) -> [UInt8] { Array(bytes.drop { $0 == 0 }) }

    private static func p256(_ members: [String: JSONValue]) throws(JSONWebKeyRejection) -> P256PublicKey {
        let curve = members["crv"]?.stringValue
        guard curve == "P-256" else { throw .unsupportedCurve(curve) }
        let x = try bytes("x", of: members)
        let y = try bytes("y", of: members)
        do {
            return try P256PublicKey(x: x, y: y)
        } catch {
            throw .unsuitableCurveKey(error)
        }
    }

    private static func ed25519(_ members: [String: JSONValue]) throws(JSONWebKeyRejection) -> Ed25519PublicKey {
        let curve = members["crv"]?.stringValue
        guard curve == "Ed25519" else { throw .unsupportedCurve(curve) }
        let x = try bytes("x", of: members)
        do {
            return try Ed25519PublicKey(x)
        } catch {
            throw .unsuitableCurveKey(error)
        }
    }

    /// The base64url member `name`, decoded; never empty.
    private static func bytes(_ name: String, of members: [String: JSONValue]) throws(JSONWebKeyRejection) -> Data {
        guard let value = members[name]?.stringValue.flatMap(Base64URL.decode), !value.isEmpty else {
            throw .invalidParameter(name)
        }
        return value
    }
}
