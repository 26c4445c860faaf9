import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Seeded random mutations of the V2 fixtures (members dropped, values of the wrong type, huge
/// values, deep nesting, duplicate members, cut or flipped bytes): every answer gives a typed
/// outcome, every outcome keeps its promises, and no rendering shows a token.
@Suite("V2 answers under seeded mutation", .hangLimit, .cpuHeavy)
struct V2MutationTests {
    static let cases = 3_000
    static let seed: UInt64 = 0x5EED_0002_2026_0001
    static let authority =
        URL(string: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com") ?? URL(fileURLWithPath: "/")

    static func wrongValue(_ rng: inout SplitMix64) -> JSONValue {
        switch rng.int(0..<10) {
        case 0: return .null
        case 1: return .bool(rng.chance(0.5))
        case 2: return .number([0, -1, 1e300, -1e300, 2.5, 9_007_199_254_740_992, .infinity][rng.int(0..<7)])
        case 3: return .string(String(repeating: "x", count: rng.int(0...70_000)))
        case 4:
            return .string(
                ["", " ", "\u{0}", "/{tenant}/api/x", "//evil.example/api/x", "https://evil.example/api/x"][
                    rng.int(0..<6)])
        case 5: return .array((0..<rng.int(0...3)).map { _ in .string("v") })
        case 6: return .object(["href": .number(1)])
        case 7:
            var value = JSONValue.string("deep")
            for _ in 0..<rng.int(1...62) { value = rng.chance(0.5) ? .array([value]) : .object(["k": value]) }
            return value
        case 8: return .object([:])
        default: return .string("unknown-\(rng.int(0..<5))")
        }
    }

    /// `value` with one random change somewhere in it.
    static func mutate(_ value: JSONValue, _ rng: inout SplitMix64, depth: Int = 0) -> JSONValue {
        switch value {
        case .object(var members) where !members.isEmpty && depth < 6:
            let key = members.sortedKeys[rng.int(0..<members.count)]
            switch rng.int(0..<4) {
            case 0: members[key] = nil
            case 1: members[key] = wrongValue(&rng)
            default: members[key] = mutate(members[key] ?? .null, &rng, depth: depth + 1)
            }
            return .object(members)
        case .array(var values) where !values.isEmpty && depth < 6:
            let index = rng.int(0..<values.count)
            if rng.chance(0.3) {
                values.append(values[index])
            } else {
                values[index] = mutate(values[index], &rng, depth: depth + 1)
            }
            return .array(values)
        default:
            return wrongValue(&rng)
        }
    }

    /// The body bytes of a mutated fixture: the tree mutated, then sometimes its text.
    static func body(_ fixture: String, _ rng: inout SplitMix64) -> Data {
        guard let parsed = try? JSONValue.parse(Data(fixture.utf8)) else { return Data(fixture.utf8) }
        var value = parsed
        for _ in 0..<rng.int(1...3) { value = mutate(value, &rng) }
        var bytes = Array(value.description.utf8)
        switch rng.int(0..<8) {
        case 0 where !bytes.isEmpty:
            bytes = Array(bytes.prefix(rng.int(0..<bytes.count)))
        case 1 where !bytes.isEmpty:
            bytes[rng.int(0..<bytes.count)] = rng.byte()
        case 2 where bytes.first == UInt8(ascii: "{"):
            // A duplicate member in front: the parser keeps the first value.
            bytes = Array(#"{"state":"interactionRequired","continuationToken":"ct-dup","#.utf8) + bytes.dropFirst()
        default:
            break
        }
        return Data(bytes)
    }

    @Test func mutatedAnswersGiveTypedOutcomes() {
        var rng = SplitMix64(seed: Self.seed)
        let resolver = V2HrefResolver(authority: Self.authority)
        let statuses = [200, 201, 400, 401, 403, 429, 500, 302]
        var counts: [String: Int] = [:]
        for index in 0..<Self.cases {
            let (fixture, kind, fixtureStatus) = V2Fixtures.all[rng.int(0..<V2Fixtures.all.count)]
            let status = rng.chance(0.7) ? fixtureStatus : statuses[rng.int(0..<statuses.count)]
            let data = Self.body(fixture, &rng)
            let outcome = V2Outcome(HTTPResponse(statusCode: status, body: data), to: kind)
            let label = "case \(index) (\(kind), \(status))"
            let rendered = "\(outcome)"
            #expect(!rendered.contains("ct-"), "\(label) shows a token")
            var hrefs: [String] = []
            switch outcome {
            case .interaction(let envelope):
                counts["interaction", default: 0] += 1
                #expect(envelope.state == .interactionRequired, "\(label)")
                #expect(envelope.continuationToken != nil, "\(label)")
                if let relation = envelope.action?.relation {
                    #expect(envelope.offers(relation), "\(label)")
                } else {
                    Issue.record("\(label): an interaction without a known action")
                }
                hrefs = Array(envelope.links.hrefs.values) + envelope.methods.flatMap { $0.links.hrefs.values }
            case .started(let answer):
                counts["started", default: 0] += 1
                hrefs = [answer.signIn, answer.signUp, answer.resetPassword].compactMap { $0 }
                #expect(!hrefs.isEmpty, "\(label)")
            case .journeyComplete(_, let href):
                counts["complete", default: 0] += 1
                hrefs = [href].compactMap { $0 }
            case .refused(let error):
                counts["refused", default: 0] += 1
                #expect(!error.error.isEmpty && error.error.count <= ServerError.maximumTextLength + 1, "\(label)")
                #expect(error.errorCodes.count <= ServerError.maximumCodes, "\(label)")
            case .malformed: counts["malformed", default: 0] += 1
            default: counts["other", default: 0] += 1
            }
            for href in hrefs {
                guard let link = try? resolver.resolve(href) else { continue }
                #expect(link.url.host == "contoso.ciamlogin.com" && link.url.scheme == "https", "\(label): \(href)")
                #expect(link.url.path.hasPrefix("/contoso.onmicrosoft.com/"), "\(label): \(href)")
            }
        }
        // The mutations leave enough answers whole for the checks above to mean something.
        #expect(counts["interaction", default: 0] > 100)
        #expect(counts["malformed", default: 0] > 100)
        #expect(counts["refused", default: 0] > 50)
    }

    @Test func nestingBeyondTheParsersLimitIsNotJSON() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let body = #"{"state":"interactionRequired","x":"# + deep + "}"
        guard case .malformed(let answer) = V2Fixtures.outcome(body, .interaction) else {
            Issue.record("not malformed")
            return
        }
        #expect(answer.problem == .notJSON)
    }

    @Test func randomHrefsNeverLeaveTheAuthority() {
        var rng = SplitMix64(seed: Self.seed ^ 0xA11)
        let resolver = V2HrefResolver(authority: Self.authority)
        let pieces = [
            "/", "//", "api", "oauth2", "{tenant}", "{x}", "..", ".", "%2e", "%2F", "?", "#", "@", ":", "443", "8443",
            "https:", "http:", "contoso.ciamlogin.com", "evil.example", "\\", " ", "v2.0", "a", "é", "%", "=", "&",
        ]
        for _ in 0..<5_000 {
            let href = (0..<rng.int(1...12)).map { _ in pieces[rng.int(0..<pieces.count)] }.joined()
            guard let link = try? resolver.resolve(href) else { continue }
            #expect(
                link.url.scheme == "https" && link.url.host == "contoso.ciamlogin.com" && link.url.port == nil,
                "\(href)")
            #expect(link.url.path.hasPrefix("/contoso.onmicrosoft.com/"), "\(href)")
            #expect(link.url.fragment == nil && link.url.user == nil, "\(href)")
            #expect(!link.url.path.split(separator: "/").contains { $0 == ".." || $0 == "." }, "\(href)")
        }
    }
}
