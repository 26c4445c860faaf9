import AuthCrypto
public import Foundation

/// RS256 DPoP keys made and used by the SDK itself: a 2048-bit RSA key per account, generated with
/// the system's secure random numbers, kept with the account in the client's credential store
/// (as PKCS #1 DER) and used with blinded, fault-checked signing. The default on platforms
/// without CryptoKit (Linux); available everywhere.
public struct SoftwareDPoPKeyProvider: DPoPKeyProvider {
    /// The size of the keys it makes, in bits.
    public let keySize: Int

    /// A provider of `keySize`-bit keys (2048 by default; 2048 to 4096).
    public init(keySize: Int = 2048) {
        self.keySize = keySize
    }

    /// `RS256` only.
    public var supportedAlgorithms: [String] { ["RS256"] }

    /// A new RSA key; its stored form is the key in PKCS #1 DER (RFC 8017 appendix A.1.2).
    public func makeKey(algorithm: String) async throws -> (key: any DPoPKey, storedForm: Data) {
        guard algorithm == "RS256" else { throw DPoPKeyProviderError.unsupportedAlgorithm(algorithm) }
        let key = try RSAPrivateKey.generate(bits: keySize)
        return (SoftwareRSAKey(key: key), Data(key.pkcs1DER))
    }

    /// The key of a stored form this provider made.
    public func restoreKey(from storedForm: Data) async throws -> any DPoPKey {
        do {
            return SoftwareRSAKey(key: try RSAPrivateKey(pkcs1DER: storedForm))
        } catch {
            throw DPoPKeyProviderError.unreadableStoredForm
        }
    }
}

/// An RSA private key as a DPoP key. Its description names the algorithm only.
struct SoftwareRSAKey: DPoPKey, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let key: RSAPrivateKey

    var algorithm: String { "RS256" }

    var publicJWK: [String: String] {
        [
            "kty": "RSA", "n": Base64URL.encode(key.publicKey.modulusBytes),
            "e": Base64URL.encode(key.publicKey.exponentBytes),
        ]
    }

    func sign(_ input: Data) async throws -> Data { Data(try key.signSHA256(input)) }

    var description: String { "DPoPKey(RS256, \(key.publicKey.modulusBitWidth) bits)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
