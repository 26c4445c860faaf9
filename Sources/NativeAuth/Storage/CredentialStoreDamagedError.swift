public import Foundation

/// A stored item exists but cannot be read back: it is cut short, its checksum does not match, or
/// it is not a credential file at all.
///
/// ``FileCredentialStore`` throws it from ``FileCredentialStore/data(forKey:)``. Only the item
/// under ``key`` is affected; other keys read as before. Storing a new value under the key
/// replaces the damaged item, and removing the key deletes it. The description names the key and
/// what is wrong, never the item's contents.
public struct CredentialStoreDamagedError: Error, LocalizedError, CustomStringConvertible, Sendable {
    enum Code: Sendable, Equatable {
        case notAnEnvelope
        case truncated
        case trailingBytes
        case checksumMismatch
        case notARegularFile
        case tooLarge
        case other(String)
    }

    let code: Code

    /// The key whose stored item is damaged.
    public let key: String

    init(key: String, code: Code) {
        self.key = key
        self.code = code
    }

    /// Creates the error for a store of your own whose item under `key` can never be read; the
    /// SDK then reads it as "no account" (and reports it) instead of "store unavailable".
    ///
    /// - Parameters:
    ///   - key: the key the damaged item is stored under.
    ///   - reason: what is wrong, in plain language, without the item's contents.
    public init(key: String, reason: String) {
        self.init(key: key, code: .other(reason))
    }

    /// What is wrong with the item, in plain language.
    public var reason: String {
        switch code {
        case .notAnEnvelope: "it is not a credential file"
        case .truncated: "it is cut short"
        case .trailingBytes: "it has bytes past its end"
        case .checksumMismatch: "its checksum does not match its contents"
        case .notARegularFile: "it is not a regular file"
        case .tooLarge: "it is larger than any credential file"
        case .other(let reason): reason
        }
    }

    /// `true` when the item ends early, as a write interrupted without atomic replacement leaves it.
    public var isTruncated: Bool { code == .truncated }

    /// `true` when the item has the expected shape but its contents changed after it was written.
    public var isChecksumMismatch: Bool { code == .checksumMismatch }

    /// `true` when the item is not in the store's format at all.
    public var isNotAnEnvelope: Bool { code == .notAnEnvelope || code == .notARegularFile }

    /// The key and what is wrong; never the item's contents.
    public var description: String {
        "CredentialStoreDamagedError: the item stored under \"\(key)\" is damaged: \(reason)."
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }
}

/// A stored item was written in a format newer than this version of the SDK reads.
///
/// ``FileCredentialStore`` throws it from ``FileCredentialStore/data(forKey:)`` when the item was
/// stored by a later release of the SDK (for example after an app was downgraded). The item is
/// left untouched: reading never rewrites it, so the newer release can still read it. Storing a
/// new value under the key replaces it in the current format.
public struct CredentialStoreVersionError: Error, LocalizedError, CustomStringConvertible, Sendable {
    /// The key whose stored item has the newer format.
    public let key: String
    /// The format version the item was written in.
    public let version: Int
    /// The highest format version this SDK reads.
    public let supportedVersion: Int

    /// Creates the error for a store of your own whose item under `key` was written in a newer format.
    public init(key: String, version: Int, supportedVersion: Int) {
        self.key = key
        self.version = version
        self.supportedVersion = supportedVersion
    }

    /// The key and both versions.
    public var description: String {
        "CredentialStoreVersionError: the item stored under \"\(key)\" has format version \(version); "
            + "this version of the SDK reads up to version \(supportedVersion). The item is left as it is."
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }
}
