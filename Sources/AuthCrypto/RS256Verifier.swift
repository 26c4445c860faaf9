/// Checks one RS256 (RSASSA-PKCS1-v1_5 with SHA-256) signature.
///
/// `PortableRS256Verifier` runs everywhere; on Apple platforms `SecurityRS256Verifier` does the
/// same with the Security framework and is the ID token check's default there
/// (``platformDefault``), the portable one being kept as a cross-check in the tests.
package protocol RS256Verifier: Sendable {
    /// `true` when `signature` is a valid RS256 signature of `message` under `key`.
    func isValidSignature(_ signature: [UInt8], of message: [UInt8], key: RSAPublicKey) -> Bool
}

extension RS256Verifier where Self == PlatformRS256Verifier {
    /// The platform's check: the Security framework where it exists, the portable one elsewhere.
    package static var platformDefault: PlatformRS256Verifier { PlatformRS256Verifier() }
}

#if canImport(Security)
    /// The Security framework's check, on Apple platforms.
    package typealias PlatformRS256Verifier = SecurityRS256Verifier
#else
    /// The portable check, where the platform offers none.
    package typealias PlatformRS256Verifier = PortableRS256Verifier
#endif

/// The RS256 check in Swift (`RSASignature`), the same on every platform.
package struct PortableRS256Verifier: RS256Verifier {
    /// The portable check.
    package init() {}

    package func isValidSignature(_ signature: [UInt8], of message: [UInt8], key: RSAPublicKey) -> Bool {
        do {
            try RSASignature.verifySHA256(signature: signature, message: message, key: key)
            return true
        } catch {
            return false
        }
    }
}
