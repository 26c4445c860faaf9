import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Fuzzing of the pure functions under the wire layer: the JSON parser, base64url, JWT payloads and
/// claims, and HTTP dates. Each case is generated from its seed; see FuzzCore.swift for replaying.
@Suite("Fuzz: JSON, base64url, JWT, HTTP dates", .serialized, .hangLimit, .cpuHeavy)
struct FuzzParsingTests {
    // MARK: (a) JSONValue.parse

    @Test func jsonParse() async {
        await FuzzRunner(target: .jsonParse).run { seed in Self.jsonCase(seed) }
    }

    static func jsonCase(_ seed: UInt64) -> FuzzCase {
        var gen = Gen(seed: seed)
        let mode = gen.rng.int(0..<10)
        var model: FuzzJSON?
        var bytes: [UInt8]
        switch mode {
        case 0...3:
            // A valid document, sometimes very deep or very long, whose value is known.
            var value: FuzzJSON
            switch gen.rng.int(0..<10) {
            case 0: value = gen.successBody(gen.rng.pick(Endpoint.allCases))
            case 1: value = gen.errorBody(gen.rng.pick(Endpoint.allCases))
            case 2: value = gen.nested(gen.rng.pick([1, 63, 64, 65, 66, 100, 10_000]), around: gen.value(depth: 1))
            default: value = gen.value(depth: gen.rng.int(0...5))
            }
            if gen.rng.chance(0.002) { value = .array([.string(gen.hugeText())]) }
            if gen.rng.chance(0.02) {
                value = .object([.init(key: FuzzText("a"), value: .int(1)), .init(key: FuzzText("a"), value: .int(2))])
            }
            model = value
            bytes = Array(value.render(spacing: gen.rng.chance(0.3), using: &gen.rng).utf8)
            if gen.rng.chance(0.05) { bytes = Array(" \n\t\r".utf8) + bytes + Array("\r\n ".utf8) }
            // A byte order mark is tolerated at the very start only.
            if gen.rng.chance(0.05) { bytes = [0xEF, 0xBB, 0xBF] + bytes }
        case 4...7:
            let value = gen.rng.chance(0.5) ? gen.successBody(gen.rng.pick(Endpoint.allCases)) : gen.value(depth: 4)
            bytes = gen.mutate(Array(value.render(using: &gen.rng).utf8))
        case 8:
            bytes = gen.rng.bytes(gen.rng.int(0...300))
        default:
            // Scalars at the root, number edge cases, strings with raw invalid UTF-8 inside.
            switch gen.rng.int(0..<4) {
            case 0: bytes = Array(gen.numberText().utf8)
            case 1:
                bytes = Array(
                    gen.rng.pick([
                        "", " ", "\u{FEFF}", "nul", "truex", "-", "1.", ".5", "+1", "01", "1e", "1e+", "--1", "0x10",
                        "NaN", "Infinity", "\"\\u12\"", "\"\\ud800\"", "\"\\uDFFF\\uD800\"",
                    ]).utf8)
            case 2:
                bytes =
                    Array("\"".utf8)
                    + gen.rng.bytes(gen.rng.int(0...40)).map { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 ? 0x61 : $0 }
                    + Array("\"".utf8)
            default:
                bytes =
                    Array("[\"".utf8) + [0xC3, 0x28, 0xED, 0xA0, 0x80, 0xF4, 0x90, 0x80, 0x80, 0xFF] + Array("\"]".utf8)
            }
        }
        let data = Data(bytes)
        return FuzzCase(size: data.count) { [model] in
            var problems = Problems()
            let parsed: JSONValue?
            do throws(JSONParseError) {
                parsed = try JSONValue.parse(data)
            } catch {
                parsed = nil
                problems.check(
                    error.offset >= 0 && error.offset <= data.count, "error offset \(error.offset) outside the body")
            }
            if let model {
                if model.depth > JSONValue.maximumDepth {
                    problems.check(parsed == nil, "a document nested \(model.depth) deep was accepted")
                } else if let parsed {
                    problems.check(
                        sameJSON(parsed, model.expected),
                        "valid document read wrongly: " + firstDifference(parsed, model.expected) + " in "
                            + String(decoding: data.prefix(300), as: UTF8.self).debugDescription)
                } else {
                    let reason = (try? JSONValue.parse(data)).map { _ in "" } ?? Self.parseError(data)
                    problems.add(
                        "a valid document (\(data.count) bytes, depth \(model.depth)) was refused (\(reason)): "
                            + String(decoding: data.prefix(300), as: UTF8.self).debugDescription)
                }
            }
            if let parsed {
                // What the parser reads, written back, reads the same.
                let again = try? JSONValue.parse(Data(parsed.description.utf8))
                problems.check(
                    again.map { sameJSON($0, normalizedForRoundTrip(parsed)) } ?? false,
                    "the description of a parsed value does not read back the same")
            }
            return problems.list
        }
    }

    static func parseError(_ data: Data) -> String {
        do throws(JSONParseError) {
            _ = try JSONValue.parse(data)
            return "no error"
        } catch {
            return "\(error.reason) at byte \(error.offset)"
        }
    }

    // MARK: (f) Base64URL.decode

    @Test func base64url() async {
        await FuzzRunner(target: .base64url).run { seed in Self.base64Case(seed) }
    }

