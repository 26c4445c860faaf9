import AuthSupport
public import Foundation

/// Where the SDK keeps a signed-in account's credentials: a few async methods over opaque data.
///
/// The SDK writes one item per client id and serialises its own format, so a store only keeps
/// bytes under a key. Implementations must be safe to call from any task.
///
/// A read must tell "nothing stored" (`nil`) from "the store cannot be read" (throw): the SDK
/// treats the first as signed out and the second as an error, never as a sign-out.
public protocol CredentialStore: Sendable {
    /// The data stored under `key`, or `nil` when there is none.
    /// - Throws: when the store cannot be read (locked, unavailable, damaged).
    func data(forKey key: String) async throws -> Data?
    /// Stores `data` under `key`, replacing what was there, atomically.
    /// - Throws: when the store cannot be written.
    func setData(_ data: Data, forKey key: String) async throws
    /// Removes what is stored under `key`; removing nothing is not an error.
    /// - Throws: when the store cannot be written.
    func removeData(forKey key: String) async throws
}

/// A credential store in memory: credentials last as long as the store value's storage.
///
/// Copies of one store share their storage, so a store can be handed to several clients.
public struct InMemoryCredentialStore: CredentialStore {
    private let storage = Locked<[String: Data]>([:])

    /// Creates an empty store.
    public init() {}

    /// The data stored under `key`, or `nil`.
    public func data(forKey key: String) async throws -> Data? { storage.withLock { $0[key] } }
    /// Stores `data` under `key`.
    public func setData(_ data: Data, forKey key: String) async throws { storage.withLock { $0[key] = data } }
    /// Removes what is stored under `key`.
    public func removeData(forKey key: String) async throws { storage.withLock { $0[key] = nil } }
}

/// The credential store could not be read or written; stored credentials are left as they were.
public struct CredentialStoreError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// The error the store threw.
    public let underlyingError: any Error
    /// `true` when reading failed, `false` when writing or removing failed.
    public let isReadFailure: Bool

    init(_ underlyingError: any Error, isReadFailure: Bool) {
        self.underlyingError = underlyingError
        self.isReadFailure = isReadFailure
    }

    /// What failed, and the store error's type.
    public var description: String {
        "CredentialStoreError: the credential store could not be \(isReadFailure ? "read" : "written") (\(type(of: underlyingError)))."
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }
}

/// The platform's default credential store (``NativeAuthClient/defaultCredentialStore(applicationName:)``):
/// the keychain on Apple platforms, owner-only files on Linux.
enum PlatformCredentialStore {
    /// - Parameter applicationName: names the directory on Linux; the process name when `nil`.
    static func make(applicationName: String?) -> any CredentialStore {
        #if canImport(Security)
            return KeychainCredentialStore()
        #else
            let name = applicationName ?? ProcessInfo.processInfo.processName
            return FileCredentialStore(directory: FileCredentialStore.defaultDirectory(applicationName: name))
        #endif
    }
}
