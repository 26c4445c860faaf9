import AuthCrypto
public import Foundation

/// PS256 and RS256 DPoP keys made and used by the SDK itself: a 2048-bit RSA key per account,
/// generated with the system's secure random numbers, kept with the account in the client's
/// credential store (as PKCS #1 DER) and used with blinded, fault-checked signing. PS256 (RSASSA-PSS,
/// its salt from the secure random generator) is preferred where the server takes it, as FAPI 2.0
/// asks; RS256 otherwise. The default on platforms without CryptoKit (Linux); available everywhere.
public struct SoftwareDPoPKeyProvider: DPoPKeyProvider {
    /// The size of the keys it makes, in bits.
    public let keySize: Int

    /// A provider of `keySize`-bit keys (2048 by default; 2048 to 4096).
    public init(keySize: Int = 2048) {
        self.keySize = keySize
    }

    /// `PS256`, then `RS256`.
    public var supportedAlgorithms: [String] { ["PS256", "RS256"] }

    /// What a PS256 key's stored form starts with; an RS256 key's is the DER alone (as before PS256
    /// keys existed), which always starts with 0x30.
    static let pssMarker = Data("PS256:".utf8)

    /// A new RSA key for `algorithm` (`PS256` or `RS256`); its stored form is the key in PKCS #1
    /// DER (RFC 8017 appendix A.1.2), after a marker for a PS256 key.
    public func makeKey(algorithm: String) async throws -> (key: any DPoPKey, storedForm: Data) {
        guard let pss = ["PS256": true, "RS256": false][algorithm] else {
            throw DPoPKeyProviderError.unsupportedAlgorithm(algorithm)
        }
        let key = try RSAPrivateKey.generate(bits: keySize)
        return (SoftwareRSAKey(key: key, pss: pss), (pss ? Self.pssMarker : Data()) + Data(key.pkcs1DER))
    }

    /// The key of a stored form this provider made.
    public func restoreKey(from storedForm: Data) async throws -> any DPoPKey {
        let pss = storedForm.starts(with: Self.pssMarker)
        do {
            return SoftwareRSAKey(
                key: try RSAPrivateKey(pkcs1DER: pss ? storedForm.dropFirst(Self.pssMarker.count) : storedForm),
                pss: pss)
        } catch {
            throw DPoPKeyProviderError.unreadableStoredForm
        }
    }
}

/// An RSA private key as a DPoP key. Its description names the algorithm only. A class: the key
/// never changes, and its many parts are shared rather than copied.
final class SoftwareRSAKey: DPoPKey, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let key: RSAPrivateKey
    /// Whether it signs PS256 (RSASSA-PSS) rather than RS256 (RSASSA-PKCS1-v1_5).
    let pss: Bool

    init(key: RSAPrivateKey, pss: Bool) {
        self.key = key
        self.pss = pss
    }

    var algorithm: String { pss ? "PS256" : "RS256" }

    var publicJWK: [String: String] {
        [
            "kty": "RSA", "n": Base64URL.encode(key.publicKey.modulusBytes),
            "e": Base64URL.encode(key.publicKey.exponentBytes),
        ]
    }

    func sign(_ input: Data) async throws -> Data {
        Data(pss ? try key.signPSSSHA256(input) : try key.signSHA256(input))
    }

    var description: String { "DPoPKey(\(algorithm), \(key.publicKey.modulusBitWidth) bits)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
