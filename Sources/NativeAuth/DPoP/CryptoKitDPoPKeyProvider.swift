#if canImport(CryptoKit)
    import CryptoKit
    public import Foundation

    /// ES256 DPoP keys from CryptoKit: a P-256 key in the Secure Enclave where the device has one
    /// (the key never leaves it; the stored form is an encrypted handle only this device can use),
    /// else a software P-256 key, stored with the account in the client's credential store.
    ///
    /// Apple's documentation: `SecureEnclave.P256.Signing.PrivateKey`
    /// (https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey),
    /// its `init(compactRepresentable:accessControl:authenticationContext:)`,
    /// `init(dataRepresentation:authenticationContext:)` and `dataRepresentation`;
    /// `P256.Signing.PrivateKey` (`init(rawRepresentation:)`, `rawRepresentation`);
    /// `P256.Signing.PublicKey.x963Representation`; `P256.Signing.ECDSASignature.rawRepresentation`.
    public struct CryptoKitDPoPKeyProvider: DPoPKeyProvider {
        /// Whether keys go into the Secure Enclave when the device has one (the default).
        public var prefersSecureEnclave: Bool

        /// A provider; `prefersSecureEnclave: false` makes software keys everywhere.
        public init(prefersSecureEnclave: Bool = true) {
            self.prefersSecureEnclave = prefersSecureEnclave
        }

        /// `ES256` only.
        public var supportedAlgorithms: [String] { ["ES256"] }

        /// A new P-256 key: in the Secure Enclave when preferred and present, else in software.
        public func makeKey(algorithm: String) async throws -> (key: any DPoPKey, storedForm: Data) {
            guard algorithm == "ES256" else { throw DPoPKeyProviderError.unsupportedAlgorithm(algorithm) }
            if prefersSecureEnclave, SecureEnclave.isAvailable {
                let key = try SecureEnclave.P256.Signing.PrivateKey()
                return (
                    EnclaveKey(handle: key.dataRepresentation, publicJWK: Self.jwk(key.publicKey)),
                    Data([Form.enclave.rawValue]) + key.dataRepresentation
                )
            }
            let key = P256.Signing.PrivateKey()
            return (
                SoftwareKey(raw: key.rawRepresentation, publicJWK: Self.jwk(key.publicKey)),
                Data([Form.software.rawValue]) + key.rawRepresentation
            )
        }

        /// The key of a stored form this provider made.
        public func restoreKey(from storedForm: Data) async throws -> any DPoPKey {
            guard let first = storedForm.first, let form = Form(rawValue: first) else {
                throw DPoPKeyProviderError.unreadableStoredForm
            }
            let body = storedForm.dropFirst()
            switch form {
            case .enclave:
                let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: Data(body))
                return EnclaveKey(handle: Data(body), publicJWK: Self.jwk(key.publicKey))
            case .software:
                let key = try P256.Signing.PrivateKey(rawRepresentation: Data(body))
                return SoftwareKey(raw: Data(body), publicJWK: Self.jwk(key.publicKey))
            }
        }

        /// The first byte of a stored form.
        private enum Form: UInt8 {
            case enclave = 1
            case software = 2
        }

        /// The public JWK of a P-256 key: `x963Representation` is 0x04 ‖ X ‖ Y (32 bytes each).
        static func jwk(_ publicKey: P256.Signing.PublicKey) -> [String: String] {
            let point = Array(publicKey.x963Representation)
            return [
                "kty": "EC", "crv": "P-256", "x": Base64URL.encode(point[1..<33]),
                "y": Base64URL.encode(point[33..<65]),
            ]
        }

        // The keys keep CryptoKit's representations (Data, which is Sendable) rather than CryptoKit's
        // key values, whose Sendable conformance Apple's documentation does not state; a key value
        // is made again for each signature.

        /// A Secure Enclave key: its encrypted handle, usable on this device only.
        private struct EnclaveKey: DPoPKey, CustomStringConvertible, CustomReflectable {
            let handle: Data
            let publicJWK: [String: String]
            var algorithm: String { "ES256" }
            func sign(_ input: Data) async throws -> Data {
                try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: handle).signature(for: input)
                    .rawRepresentation
            }
            var description: String { "DPoPKey(ES256, Secure Enclave)" }
            var customMirror: Mirror { Mirror(self, children: ["description": description]) }
        }

        /// A software key: its 32-byte private scalar.
        private struct SoftwareKey: DPoPKey, CustomStringConvertible, CustomReflectable {
            let raw: Data
            let publicJWK: [String: String]
            var algorithm: String { "ES256" }
            func sign(_ input: Data) async throws -> Data {
                try P256.Signing.PrivateKey(rawRepresentation: raw).signature(for: input).rawRepresentation
            }
            var description: String { "DPoPKey(ES256, software)" }
            var customMirror: Mirror { Mirror(self, children: ["description": description]) }
        }
    }
#endif
