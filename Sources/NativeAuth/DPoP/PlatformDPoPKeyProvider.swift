import Foundation

/// The DPoP keys a ``DPoPConfiguration`` uses by default.
public enum PlatformDPoPKeyProvider: Sendable {
    /// On Apple platforms ES256 keys from CryptoKit (`CryptoKitDPoPKeyProvider`: the Secure
    /// Enclave where there is one); elsewhere PS256 or RS256 keys made by the SDK
    /// (``SoftwareDPoPKeyProvider``).
    public static func make() -> any DPoPKeyProvider {
        #if canImport(CryptoKit)
            CryptoKitDPoPKeyProvider()
        #else
            SoftwareDPoPKeyProvider()
        #endif
    }
}

/// Why a ``DPoPKeyProvider`` could not make or find a key.
public enum DPoPKeyProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider makes no key for this algorithm.
    case unsupportedAlgorithm(String)
    /// The stored form is not one this provider made.
    case unreadableStoredForm

    /// What went wrong, in a sentence.
    public var description: String {
        switch self {
        case .unsupportedAlgorithm(let algorithm): "No DPoP key can be made for \(algorithm)."
        case .unreadableStoredForm: "The stored DPoP key cannot be read."
        }
    }
}
