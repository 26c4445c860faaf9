#if canImport(Security)
    import Foundation
    import Security

    /// The RS256 check done by the Security framework: the key is handed over as its PKCS #1 DER
    /// (built and tested portably in `RSAPublicKey.pkcs1DER`), and Security hashes and verifies.
    package struct SecurityRS256Verifier: RS256Verifier {
        /// The Security framework's check.
        package init() {}

        package func isValidSignature(_ signature: [UInt8], of message: [UInt8], key: RSAPublicKey) -> Bool {
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
            ]
            var error: Unmanaged<CFError>?
            guard
                let secKey = SecKeyCreateWithData(
                    Data(key.pkcs1DER) as CFData, attributes as CFDictionary, &error)
            else { return false }
            return SecKeyVerifySignature(
                secKey, .rsaSignatureMessagePKCS1v15SHA256, Data(message) as CFData, Data(signature) as CFData,
                &error)
        }
    }
#endif
