import Foundation

extension RSAClientAssertionKey {
    /// This installation's key for `private_key_jwt`: read back from `credentialStore` under
    /// `itemKey`, or, the first time, made (2048 bits, the system's secure random numbers) and
    /// stored there before it is returned, the way the SDK keeps a DPoP key with its account. The
    /// default store is the one a ``WebAuthClient`` uses by default: the keychain on Apple
    /// platforms, a file store elsewhere. Register its ``publicJWK`` with the provider once
    /// (``ClientRegistrationRequest/registerAssertionKey(publicJWK:)``).
    ///
    /// ```swift
    /// let key = try await RSAClientAssertionKey.installationKey(keyID: "installation-1")
    /// configuration.clientAuthentication = .privateKeyJWT(PrivateKeyJWT(key: key))
    /// ```
    ///
    /// A stored key is never replaced: an item that is not a key this type reads is an error
    /// (``ClientAssertionKeyError/unreadableKey``), and so is a store that cannot be read
    /// (``CredentialStoreError``), so a passing fault never makes a new key the provider does not
    /// know.
    ///
    /// - Parameters:
    ///   - credentialStore: where the key is kept; `nil` for the platform's default store.
    ///   - itemKey: the key of its item in the store.
    ///   - algorithm: `PS256` (the default) or `RS256`.
    ///   - keyID: the `kid` of its assertions and of its ``publicJWK``.
    public static func installationKey(
        credentialStore: (any CredentialStore)? = nil, itemKey: String = "nativeauth.client-assertion-key",
        algorithm: String = "PS256", keyID: String? = nil
    ) async throws -> RSAClientAssertionKey {
        let store = credentialStore ?? PlatformCredentialStore.make(applicationName: nil)
        let stored: Data?
        do {
            stored = try await store.data(forKey: itemKey)
        } catch {
            throw CredentialStoreError(error, isReadFailure: true)
        }
        if let stored { return try RSAClientAssertionKey(pkcs1DER: stored, algorithm: algorithm, keyID: keyID) }
        let made = try generate(algorithm: algorithm, keyID: keyID)
        do {
            try await store.setData(made.pkcs1DER, forKey: itemKey)
        } catch {
            throw CredentialStoreError(error, isReadFailure: false)
        }
        return made
    }
}
