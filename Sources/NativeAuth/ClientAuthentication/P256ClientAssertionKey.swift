#if canImport(CryptoKit)
    import CryptoKit
    public import Foundation

    /// An ES256 client assertion key from CryptoKit: a P-256 key in the Secure Enclave where the
    /// device has one (the key never leaves it; what the app keeps is an encrypted handle only this
    /// device can use), else a software P-256 key. ES256 is one of the algorithms FAPI 2.0 allows.
    ///
    /// ```swift
    /// let key = try P256ClientAssertionKey.generate(keyID: "device-key-1")
    /// // keep key.storedForm like a refresh token; register key.publicJWK with the provider
    /// configuration.clientAuthentication = .privateKeyJWT(PrivateKeyJWT(key: key))
    /// ```
    ///
    /// Apple's documentation: `SecureEnclave.P256.Signing.PrivateKey` (`init()`,
    /// `init(dataRepresentation:authenticationContext:)`, `dataRepresentation`),
    /// `P256.Signing.PrivateKey` (`init()`, `init(rawRepresentation:)`, `rawRepresentation`),
    /// `P256.Signing.PublicKey.x963Representation` and `P256.Signing.ECDSASignature.rawRepresentation`.
    /// Its description names the algorithm, where the key is and the `kid`; never the key.
    public struct P256ClientAssertionKey: ClientAssertionKey, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// Where the key is, as CryptoKit's representation of it (`Data`, which is `Sendable`; a key
        /// value is made again for each signature).
        private enum Storage: Sendable {
            case enclave(Data)
            case software(Data)
        }

        private let storage: Storage
        /// The `kid` of the assertions' header; `nil` sends none.
        public let keyID: String?
        /// The public key as a JSON Web Key (RFC 7517 §4, RFC 7518 §6.2.1): `kty` `EC`, `crv`
        /// `P-256`, `x`, `y`, with `alg` `ES256`, `use` `sig` and `kid` when there is one. Never a
        /// private member.
        public let publicJWK: [String: String]

        /// `ES256`.
        public var algorithm: String { "ES256" }

        /// A new key: in the Secure Enclave when `prefersSecureEnclave` (the default) and the
        /// device has one, else in software.
        public static func generate(prefersSecureEnclave: Bool = true, keyID: String? = nil) throws
            -> P256ClientAssertionKey
        {
            if prefersSecureEnclave, SecureEnclave.isAvailable {
                let key = try SecureEnclave.P256.Signing.PrivateKey()
                return P256ClientAssertionKey(
                    storage: .enclave(key.dataRepresentation), keyID: keyID, publicKey: key.publicKey)
            }
            let key = P256.Signing.PrivateKey()
            return P256ClientAssertionKey(
                storage: .software(key.rawRepresentation), keyID: keyID, publicKey: key.publicKey)
        }

        /// The key that ``storedForm`` stands for.
        ///
        /// - Throws: ``ClientAssertionKeyError/unreadableKey`` for bytes that are not a stored form
        ///   of this type, or a Secure Enclave handle of another device.
        public init(storedForm: Data, keyID: String? = nil) throws(ClientAssertionKeyError) {
            guard let first = storedForm.first else { throw .unreadableKey }
            let body = Data(storedForm.dropFirst())
            do {
                switch first {
                case Self.enclaveMarker:
                    let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: body)
                    self.init(storage: .enclave(body), keyID: keyID, publicKey: key.publicKey)
                case Self.softwareMarker:
                    let key = try P256.Signing.PrivateKey(rawRepresentation: body)
                    self.init(storage: .software(body), keyID: keyID, publicKey: key.publicKey)
                default:
                    throw ClientAssertionKeyError.unreadableKey
                }
            } catch {
                throw .unreadableKey
            }
        }

        private init(storage: Storage, keyID: String?, publicKey: P256.Signing.PublicKey) {
            self.storage = storage
            self.keyID = keyID
            // x963Representation is 0x04 ‖ X ‖ Y, 32 bytes each.
            let point = Array(publicKey.x963Representation)
            var jwk = [
                "kty": "EC", "crv": "P-256", "x": Base64URL.encode(point[1..<33]),
                "y": Base64URL.encode(point[33..<65]), "alg": "ES256", "use": "sig",
            ]
            if let keyID { jwk["kid"] = keyID }
            publicJWK = jwk
        }

        /// The first byte of a stored form.
        private static let enclaveMarker: UInt8 = 1
        private static let softwareMarker: UInt8 = 2

        /// What the app keeps to use the key again (``init(storedForm:keyID:)``): the Secure
        /// Enclave's encrypted handle, or the software key's private scalar. Keep it like a refresh
        /// token.
        public var storedForm: Data {
            switch storage {
            case .enclave(let handle): Data([Self.enclaveMarker]) + handle
            case .software(let raw): Data([Self.softwareMarker]) + raw
            }
        }

        /// The ECDSA signature of `input` as the 64 bytes `R || S` (RFC 7518 §3.4).
        public func sign(_ input: Data) async throws -> Data {
            switch storage {
            case .enclave(let handle):
                try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: handle).signature(for: input)
                    .rawRepresentation
            case .software(let raw):
                try P256.Signing.PrivateKey(rawRepresentation: raw).signature(for: input).rawRepresentation
            }
        }

        /// The algorithm, where the key is and the `kid`.
        public var description: String {
            let place =
                switch storage {
                case .enclave: "Secure Enclave"
                case .software: "software"
                }
            return "P256ClientAssertionKey(ES256, \(place)" + (keyID.map { ", kid: \($0)" } ?? "") + ")"
        }

        /// Same as ``description``.
        public var debugDescription: String { description }

        /// Only the description, so that `dump()` shows no key.
        public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
    }
#endif
