#if canImport(Security) && canImport(CryptoKit)
    import CryptoKit
    import Foundation
    import Security

    /// The signature checks of Apple's frameworks: RSA by Security (the key handed over as PKCS #1
    /// DER, built and tested portably in `RSAPublicKey.pkcs1DER`), P-256 and Ed25519 by CryptoKit.
    /// Reached only through ``FrameworkSignatureVerifier``, which has already matched the
    /// algorithm to the key and checked the signature's length.
    package struct AppleSignatureFramework: SignatureFramework {
        /// Apple's frameworks.
        package init() {}

        package func verifyRSAPKCS1SHA256(signature: [UInt8], message: [UInt8], pkcs1Key: [UInt8]) -> Bool {
            verifyRSA(.rsaSignatureMessagePKCS1v15SHA256, signature: signature, message: message, pkcs1Key: pkcs1Key)
        }

        package func verifyRSAPSSSHA256(signature: [UInt8], message: [UInt8], pkcs1Key: [UInt8]) -> Bool {
            // Security's PSS algorithms use MGF1 with the same hash and a salt as long as the hash.
            verifyRSA(.rsaSignatureMessagePSSSHA256, signature: signature, message: message, pkcs1Key: pkcs1Key)
        }

        package func verifyP256(signature: [UInt8], message: [UInt8], rawKey: [UInt8]) -> Bool {
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: rawKey),
                let value = try? P256.Signing.ECDSASignature(rawRepresentation: signature)
            else { return false }
            return key.isValidSignature(value, for: message)
        }

        package func verifyEd25519(signature: [UInt8], message: [UInt8], rawKey: [UInt8]) -> Bool {
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawKey) else { return false }
            return key.isValidSignature(signature, for: message)
        }

        private func verifyRSA(
            _ algorithm: SecKeyAlgorithm, signature: [UInt8], message: [UInt8], pkcs1Key: [UInt8]
        ) -> Bool {
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
            ]
            var error: Unmanaged<CFError>?
            guard let key = SecKeyCreateWithData(Data(pkcs1Key) as CFData, attributes as CFDictionary, &error) else {
                return false
            }
            return SecKeyVerifySignature(key, algorithm, Data(message) as CFData, Data(signature) as CFData, &error)
        }
    }
#endif
