/// Checks one RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature.
///
/// `PortableRS256Verifier` runs everywhere and is what the ID token check uses by default; on Apple
/// platforms `SecurityRS256Verifier` does the same with the Security framework.
protocol RS256Verifier: Sendable {
    /// `true` when `signature` is a valid RS256 signature of `message` under `key`.
    func isValidSignature(_ signature: [UInt8], of message: [UInt8], key: RSAPublicKey) -> Bool
}

/// The RS256 check in Swift (`RSASignature`), the same on every platform.
struct PortableRS256Verifier: RS256Verifier {
    func isValidSignature(_ signature: [UInt8], of message: [UInt8], key: RSAPublicKey) -> Bool {
        do {
            try RSASignature.verifySHA256(signature: signature, message: message, key: key)
            return true
        } catch {
            return false
        }
    }
}
