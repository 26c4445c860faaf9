package import AuthCrypto
import AuthSupport
import Foundation

/// An RSA key from a JWK Set (RFC 7517) that may check RS256 signatures.
///
/// Only keys that can do that are built: `kty` "RSA"; `use`, when present, "sig"; `key_ops`, when
/// present, including "verify"; `alg`, when present, "RS256"; `n` and `e` base64url and acceptable
/// to `RSAPublicKey` (2048 to 8192 bits, odd; an odd exponent above 2^16 and below 2^256). Private
/// members, if a careless set has them, are ignored.
///
/// Reading a key checks only sizes and parities; the expensive part (the modulus's Montgomery
/// form) is done the first time a token names the key, so a key set full of keys no token uses
/// costs little.
struct JSONWebKey: Sendable, Hashable {
    /// The `kid` member, which tokens name in their header.
    let keyID: String?
    /// The modulus and exponent, big-endian, as the set gave them (checked, not prepared).
    let modulus: [UInt8]
    let exponent: [UInt8]
    /// The prepared key, made on first use and shared by copies of this key.
    private let prepared: Locked<RSAPublicKey?>

    /// A key from its parts, for callers that already hold them.
    init(keyID: String?, publicKey: RSAPublicKey) {
        self.keyID = keyID
        modulus = publicKey.modulus.modulus.bigEndianBytes
        exponent = publicKey.exponent.bigEndianBytes
        prepared = Locked(publicKey)
    }

    /// The public key, prepared on first use; `nil` only if the checked bytes cannot be prepared.
    var publicKey: RSAPublicKey? {
        if let key = prepared.current { return key }
        guard let key = try? RSAPublicKey(modulus: modulus, exponent: exponent) else { return nil }
        prepared.withLock { $0 = key }
        return key
    }

    /// Whether the key was prepared (a token named it).
    var isPrepared: Bool { prepared.current != nil }

    static func == (lhs: JSONWebKey, rhs: JSONWebKey) -> Bool {
        lhs.keyID == rhs.keyID && lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(keyID)
        hasher.combine(modulus)
        hasher.combine(exponent)
    }

    /// Reads one member of a JWK Set's `keys` array.
    /// - Throws: `JSONWebKeyRejection` naming why the key cannot check RS256 signatures.
    init(_ value: JSONValue) throws(JSONWebKeyRejection) {
        guard case .object(let members) = value else { throw .notAnObject }
        if let kid = members["kid"], kid.stringValue == nil { throw .invalidParameter("kid") }
        let keyType = members["kty"]?.stringValue
        guard keyType == "RSA" else { throw .unsupportedKeyType(keyType) }
        if let use = members["use"] {
            guard let text = use.stringValue else { throw .invalidParameter("use") }
            guard text == "sig" else { throw .unsupportedUse(text) }
        }
        if let operations = members["key_ops"] {
            guard let list = operations.arrayValue else { throw .invalidParameter("key_ops") }
            guard list.contains(.string("verify")) else { throw .notForVerification }
        }
        if let algorithm = members["alg"] {
            guard let text = algorithm.stringValue else { throw .invalidParameter("alg") }
            guard text == "RS256" else { throw .unsupportedAlgorithm(text) }
        }
        guard let modulus = members["n"]?.stringValue.flatMap(Base64URL.decode), !modulus.isEmpty else {
            throw .invalidParameter("n")
        }
        guard let exponent = members["e"]?.stringValue.flatMap(Base64URL.decode), !exponent.isEmpty else {
            throw .invalidParameter("e")
        }
        do {
            try RSAPublicKey.check(modulus: modulus, exponent: exponent)
        } catch {
            throw .unsuitableKey(error)
        }
        self.modulus = Array(modulus.drop { $0 == 0 })
        self.exponent = Array(exponent.drop { $0 == 0 })
        prepared = Locked(nil)
        keyID = members["kid"]?.stringValue
    }
}

/// Why a JWK Set member was skipped.
package enum JSONWebKeyRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The member is not a JSON object.
    case notAnObject
    /// `kty` is missing or not "RSA" (the value is kept).
    case unsupportedKeyType(String?)
    /// `use` is not "sig" (for example "enc").
    case unsupportedUse(String)
    /// `key_ops` does not include "verify".
    case notForVerification
    /// `alg` names an algorithm other than RS256.
    case unsupportedAlgorithm(String)
    /// A member is missing, of the wrong JSON type, or not base64url (the member's name is kept).
    case invalidParameter(String)
    /// `n` and `e` decode but do not make an acceptable RSA key.
    case unsuitableKey(RSAKeyError)
    /// The set holds more keys than the SDK reads (``JSONWebKeySet/maximumKeys``); this one was not read.
    case beyondLimit

    package var description: String {
        switch self {
        case .notAnObject: "key is not a JSON object"
        case .unsupportedKeyType(let type): "key type \(LogSafe.quoted(type)) is not RSA"
        case .unsupportedUse(let use): "key use \(LogSafe.quoted(use)) is not sig"
        case .notForVerification: "key operations do not include verify"
        case .unsupportedAlgorithm(let algorithm): "key algorithm \(LogSafe.quoted(algorithm)) is not RS256"
        case .invalidParameter(let name): "key member \(LogSafe.quoted(name)) is missing or invalid"
        case .unsuitableKey(let error): error.description
        case .beyondLimit:
            "key is beyond the first \(JSONWebKeySet.maximumKeys) keys of the set, which are all the SDK reads"
        }
    }
}

/// Short, printable renderings of values taken from keys and token headers, for error descriptions.
enum LogSafe {
    /// `text` quoted, cut to 64 characters, with anything outside printable ASCII replaced by "?".
    @inline(never)
    static func quoted(_ text: String?) -> String {
        guard let text else { return "(none)" }
        let printable = text.unicodeScalars.prefix(64).map {
            $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?"
        }
        return "\"" + String(printable) + (text.unicodeScalars.count > 64 ? "…" : "") + "\""
    }
}
