// snippet: storage-own-store
import Foundation
import NativeAuth

/// Encrypts and decrypts with a key the app manages.
protocol Cipher: Sendable {
    func seal(_ plaintext: Data) async throws -> Data
    /// Throws `CipherError.keyUnavailable` while the key cannot be used, and
    /// `CipherError.authenticationFailed` when `sealed` was not sealed with the key.
    func open(_ sealed: Data) async throws -> Data
}

enum CipherError: Error {
    case keyUnavailable
    case authenticationFailed
}

/// Keeps the SDK's items encrypted in another store.
struct EncryptingCredentialStore: CredentialStore {
    let base: any CredentialStore
    let cipher: any Cipher

    func data(forKey key: String) async throws -> Data? {
        // A base store that cannot be read throws, and so does this one.
        guard let sealed = try await base.data(forKey: key) else { return nil }
        do {
            return try await cipher.open(sealed)
        } catch CipherError.authenticationFailed {
            // Can never be read: as if nothing were stored. The next sign-in replaces it.
            return nil
        }
        // Any other error (such as keyUnavailable) is thrown: the SDK reports it and tries later.
    }

    func setData(_ data: Data, forKey key: String) async throws {
        try await base.setData(cipher.seal(data), forKey: key)
    }

    func removeData(forKey key: String) async throws {
        try await base.removeData(forKey: key)
    }
}
// snippet: end
