package import AuthCrypto

/// Why a JWK Set member was skipped.
package indirect enum JSONWebKeyRejection: Error, Hashable, Sendable, CustomStringConvertible {
    /// The member is not a JSON object.
    case notAnObject
    /// `kty` is missing or not "RSA", "EC" or "OKP" (the value is kept).
    case unsupportedKeyType(String?)
    /// `crv` is missing, or not "P-256" for "EC", or not "Ed25519" for "OKP" (the value is kept).
    case unsupportedCurve(String?)
    /// `use` is not "sig" (for example "enc").
    case unsupportedUse(String)
    /// `key_ops` does not include "verify".
    case notForVerification
    /// `alg` names an algorithm the SDK does not verify with this type of key.
    case unsupportedAlgorithm(String)
    /// A member is missing, of the wrong JSON type, or not base64url (the member's name is kept).
    case invalidParameter(String)
    /// `n` and `e` decode but do not make an acceptable RSA key.
    case unsuitableKey(RSAKeyError)
    /// `x` (and `y`) decode but are not an acceptable P-256 or Ed25519 point.
    case unsuitableCurveKey(ECKeyError)
    /// The set holds more keys than the SDK reads (``JSONWebKeySet/maximumKeys``); this one was not read.
    case beyondLimit

    package var description: String {
        switch self {
        case .notAnObject: "key is not a JSON object"
        case .unsupportedKeyType(let type): "key type \(LogSafe.quoted(type)) is not RSA, EC or OKP"
        case .unsupportedCurve(let curve): "key curve \(LogSafe.quoted(curve)) is not P-256 (EC) or Ed25519 (OKP)"
        case .unsupportedUse(let use): "key use \(LogSafe.quoted(use)) is not sig"
        case .notForVerification: "key operations do not include verify"
        case .unsupportedAlgorithm(let algorithm):
            "key algorithm \(LogSafe.quoted(algorithm)) is not one the SDK verifies with this key type"
        case .invalidParameter(let name): "key member \(LogSafe.quoted(name)) is missing or invalid"
        case .unsuitableKey(let error): error.description
        case .unsuitableCurveKey(let error): error.description
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
        var printable = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(64) {
            printable.append(scalar.isASCII && scalar.value >= 0x20 && scalar.value < 0x7f ? scalar : "?")
        }
        return "\"" + String(printable) + (text.unicodeScalars.count > 64 ? "…" : "") + "\""
    }
}
