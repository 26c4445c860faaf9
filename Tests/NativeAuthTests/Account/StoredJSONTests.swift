import Foundation
import Testing

@testable import NativeAuth

/// The store's items are read by hand (``StoredJSON``): exactly what `JSONDecoder` with
/// `.secondsSince1970` dates read before, and the same refusals, so every stored session still
/// restores and a damaged one is still reported as damaged.
@Suite("Storage: stored items read by hand, as JSONDecoder read them")
struct StoredJSONTests {
    static let decoder = AccountStoreLayout.decoder

    static func record(tokens: Int, refresh: Bool, session: Bool) -> AccountRecord {
        var accessTokens: [String: AccountRecord.CachedAccessToken] = [:]
        for index in 0..<tokens {
            accessTokens["api://r\(index)/read"] = .init(
                token: "at-\(index)-\u{e9}\"\\",
                expiresOn: Date(timeIntervalSince1970: 1_800_000_000.25 + Double(index)),
                scopes: ["api://r\(index)/read", "x"])
        }
        var record = AccountRecord(
            identifier: "uid.utid", username: "ada@example.com", idToken: "a.b.c",
            refreshToken: refresh ? "rt-1" : nil, signInScopes: ["openid", "User.Read"], accessTokens: accessTokens)
        if session {
            record.session = "s-1"
            record.biometryState = Data([0, 1, 2, 0xfe, 0xff])
        }
        return record
    }

    @Test(arguments: [(0, false, false), (1, true, true), (40, true, false)])
    func recordsReadAsJSONDecoderReadsThem(tokens: Int, refresh: Bool, session: Bool) throws {
        let record = Self.record(tokens: tokens, refresh: refresh, session: session)
        // Both writers: the SDK's own and JSONEncoder's (format 1 records were written by it).
        let documents = [try #require(record.encodedJSON()), try AccountStoreLayout.encoder.encode(record)]
        for data in documents {
            let byHand = try AccountRecord(storedJSON: data)
            #expect(byHand == (try Self.decoder.decode(AccountRecord.self, from: data)))
            #expect(byHand == record)
        }
    }

    @Test(arguments: [
        #"{"version":2,"username":"u","idToken":"t","signInScopes":[],"accessTokens":{}}"#,  // no identifier
        #"{"version":2.5,"identifier":"i","username":"u","idToken":"t","signInScopes":[],"accessTokens":{}}"#,
        #"{"version":"2","identifier":"i","username":"u","idToken":"t","signInScopes":[],"accessTokens":{}}"#,
        #"{"version":2,"identifier":"i","username":"u","idToken":"t","signInScopes":[1],"accessTokens":{}}"#,
        #"{"version":2,"identifier":"i","username":"u","idToken":"t","refreshToken":5,"signInScopes":[],"accessTokens":{}}"#,
        #"{"version":2,"identifier":"i","username":"u","idToken":"t","signInScopes":[],"accessTokens":{"k":{"token":"a","scopes":[]}}}"#,
        #"{"version":2,"identifier":"i","username":"u","idToken":"t","signInScopes":[],"accessTokens":{"k":{"token":"a","expiresOn":"soon","scopes":[]}}}"#,
        #"{"version":2,"identifier":"i","username":"u","idToken":"t","signInScopes":[],"accessTokens":{},"biometryState":"*not base64*"}"#,
        #"{"version":2,"identifier":"i","username":"u","idToken":"t","signInScopes":[],"accessTokens":{},"biometryState":7}"#,
        #"["not an object"]"#, "", "{",
    ])
    func damagedRecordsAreRefusedAsJSONDecoderRefusedThem(document: String) {
        let data = Data(document.utf8)
        #expect((try? Self.decoder.decode(AccountRecord.self, from: data)) == nil)
        #expect((try? AccountRecord(storedJSON: data)) == nil)
    }

    /// A first-party account keeps its provider's `auth_session` (OAuth 2.0 for First-Party
    /// Applications §5.3.1) in an optional member: every account item written before it reads as
    /// it did, with none.
    @Test func theAuthSessionIsAnOptionalMemberOlderItemsReadWithout() throws {
        var record = Self.record(tokens: 1, refresh: true, session: true)
        record.authSession = "as-\u{e9}\"1"
        for data in [try #require(record.encodedJSON()), try AccountStoreLayout.encoder.encode(record)] {
            let byHand = try AccountRecord(storedJSON: data)
            #expect(byHand == (try Self.decoder.decode(AccountRecord.self, from: data)))
            #expect(byHand.authSession == record.authSession)
        }
        let older = Data(
            #"{"version":2,"identifier":"i","username":"u","idToken":"t","refreshToken":"rt","signInScopes":[],"session":"s","accessTokens":{}}"#
                .utf8)
        let read = try AccountRecord(storedJSON: older)
        #expect(read == (try Self.decoder.decode(AccountRecord.self, from: older)))
        #expect(read.authSession == nil && read.refreshToken == "rt")
        #expect(try #require(read.encodedJSON()) == older, "an account without one writes no member")
        let damaged = Data(
            #"{"version":2,"identifier":"i","username":"u","idToken":"t","signInScopes":[],"accessTokens":{},"authSession":7}"#
                .utf8)
        #expect((try? AccountRecord(storedJSON: damaged)) == nil)
        #expect((try? Self.decoder.decode(AccountRecord.self, from: damaged)) == nil)
    }

    @Test func bytesThatAreNotUTF8AreRefused() {
        var data = Data(
            #"{"version":2,"identifier":"i","username":"u","idToken":"t","refreshToken":"rt-X","signInScopes":[],"accessTokens":{}}"#
                .utf8)
        let index = data.firstIndex(of: UInt8(ascii: "X"))!
        data[index] = 0xff
        #expect((try? Self.decoder.decode(AccountRecord.self, from: data)) == nil)
        #expect((try? AccountRecord(storedJSON: data)) == nil)
    }

    @Test func nullOptionalsReadAsMissing() throws {
        let data = Data(
            #"{"version":1,"identifier":"i","username":"u","idToken":"t","refreshToken":null,"session":null,"signInScopes":[],"accessTokens":{}}"#
                .utf8)
        let byHand = try AccountRecord(storedJSON: data)
        #expect(byHand == (try Self.decoder.decode(AccountRecord.self, from: data)))
        #expect(byHand.refreshToken == nil && byHand.session == nil && byHand.version == 1)
    }

    @Test func indexAndTokenItemsReadAsJSONDecoderReadsThem() throws {
        let index = AccountStoreLayout.Index(session: "s", tokens: ["a b": "key.token.00", "c": "key.token.01"])
        let indexData = AccountStoreLayout.encode(index)
        #expect(try AccountStoreLayout.Index(storedJSON: indexData) == index)
        #expect(try Self.decoder.decode(AccountStoreLayout.Index.self, from: indexData) == index)
        let item = AccountStoreLayout.TokenItem(
            session: "s", scopeKey: "a b",
            token: .init(token: "at", expiresOn: Date(timeIntervalSince1970: 1_800_000_000), scopes: ["a", "b"]))
        let itemData = try AccountStoreLayout.encoder.encode(item)
        #expect(try AccountStoreLayout.TokenItem(storedJSON: itemData) == item)
        #expect(
            (try? AccountStoreLayout.Index(storedJSON: Data(#"{"version":2,"session":"s","tokens":{"a":1}}"#.utf8)))
                == nil)
        #expect(
            (try? AccountStoreLayout.TokenItem(storedJSON: Data(#"{"version":2,"session":"s","scopeKey":"a"}"#.utf8)))
                == nil)
    }
}
