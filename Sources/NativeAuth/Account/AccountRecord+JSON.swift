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
            idToken.utf8.count + (refreshToken?.utf8.count ?? 0) + (authSession?.utf8.count ?? 0)
                + accessTokens.reduce(0) { $0 + $1.key.utf8.count + $1.value.token.utf8.count + 96 } + 256)
        out.append(UInt8(ascii: "{"))
        JSONWriter.member("version", first: true, &out)
        JSONWriter.integer(version, &out)
        JSONWriter.field("identifier", identifier, &out)
        JSONWriter.field("username", username, &out)
        JSONWriter.field("idToken", idToken, &out)
        JSONWriter.field("refreshToken", refreshToken, &out)
        JSONWriter.member("signInScopes", &out)
        JSONWriter.strings(signInScopes, &out)
        JSONWriter.field("session", session, &out)
        // Data as JSONEncoder writes it by default: standard base64, padded.
        JSONWriter.field("dpopKey", dpopKey?.base64EncodedString(), &out)
        JSONWriter.field("biometryState", biometryState?.base64EncodedString(), &out)
        JSONWriter.field("biometrySystemVersion", biometrySystemVersion, &out)
        JSONWriter.field("authSession", authSession, &out)
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
    @inline(never)
    static func member(_ name: String, first: Bool = false, _ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        string(name, &out)
        out.append(UInt8(ascii: ":"))
    }

    /// The member `name` with the string `value`; nothing when `value` is `nil`, as
    /// `encodeIfPresent` writes it.
    @inline(never)
    static func field(_ name: String, _ value: String?, _ out: inout [UInt8]) {
        guard let value else { return }
        member(name, &out)
        string(value, &out)
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
        if let issuedOn = token.issuedOn {
            guard issuedOn.timeIntervalSince1970.isFinite else { return false }
            member("issuedOn", &out)
            out.append(contentsOf: "\(issuedOn.timeIntervalSince1970)".utf8)
        }
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

    /// A JSON string (``JSONValue/writeString(_:into:)``).
    static func string(_ value: String, _ out: inout [UInt8]) { JSONValue.writeString(value, into: &out) }
}

/// Reads the store's JSON items by hand, with the SDK's own parser: the same documents and the
/// same refusals as `JSONDecoder` with `.secondsSince1970` dates (a missing or mistyped field, a
/// number that is not a whole `Int` for a version), without `JSONDecoder`'s cost at launch
/// (its first use costs more than the rest of a restore).
struct StoredJSON {
    struct Unreadable: Error {}

    let members: [String: JSONValue]

    /// Not inlined: the three items' readers share it.
    @inline(never)
    init(_ data: Data) throws(Unreadable) {
        // Bytes that are not UTF-8 are a damaged item, as JSONDecoder judged them: never read
        // with replacement characters into a token.
        guard String(data: data, encoding: .utf8) != nil,
            let members = (try? JSONValue.parse(data))?.objectValue
        else { throw Unreadable() }
        self.members = members
    }

    init(_ value: JSONValue?) throws(Unreadable) {
        guard let members = value?.objectValue else { throw Unreadable() }
        self.members = members
    }

    func string(_ key: String) throws(Unreadable) -> String {
        guard let value = members[key]?.stringValue else { throw Unreadable() }
        return value
    }

    /// `nil` when the member is missing or `null`, as `decodeIfPresent` reads it.
    func optionalString(_ key: String) throws(Unreadable) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw Unreadable()
        }
    }

    /// `nil` when the member is missing or `null`; base64 as `JSONDecoder` reads `Data` by default.
    func optionalData(_ key: String) throws(Unreadable) -> Data? {
        guard let text = try optionalString(key) else { return nil }
        guard let data = Data(base64Encoded: text) else { throw Unreadable() }
        return data
    }

    func int(_ key: String) throws(Unreadable) -> Int {
        guard case .number(let value)? = members[key], value.isFinite, value.rounded() == value,
            abs(value) < 9.0e15
        else { throw Unreadable() }
        return Int(value)
    }

    func strings(_ key: String) throws(Unreadable) -> [String] {
        guard let values = members[key]?.arrayValue else { throw Unreadable() }
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
            guard let string = value.stringValue else { throw Unreadable() }
            strings.append(string)
        }
        return strings
    }

    func object(_ key: String) throws(Unreadable) -> [String: JSONValue] {
        guard let value = members[key]?.objectValue else { throw Unreadable() }
        return value
    }

    func token(_ value: JSONValue?) throws(Unreadable) -> AccountRecord.CachedAccessToken {
        let fields = try StoredJSON(value)
        guard case .number(let seconds)? = fields.members["expiresOn"], seconds.isFinite else { throw Unreadable() }
        // Missing in every token written before it was kept (or `null`): read as `nil`, as
        // `decodeIfPresent` reads it.
        let issuedOn: Date?
        switch fields.members["issuedOn"] {
        case nil, .null?: issuedOn = nil
        case .number(let received)? where received.isFinite: issuedOn = Date(timeIntervalSince1970: received)
        default: throw Unreadable()
        }
        return AccountRecord.CachedAccessToken(
            token: try fields.string("token"), expiresOn: Date(timeIntervalSince1970: seconds),
            scopes: try fields.strings("scopes"), issuedOn: issuedOn)
    }
}

extension AccountRecord {
    /// Reads a stored account item (format 1 or 2).
    init(storedJSON data: Data) throws(StoredJSON.Unreadable) {
        let fields = try StoredJSON(data)
        var tokens: [String: CachedAccessToken] = [:]
        for (key, value) in try fields.object("accessTokens") { tokens[key] = try fields.token(value) }
        self.init(
            identifier: try fields.string("identifier"), username: try fields.string("username"),
            idToken: try fields.string("idToken"), refreshToken: try fields.optionalString("refreshToken"),
            signInScopes: try fields.strings("signInScopes"), accessTokens: tokens, version: try fields.int("version"),
            session: try fields.optionalString("session"), dpopKey: try fields.optionalData("dpopKey"),
            biometryState: try fields.optionalData("biometryState"),
            biometrySystemVersion: try fields.optionalString("biometrySystemVersion"),
            authSession: try fields.optionalString("authSession"))
    }
}

extension AccountStoreLayout.Index {
    /// Reads a stored index item.
    init(storedJSON data: Data) throws(StoredJSON.Unreadable) {
        let fields = try StoredJSON(data)
        var tokens: [String: String] = [:]
        for (key, value) in try fields.object("tokens") {
            guard let itemKey = value.stringValue else { throw StoredJSON.Unreadable() }
            tokens[key] = itemKey
        }
        self.init(version: try fields.int("version"), session: try fields.string("session"), tokens: tokens)
    }
}

extension AccountStoreLayout.TokenItem {
    /// Reads a stored token item.
    init(storedJSON data: Data) throws(StoredJSON.Unreadable) {
        let fields = try StoredJSON(data)
        self.init(
            version: try fields.int("version"), session: try fields.string("session"),
            scopeKey: try fields.string("scopeKey"), token: try fields.token(fields.members["token"]))
    }
}
