// A stand-in for Apple's CryptoKit, for Scripts/apple-typecheck.sh only: the P-256 signing keys (in
// software and in the Secure Enclave) that a DPoP key provider uses, the P-256 and Ed25519 public
// keys that ID token signatures are verified with, with the Swift signatures
// developer.apple.com shows (each declaration cites its page). Nothing here runs: the bodies trap.
//
// Modelling notes:
// - The namespaces (SecureEnclave, P256, Signing) are Sendable on their pages. Whether the key and
//   signature structs are Sendable is not shown there; they are declared non-Sendable, the
//   conservative choice (code that compiles against them also compiles if they are Sendable).
// - The Secure Enclave key's initializers take Security's SecAccessControl and LocalAuthentication's
//   LAContext, so this stub imports those two stubs, as CryptoKit imports the frameworks.
// - Availability attributes are left out (Swift ignores them on Linux).
public import Foundation
public import LocalAuthentication
public import Security

/// The NIST P-256 curve. https://developer.apple.com/documentation/cryptokit/p256
public enum P256: Sendable {
    /// ECDSA signing over P-256. https://developer.apple.com/documentation/cryptokit/p256/signing
    public enum Signing: Sendable {
        /// A private key for signing, held in memory.
        /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey
        public struct PrivateKey {
            /// A new random key.
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(compactrepresentable:)
            public init(compactRepresentable: Bool = true) { fatalError("stub") }

            /// A key from its raw bytes.
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(rawrepresentation:)
            public init<Bytes: ContiguousBytes>(rawRepresentation: Bytes) throws { fatalError("stub") }

            /// The key's raw bytes.
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/rawrepresentation
            public var rawRepresentation: Data { fatalError("stub") }

            /// The matching public key.
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/publickey
            public var publicKey: P256.Signing.PublicKey { fatalError("stub") }

            /// An ECDSA signature of `data`, hashed with SHA-256.
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/signature(for:)-5h94p
            public func signature<D: DataProtocol>(for data: D) throws -> P256.Signing.ECDSASignature {
                fatalError("stub")
            }
        }

        /// A public key for verifying signatures.
        /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey
        public struct PublicKey {
            /// A key from its ANSI X9.63 representation.
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(x963representation:)
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws { fatalError("stub") }

            /// The ANSI X9.63 representation: 0x04, then x and y (32 bytes each).
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/x963representation
            public var x963Representation: Data { fatalError("stub") }

            /// x and y (32 bytes each).
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/rawrepresentation
            public var rawRepresentation: Data { fatalError("stub") }

            /// A key from x and y (32 bytes each).
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(rawrepresentation:)
            public init<D: ContiguousBytes>(rawRepresentation: D) throws { fatalError("stub") }

            /// Whether `signature` is an ECDSA signature of `data` (hashed with SHA-256) by this key.
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/isvalidsignature(_:for:)
            public func isValidSignature<D: DataProtocol>(_ signature: P256.Signing.ECDSASignature, for data: D) -> Bool
            {
                fatalError("stub")
            }
        }

        /// An ECDSA signature over P-256.
        /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature
        public struct ECDSASignature {
            /// A signature from r and s (32 bytes each).
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/init(rawrepresentation:)
            public init<D: DataProtocol>(rawRepresentation: D) throws { fatalError("stub") }

            /// r and s (32 bytes each), the form JWS uses for ES256.
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/rawrepresentation
            public var rawRepresentation: Data

            /// The DER encoding. https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/derrepresentation
            public var derRepresentation: Data { fatalError("stub") }
        }
    }
}

/// Curve25519: Ed25519 signatures. https://developer.apple.com/documentation/cryptokit/curve25519
public enum Curve25519: Sendable {
    /// Ed25519 signing and verification. https://developer.apple.com/documentation/cryptokit/curve25519/signing
    public enum Signing: Sendable {
        /// A public key for verifying Ed25519 signatures (Sendable on its page).
        /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey
        public struct PublicKey: Sendable {
            /// A key from its 32-byte encoding.
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/init(rawrepresentation:)
            public init<D: ContiguousBytes>(rawRepresentation: D) throws { fatalError("stub") }

            /// The key's 32-byte encoding.
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/rawrepresentation
            public var rawRepresentation: Data { fatalError("stub") }

            /// Whether `signature` is an EdDSA signature of `data` by this key.
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/isvalidsignature(_:for:)
            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool {
                fatalError("stub")
            }
        }
    }
}

/// The device's Secure Enclave. https://developer.apple.com/documentation/cryptokit/secureenclave
public enum SecureEnclave: Sendable {
    /// Whether the device has a Secure Enclave.
    /// https://developer.apple.com/documentation/cryptokit/secureenclave/isavailable
    public static var isAvailable: Bool { fatalError("stub") }

    /// P-256 in the Secure Enclave. https://developer.apple.com/documentation/cryptokit/secureenclave/p256
    public enum P256: Sendable {
        /// ECDSA signing in the Secure Enclave.
        /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing
        public enum Signing: Sendable {
            /// A private key that never leaves the Secure Enclave.
            /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey
            public struct PrivateKey {
                /// A new key in the Secure Enclave, used under `accessControl`.
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/init(compactrepresentable:accesscontrol:authenticationcontext:)
                public init(
                    compactRepresentable: Bool = true,
                    accessControl: SecAccessControl = SecAccessControlCreateWithFlags(
                        nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [], nil)!,
                    authenticationContext: LAContext? = nil
                ) throws {
                    fatalError("stub")
                }

                /// The key again, from its `dataRepresentation` (an encrypted blob only this
                /// device's Secure Enclave can use).
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/init(datarepresentation:authenticationcontext:)
                public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws {
                    fatalError("stub")
                }

                /// The blob to store and restore the key with.
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/datarepresentation
                public var dataRepresentation: Data { fatalError("stub") }

                /// The matching public key.
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/publickey
                public var publicKey: CryptoKit.P256.Signing.PublicKey { fatalError("stub") }

                /// An ECDSA signature of `data`, hashed with SHA-256.
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/signature(for:)-76j0u
                public func signature<D: DataProtocol>(for data: D) throws -> CryptoKit.P256.Signing.ECDSASignature {
                    fatalError("stub")
                }
            }
        }
    }
}

// MARK: - SHA-256 (the certificate pinning sample hashes a certificate)

/// A digest: a sequence of bytes. CryptoKit's interface: `public protocol Digest : ContiguousBytes,
/// CustomStringConvertible, Hashable, Sequence where Self.Element == UInt8`.
/// https://developer.apple.com/documentation/cryptokit/digest
public protocol Digest: ContiguousBytes, CustomStringConvertible, Hashable, Sequence where Element == UInt8 {}

/// SHA-256's digest. https://developer.apple.com/documentation/cryptokit/sha256digest
public struct SHA256Digest: Digest {
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { fatalError("stub") }
    public var description: String { fatalError("stub") }
    public func makeIterator() -> Array<UInt8>.Iterator { fatalError("stub") }
}

/// SHA-256. https://developer.apple.com/documentation/cryptokit/sha256
public struct SHA256 {
    /// The digest of `data` (HashFunction's `static func hash<D>(data: D) -> Self.Digest where D :
    /// DataProtocol`). https://developer.apple.com/documentation/cryptokit/hashfunction/hash(data:)
    public static func hash<D: DataProtocol>(data: D) -> SHA256Digest { fatalError("stub") }
}
