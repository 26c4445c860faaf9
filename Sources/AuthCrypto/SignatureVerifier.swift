/// A JWS signature algorithm the SDK verifies (RFC 7518 §3.1, RFC 8037 §3.1). `none` and the HMAC
/// algorithms are not here and never will be: a token is accepted only on a public-key signature.
package enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// RSASSA-PSS with SHA-256, MGF1 with SHA-256 and a 32-byte salt.
    case ps256 = "PS256"
    /// ECDSA on P-256 with SHA-256; the signature is r ‖ s, 64 bytes.
    case es256 = "ES256"
    /// EdDSA; with an Ed25519 key (the only curve accepted) the signature is 64 bytes.
    case edDSA = "EdDSA"

    /// The algorithm a JOSE `alg` value names: its own name, or "Ed25519", the fully specified
    /// name of EdDSA with Ed25519 (RFC 9864); `nil` for any other value.
    package init?(joseName: String) {
        if joseName == "Ed25519" {
            self = .edDSA
        } else {
            self.init(rawValue: joseName)
        }
    }
}

/// A public key a JWS signature can be checked with: its type decides which algorithms apply.
package enum SignatureVerificationKey: Sendable, Hashable {
    /// An RSA key: RS256 and PS256.
    case rsa(RSAPublicKey)
    /// A P-256 key: ES256.
    case p256(P256PublicKey)
    /// An Ed25519 key: EdDSA.
    case ed25519(Ed25519PublicKey)

    /// Whether `algorithm` is one this kind of key signs with.
    package func fits(_ algorithm: JWSAlgorithm) -> Bool {
        switch (self, algorithm) {
        case (.rsa, .rs256), (.rsa, .ps256), (.p256, .es256), (.ed25519, .edDSA): true
        default: false
        }
    }

    /// The signature length `algorithm` has with this key: the modulus length for RSA, 64 for
    /// ES256 and EdDSA.
    package var signatureLength: Int {
        switch self {
        case .rsa(let key): key.modulusByteCount
        case .p256, .ed25519: 64
        }
    }
}

/// Checks one JWS signature. `PortableSignatureVerifier` runs everywhere with this module's own
/// arithmetic; on Apple platforms the platform's frameworks do the same (``platformDefault``).
package protocol SignatureVerifier: Sendable {
    /// `true` when `signature` is a valid `algorithm` signature of `message` under `key`; `false`
    /// too when `algorithm` does not fit `key`.
    func isValidSignature(
        _ signature: [UInt8], of message: [UInt8], algorithm: JWSAlgorithm, key: SignatureVerificationKey
    ) -> Bool
}

/// The checks in Swift, the same on every platform: RSA by `RSASignature` and `RSAPSSSignature`,
/// P-256 by `ECDSAP256`, Ed25519 by `Ed25519`.
package struct PortableSignatureVerifier: SignatureVerifier {
    /// The portable check.
    package init() {}

    package func isValidSignature(
        _ signature: [UInt8], of message: [UInt8], algorithm: JWSAlgorithm, key: SignatureVerificationKey
    ) -> Bool {
        switch (algorithm, key) {
        case (.rs256, .rsa(let rsa)):
            return (try? RSASignature.verifySHA256(signature: signature, message: message, key: rsa)) != nil
        case (.ps256, .rsa(let rsa)):
            return (try? RSAPSSSignature.verifySHA256(signature: signature, message: message, key: rsa)) != nil
        case (.es256, .p256(let p256)):
            return ECDSAP256.isValidSignature(signature, of: message, key: p256)
        case (.edDSA, .ed25519(let ed25519)):
            return Ed25519.isValidSignature(signature, of: message, key: ed25519)
        default:
            return false
        }
    }
}

/// The operations a platform's crypto framework offers, each on raw encodings, so the code that
/// chooses among them (``FrameworkSignatureVerifier``) is the same, and tested, on every platform.
package protocol SignatureFramework: Sendable {
    /// RSASSA-PKCS1-v1_5 with SHA-256, the key as PKCS #1 DER.
    func verifyRSAPKCS1SHA256(signature: [UInt8], message: [UInt8], pkcs1Key: [UInt8]) -> Bool
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt, the key as PKCS #1 DER.
    func verifyRSAPSSSHA256(signature: [UInt8], message: [UInt8], pkcs1Key: [UInt8]) -> Bool
    /// ECDSA P-256 with SHA-256, the signature r ‖ s and the key x ‖ y (32 bytes each).
    func verifyP256(signature: [UInt8], message: [UInt8], rawKey: [UInt8]) -> Bool
    /// Ed25519, the key its 32-byte encoding.
    func verifyEd25519(signature: [UInt8], message: [UInt8], rawKey: [UInt8]) -> Bool
}

/// A ``SignatureVerifier`` that hands each check to a platform framework once the algorithm fits
/// the key and the signature has the length the algorithm gives it, so a framework never sees a
/// mismatched pair.
package struct FrameworkSignatureVerifier<Framework: SignatureFramework>: SignatureVerifier {
    /// The framework the checks are handed to.
    package let framework: Framework

    /// A verifier over `framework`.
    package init(framework: Framework) {
        self.framework = framework
    }

    package func isValidSignature(
        _ signature: [UInt8], of message: [UInt8], algorithm: JWSAlgorithm, key: SignatureVerificationKey
    ) -> Bool {
        guard key.fits(algorithm), signature.count == key.signatureLength else { return false }
        switch (algorithm, key) {
        case (.rs256, .rsa(let rsa)):
            return framework.verifyRSAPKCS1SHA256(signature: signature, message: message, pkcs1Key: rsa.pkcs1DER)
        case (.ps256, .rsa(let rsa)):
            return framework.verifyRSAPSSSHA256(signature: signature, message: message, pkcs1Key: rsa.pkcs1DER)
        case (.es256, .p256(let p256)):
            return framework.verifyP256(signature: signature, message: message, rawKey: p256.xBytes + p256.yBytes)
        case (.edDSA, .ed25519(let ed25519)):
            return framework.verifyEd25519(signature: signature, message: message, rawKey: ed25519.bytes)
        default:
            return false
        }
    }
}

extension SignatureVerifier where Self == PlatformSignatureVerifier {
    /// The platform's check: Security and CryptoKit on Apple platforms, the portable one elsewhere.
    package static var platformDefault: PlatformSignatureVerifier { PlatformSignatureVerifier.make() }
}

#if canImport(Security) && canImport(CryptoKit)
    /// Security and CryptoKit, on Apple platforms.
    package typealias PlatformSignatureVerifier = FrameworkSignatureVerifier<AppleSignatureFramework>

    extension FrameworkSignatureVerifier where Framework == AppleSignatureFramework {
        static func make() -> Self { Self(framework: AppleSignatureFramework()) }
    }
#else
    /// The portable check, where the platform offers none.
    package typealias PlatformSignatureVerifier = PortableSignatureVerifier

    extension PortableSignatureVerifier {
        static func make() -> Self { Self() }
    }
#endif