    static let base64Alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    static func base64Case(_ seed: UInt64) -> FuzzCase {
        var rng = SplitMix64(seed: seed)
        let data = Data(rng.bytes(rng.chance(0.01) ? rng.int(10_000...100_000) : rng.int(0...64)))
        var text = encodeBase64URL(data)
        var exact: Data? = data
        switch rng.int(0..<6) {
        case 0: break
        case 1:
            text += String(repeating: "=", count: rng.int(1...4))
        case 2:
            // A character from outside the alphabet.
            var characters = Array(text)
            let bad = rng.pick(Array("+/=. é\n\t%*\u{0}") + ["👍"])
            characters.insert(bad, at: rng.int(0...characters.count))
            text = String(characters)
            exact = nil
        case 3:
            text = String(text.prefix(rng.int(0...text.count)))
            exact = nil
        case 4:
            text = String((0..<rng.int(0...40)).map { _ in rng.pick(Array("AZaz09-_+/= .é")) })
            exact = nil
        default:
            text = "=" + text
            exact = text == "=" ? Data() : nil
        }
        return FuzzCase(size: text.utf8.count) { [text, exact] in
            var problems = Problems()
            let decoded = Base64URL.decode(text)
            if let exact {
                problems.check(decoded == exact, "a valid encoding of \(exact.count) bytes decoded wrongly")
            }
            if let decoded {
                var body = Substring(text)
                while body.hasSuffix("=") { body = body.dropLast() }
                problems.check(body.allSatisfy(Self.base64Alphabet.contains), "decoded text outside the alphabet")
                problems.check(body.count % 4 != 1, "decoded an impossible length")
                problems.check(
                    decoded.count == body.count * 3 / 4, "decoded \(decoded.count) bytes from \(body.count) characters")
            }
            return problems.list
        }
    }

    // MARK: (e) JWT.payload and Claims

    @Test func jwtClaims() async {
        await FuzzRunner(target: .jwtClaims).run { seed in Self.jwtCase(seed) }
    }

    static func jwtCase(_ seed: UInt64) -> FuzzCase {
        var gen = Gen(seed: seed)
        var expected: JSONValue?
        let token: String
        switch gen.rng.int(0..<4) {
        case 0: token = gen.jwt()
        case 1: token = gen.idToken()
        default:
            // A well-formed token whose payload is known (claims of every type).
            let claims = FuzzJSON.object(
                (0..<gen.rng.int(0...8)).map { _ in
                    .init(
                        key: FuzzText(
                            gen.rng.pick([
                                "sub", "oid", "tid", "exp", "iat", "aud", "roles", "scp", "name", "email",
                                "preferred_username", "iss",
                            ])),
                        value: gen.rng.chance(0.5) ? gen.value(depth: 2) : gen.number())
                })
            let payload = gen.rng.chance(0.05) ? gen.nested(gen.rng.pick([64, 65, 10_000]), around: claims) : claims
            expected = payload.depth > JSONValue.maximumDepth ? nil : payload.expected
            token =
                encodeBase64URL(Data("{\"alg\":\"none\"}".utf8)) + "."
                + encodeBase64URL(Data(payload.render(using: &gen.rng).utf8)) + "." + (gen.rng.chance(0.5) ? "" : "sig")
        }
        let clientInfo: String? = gen.rng.chance(0.8) ? gen.clientInfo() : nil
        let username = gen.rng.pick(["ada@example.com", "", "ÉVE@EXAMPLE.COM"])
        return FuzzCase(size: token.utf8.count) { [expected] in
            var problems = Problems()
            let payload = JWT.payload(of: token)
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            if payload != nil {
                problems.check(parts.count == 3, "a payload from \(parts.count) parts")
                problems.check(
                    Base64URL.decode(String(parts[1])) != nil, "a payload from a segment that is not base64url")
            }
            if case .object(let members)? = expected {
                problems.check(
                    payload.map { sameJSON(.object($0), .object(members)) } ?? false,
                    "a valid token's payload read wrongly")
            }
            let claims = Claims(payload ?? [:])
            for date in [claims.expiresAt, claims.issuedAt, claims.date("nbf")] {
                if let date { problems.check(date.timeIntervalSince1970.isFinite, "a claim date that is not finite") }
            }
            _ = (claims.subject, claims.objectId, claims.tenantId, claims.preferredUsername, claims.email, claims.name)
            _ = (
                claims.issuer, claims.audiences, claims.roles, claims.scopes, claims.strings("amr"), claims.description
            )
            let identifier = AccountManager.identifier(clientInfo: clientInfo, claims: claims, username: username)
            // With a username, an account always has an identifier, whatever the claims hold.
            if !username.isEmpty {
                problems.check(
                    !identifier.isEmpty,
                    "an empty account identifier from \(String(describing: clientInfo)), \(claims.all)")
            }
            let record = AccountRecord(
                identifier: identifier, username: username, idToken: token, refreshToken: nil, signInScopes: [],
                accessTokens: [:])
            problems.check(record.claims == claims, "the record's claims differ from the token's")
            _ = record.account.description
            return problems.list
        }
    }

    // MARK: HTTPDate.parse

    @Test func httpDate() async {
        await FuzzRunner(target: .httpDate).run { seed in Self.httpDateCase(seed) }
    }

    static func httpDateCase(_ seed: UInt64) -> FuzzCase {
        var gen = Gen(seed: seed)
        let valid = gen.rng.chance(0.5) ? gen.httpDate() : nil
        let text = valid?.text ?? gen.malformedDate()
        return FuzzCase(size: text.utf8.count) {
            var problems = Problems()
            let date = HTTPDate.parse(text)
            if let valid { problems.check(date == valid.date, "'\(text)' read as \(String(describing: date))") }
            if let date { problems.check(date.timeIntervalSince1970.isFinite, "a date that is not finite") }
            return problems.list
        }
    }
}
