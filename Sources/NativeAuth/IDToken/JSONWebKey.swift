import AuthCrypto
import Foundation

/// An RSA key from a JWK Set (RFC 7517) that may check RS256 signatures.
///
/// Only keys that can do that are built: `kty` "RSA"; `use`, when present, "sig"; `key_ops`, when
/// present, including "verify"; `alg`, when present, "RS256"; `n` and `e` base64url and acceptable
/// to `RSAPublicKey` (2048 to 8192 bits, odd). Private members, if a careless set has them, are ignored.
struct JSONWebKey: Sendable, Hashable {
    /// The `kid` member, which tokens name in their header.
    let keyID: String?
    /// The public key.
    let publicKey: RSAPublicKey

    /// A key from its parts, for callers that already hold them.
    init(keyID: String?, publicKey: RSAPublicKey) {
        self.keyID = keyID
        self.publicKey = publicKey
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
            publicKey = try RSAPublicKey(modulus: modulus, exponent: exponent)
        } catch {
            throw .unsuitableKey(error)
        }
        keyID = members["kid"]?.stringValue
    }
}

/// Why a JWK Set member was skipped.
enum JSONWebKeyRejection: Error, Hashable, Sendable, CustomStringConvertible {
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

    var description: String {
        switch self {
        case .notAnObject: "key is not a JSON object"
        case .unsupportedKeyType(let type): "key type \(LogSafe.quoted(type)) is not RSA"
        case .unsupportedUse(let use): "key use \(LogSafe.quoted(use)) is not sig"
        case .notForVerification: "key operations do not include verify"
        case .unsupportedAlgorithm(let algorithm): "key algorithm \(LogSafe.quoted(algorithm)) is not RS256"
        case .invalidParameter(let name): "key member \(LogSafe.quoted(name)) is missing or invalid"
        case .unsuitableKey(let error): error.description
        }
    }
}

/// Short, printable renderings of values taken from keys and token headers, for error descriptions.
enum LogSafe {
    /// `text` quoted, cut to 64 characters, with anything outside printable ASCII replaced by "?".
    static func quoted(_ text: String?) -> String {
        guard let text else { return "(none)" }
        let printable = text.unicodeScalars.prefix(64).map {
            $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?"
        }
        return "\"" + String(printable) + (text.unicodeScalars.count > 64 ? "…" : "") + "\""
    }
}
