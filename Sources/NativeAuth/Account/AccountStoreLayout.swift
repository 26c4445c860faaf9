import AuthCrypto
import Foundation

/// The items one client's account occupies in a ``CredentialStore``, and their formats.
///
/// ```
/// <account key>                  account item: AccountRecord, format 2 (refresh token, ID token,
///                                identifier, session, the sign-in scopes' access token inline)
/// <account key>.tokens           index item: the session and, per cached scope set, its item key
/// <account key>.token.<hash>     token item: one access token, its scope key and the session
/// ```
///
/// `<hash>` is the first 16 bytes of the SHA-256 of the normalised scope key, in hex: stable
/// across launches and processes, and the same for every spelling of one scope set.
///
/// Every item is JSON with a `version`; a reader takes every version up to its own and reports a
/// newer one as unusable, never rewriting it. The file store wraps each item in its checksummed
/// envelope (``CredentialEnvelope``), so a damaged file is reported as such. A format 1 record
/// (the whole account, every token inline, in the account item) reads as an account item whose
/// tokens are all inline, and is rewritten in this layout at the first write.
enum AccountStoreLayout {
    /// The version of index and token items.
    static let itemVersion = 2

    static func indexKey(_ accountKey: String) -> String { accountKey + ".tokens" }

    static func tokenKey(_ accountKey: String, scopeKey: String) -> String {
        let digest = SHA256.hash(Array(scopeKey.utf8)).prefix(16)
        return accountKey + ".token." + digest.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// The index item: which scope sets have token items, for which session.
    struct Index: Codable, Sendable, Equatable {
        var version = AccountStoreLayout.itemVersion
        var session: String
        /// Item key by scope key.
        var tokens: [String: String]
    }

    /// A token item: one cached access token of one session.
    struct TokenItem: Codable, Sendable, Equatable {
        var version = AccountStoreLayout.itemVersion
        var session: String
        var scopeKey: String
        var token: AccountRecord.CachedAccessToken
    }

    static func encode(_ index: Index) -> Data {
        var out: [UInt8] = []
        out.append(UInt8(ascii: "{"))
        JSONWriter.member("version", first: true, &out)
        JSONWriter.integer(index.version, &out)
        JSONWriter.field("session", index.session, &out)
        JSONWriter.member("tokens", &out)
        out.append(UInt8(ascii: "{"))
        for (offset, key) in index.tokens.sortedKeys.enumerated() {
            if offset > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.string(key, &out)
            out.append(UInt8(ascii: ":"))
            JSONWriter.string(index.tokens[key, default: ""], &out)
        }
        out.append(UInt8(ascii: "}"))
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    /// `nil` for a date that is not finite.
    static func encode(_ item: TokenItem) -> Data? {
        var out: [UInt8] = []
        out.reserveCapacity(item.token.token.utf8.count + item.scopeKey.utf8.count + 160)
        out.append(UInt8(ascii: "{"))
        JSONWriter.member("version", first: true, &out)
        JSONWriter.integer(item.version, &out)
        JSONWriter.field("session", item.session, &out)
        JSONWriter.field("scopeKey", item.scopeKey, &out)
        JSONWriter.member("token", &out)
        guard JSONWriter.token(item.token, &out) else { return nil }
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    /// The index of `accountKey` in `data`; `nil` when it is damaged or of a newer version.
    ///
    /// Only entries naming a token item of `accountKey` are kept: the index's item keys are
    /// what a sign-out removes, and an altered index must not make it remove another client's
    /// items.
    static func index(from data: Data, accountKey: String) -> Index? {
        guard var index = try? Index(storedJSON: data), index.version <= itemVersion else { return nil }
        let prefix = accountKey + ".token."
        for (scopeKey, itemKey) in index.tokens where !itemKey.hasPrefix(prefix) || itemKey.count <= prefix.count {
            index.tokens[scopeKey] = nil
        }
        return index
    }

    /// The token of `scopeKey` for `session` in `data`; `nil` when the item is damaged, of a
    /// newer version, or belongs to another session or scope set.
    static func token(from data: Data, session: String, scopeKey: String) -> AccountRecord.CachedAccessToken? {
        guard let item = try? TokenItem(storedJSON: data), item.version <= itemVersion,
            item.session == session, item.scopeKey == scopeKey
        else { return nil }
        return item.token
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
