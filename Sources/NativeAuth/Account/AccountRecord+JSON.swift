import Foundation

extension AccountRecord {
    /// The record as JSON, written by hand: the same document `JSONEncoder` writes with
    /// `.secondsSince1970` dates (keys in another order), at a fraction of the cost. `nil` for a
    /// date that is not finite, which only `JSONEncoder`'s error path can report.
    ///
    /// `inline`, when given, replaces ``accessTokens`` in the document: the account item of the
    /// per-token layout keeps only some tokens inline.
    func encodedJSON(inline: [String: CachedAccessToken]? = nil) -> Data? {
        let accessTokens = inline ?? accessTokens
        var out: [UInt8] = []
        out.reserveCapacity(
            idToken.utf8.count + (refreshToken?.utf8.count ?? 0)
                + accessTokens.reduce(0) { $0 + $1.key.utf8.count + $1.value.token.utf8.count + 96 } + 256)
        out.append(UInt8(ascii: "{"))
        JSONWriter.member("version", first: true, &out)
        JSONWriter.integer(version, &out)
        JSONWriter.member("identifier", &out)
        JSONWriter.string(identifier, &out)
        JSONWriter.member("username", &out)
        JSONWriter.string(username, &out)
        JSONWriter.member("idToken", &out)
        JSONWriter.string(idToken, &out)
        if let refreshToken {
            JSONWriter.member("refreshToken", &out)
            JSONWriter.string(refreshToken, &out)
        }
        JSONWriter.member("signInScopes", &out)
        JSONWriter.strings(signInScopes, &out)
        if let session {
            JSONWriter.member("session", &out)
            JSONWriter.string(session, &out)
        }
        JSONWriter.member("accessTokens", &out)
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, token) in accessTokens {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.string(key, &out)
            out.append(UInt8(ascii: ":"))
            guard JSONWriter.token(token, &out) else { return nil }
        }
        out.append(UInt8(ascii: "}"))
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }
}

/// The few pieces of JSON output the account record needs.
enum JSONWriter {
    static func member(_ name: String, first: Bool = false, _ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        string(name, &out)
        out.append(UInt8(ascii: ":"))
    }

    static func integer(_ value: Int, _ out: inout [UInt8]) { out.append(contentsOf: String(value).utf8) }

    /// A cached access token as an object; `false` (and a partial object) for a date that is not
    /// finite.
    static func token(_ token: AccountRecord.CachedAccessToken, _ out: inout [UInt8]) -> Bool {
        guard token.expiresOn.timeIntervalSince1970.isFinite else { return false }
        out.append(UInt8(ascii: "{"))
        member("token", first: true, &out)
        string(token.token, &out)
        member("expiresOn", &out)
        out.append(contentsOf: "\(token.expiresOn.timeIntervalSince1970)".utf8)
        member("scopes", &out)
        strings(token.scopes, &out)
        out.append(UInt8(ascii: "}"))
        return true
    }

    static func strings(_ values: [String], _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            string(value, &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\u00XX`, everything else as is.
    static func string(_ value: String, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
