import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Account record: the hand-written JSON reads back as JSONEncoder's does", .hangLimit)
struct AccountRecordJSONTests {
    static func text(_ random: inout SplitMix64) -> String {
        let pool: [Unicode.Scalar] = Array("aZ09-._~ \"\\/\u{0}\u{1}\u{1f}\n\té€😀\u{7f}\u{2028}".unicodeScalars)
        var text = ""
        for _ in 0..<Int.random(in: 0..<20, using: &random) {
            text.unicodeScalars.append(pool[Int.random(in: 0..<pool.count, using: &random)])
        }
        return text
    }

    @Test func randomRecordsRoundTrip() throws {
        var random = SplitMix64(seed: 9)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        for _ in 0..<300 {
            var tokens: [String: AccountRecord.CachedAccessToken] = [:]
            for _ in 0..<Int.random(in: 0..<5, using: &random) {
                let seconds = Double.random(in: -1e10...1e10, using: &random)
                tokens[Self.text(&random)] = .init(
                    token: Self.text(&random),
                    expiresOn: Date(timeIntervalSince1970: Bool.random(using: &random) ? seconds.rounded() : seconds),
                    scopes: (0..<Int.random(in: 0..<3, using: &random)).map { _ in Self.text(&random) },
                    issuedOn: Bool.random(using: &random) ? Date(timeIntervalSince1970: seconds - 3600) : nil)
            }
            var record = AccountRecord(
                identifier: Self.text(&random), username: Self.text(&random), idToken: Self.text(&random),
                refreshToken: Bool.random(using: &random) ? Self.text(&random) : nil,
                signInScopes: (0..<Int.random(in: 0..<3, using: &random)).map { _ in Self.text(&random) },
                accessTokens: tokens)
            if Bool.random(using: &random) { record.authSession = Self.text(&random) }
            if Bool.random(using: &random) {
                record.biometryState = Data(
                    (0..<Int.random(in: 0..<40, using: &random)).map { _ in
                        UInt8.random(in: 0...255, using: &random)
                    })
            }
            let written = try #require(record.encodedJSON())
            let byFoundation = try encoder.encode(record)
            let readBack: AccountRecord = try decoder.decode(AccountRecord.self, from: written)
            let foundationReadBack: AccountRecord = try decoder.decode(AccountRecord.self, from: byFoundation)
            #expect(readBack == record)
            #expect(readBack == foundationReadBack)
            let document: JSONValue = try JSONValue.parse(written)
            let foundationDocument: JSONValue = try JSONValue.parse(byFoundation)
            #expect(document == foundationDocument)
        }
    }

    @Test func aDateThatIsNotFiniteIsLeftToJSONEncoder() {
        let record = AccountRecord(
            identifier: "a", username: "u", idToken: "", refreshToken: nil, signInScopes: [],
            accessTokens: ["k": .init(token: "t", expiresOn: Date(timeIntervalSince1970: .infinity), scopes: [])])
        #expect(record.encodedJSON() == nil)
    }
}
