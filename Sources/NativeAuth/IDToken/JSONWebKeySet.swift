package import Foundation

/// The signature-checking keys of a JWK Set document (`{"keys":[...]}`, RFC 7517 §5), with the members that
/// were skipped and why, so a token naming a skipped key gets a precise error.
package struct JSONWebKeySet: Sendable {
    /// A member of `keys` that cannot check signatures.
    struct SkippedKey: Sendable, Hashable {
        /// Its `kid`, when it had a string one.
        let keyID: String?
        /// Why it was skipped.
        let reason: JSONWebKeyRejection
    }

    /// The document is not a JWK Set.
    package enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Not JSON, or not a JSON object.
        case notJSONObject
        /// No `keys` array.
        case missingKeys

        package var description: String {
            switch self {
            case .notJSONObject: "JWK Set is not a JSON object"
            case .missingKeys: "JWK Set has no keys array"
            }
        }
    }

    /// The most members of `keys` read: a provider publishes a few keys (the current ones and the
    /// next); more only cost time. Members beyond are skipped (``JSONWebKeyRejection/beyondLimit``).
    static let maximumKeys = 64
    /// The most keys with one `kid` tried for one token.
    static let maximumKeysPerID = 4

    /// The keys that can check signatures, in document order.
    let keys: [JSONWebKey]
    /// The members that cannot, in document order.
    let skipped: [SkippedKey]

    /// A set of already built keys.
    init(keys: [JSONWebKey], skipped: [SkippedKey] = []) {
        self.keys = keys
        self.skipped = skipped
    }

    /// Parses a JWK Set document; members that do not fit are skipped, not fatal.
    /// - Throws: `ParseError` when the document itself is not a JWK Set.
    package init(json data: Data) throws(ParseError) {
        guard let document = try? JSONValue.parse(data), case .object(let members) = document else {
            throw .notJSONObject
        }
        guard let entries = members["keys"]?.arrayValue else { throw .missingKeys }
        var keys: [JSONWebKey] = []
        var skipped: [SkippedKey] = []
        for (position, entry) in entries.enumerated() {
            guard position < Self.maximumKeys else {
                skipped.append(SkippedKey(keyID: entry.objectValue?["kid"]?.stringValue, reason: .beyondLimit))
                continue
            }
            do {
                keys.append(try JSONWebKey(entry))
            } catch {
                skipped.append(SkippedKey(keyID: entry.objectValue?["kid"]?.stringValue, reason: error))
            }
        }
        self.init(keys: keys, skipped: skipped)
    }
}
