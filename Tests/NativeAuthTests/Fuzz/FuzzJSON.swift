import Foundation
import NativeAuthTestSupport

@testable import NativeAuth

/// A string as the generator writes it between quotes (escapes included) and the value a correct
/// parser reads from it.
struct FuzzText: Sendable {
    var written: String
    var value: String

    init(written: String, value: String) {
        self.written = written
        self.value = value
    }

    /// `plain` written with the minimal escapes.
    init(_ plain: String) {
        var out = ""
        for scalar in plain.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        self.init(written: out, value: plain)
    }

    static func + (lhs: FuzzText, rhs: FuzzText) -> FuzzText {
        FuzzText(written: lhs.written + rhs.written, value: lhs.value + rhs.value)
    }
}

/// A JSON document as generated: members keep their order and may repeat, numbers keep their text.
indirect enum FuzzJSON: Sendable {
    struct Member: Sendable {
        var key: FuzzText
        var value: FuzzJSON
    }

    case string(FuzzText)
    case number(String)
    case bool(Bool)
    case null
    case array([FuzzJSON])
    case object([Member])
    /// Text written as it is, for nesting too deep to model (and to be refused): `depth` is its depth.
    case raw(String, depth: Int)

    static func str(_ plain: String) -> FuzzJSON { .string(FuzzText(plain)) }
    static func int(_ value: Int) -> FuzzJSON { .number(String(value)) }
    static func obj(_ members: [(String, FuzzJSON)]) -> FuzzJSON {
        .object(members.map { Member(key: FuzzText($0.0), value: $0.1) })
    }

    /// What a parser must read: the first of duplicated keys wins, as `JSONValue.parse` documents.
    var expected: JSONValue {
        switch self {
        case .string(let text): return .string(text.value)
        case .number(let text): return .number(Double(text) ?? .nan)
        case .bool(let value): return .bool(value)
        case .null: return .null
        case .array(let values): return .array(values.map(\.expected))
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for member in members where result[member.key.value] == nil {
                result[member.key.value] = member.value.expected
            }
            return .object(result)
        case .raw: return .null
        }
    }

    /// The deepest nesting of a value below the root (the root is at depth 0).
    var depth: Int {
        switch self {
        case .array(let values): return values.map { $0.depth + 1 }.max() ?? 0
        case .object(let members): return members.map { $0.value.depth + 1 }.max() ?? 0
        case .raw(_, let depth): return depth
        default: return 0
        }
    }

    /// The document as text; `spacing` puts random white space between tokens.
    func render(spacing: Bool = false, using rng: inout SplitMix64) -> String {
        var out = ""
        render(into: &out, spacing: spacing, rng: &rng)
        return out
    }

    private func space(_ out: inout String, _ spacing: Bool, _ rng: inout SplitMix64) {
        guard spacing, rng.chance(0.3) else { return }
        out += rng.pick([" ", "\t", "\n", "\r\n", "  ", " \n "])
    }

    private func render(into out: inout String, spacing: Bool, rng: inout SplitMix64) {
        switch self {
        case .string(let text): out += "\"" + text.written + "\""
        case .number(let text): out += text
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        case .raw(let text, _): out += text
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                space(&out, spacing, &rng)
                value.render(into: &out, spacing: spacing, rng: &rng)
                space(&out, spacing, &rng)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                space(&out, spacing, &rng)
                out += "\"" + member.key.written + "\""
                space(&out, spacing, &rng)
                out += ":"
                space(&out, spacing, &rng)
                member.value.render(into: &out, spacing: spacing, rng: &rng)
                space(&out, spacing, &rng)
            }
            out += "}"
        }
    }
}

/// Equality of parsed values where NaN equals NaN (an unparseable number literal is NaN).
func sameJSON(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.number(let a), .number(let b)): return a == b || (a.isNaN && b.isNaN)
    case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy(sameJSON)
    case (.object(let a), .object(let b)):
        return a.count == b.count && a.allSatisfy { key, value in b[key].map { sameJSON(value, $0) } ?? false }
    default: return lhs == rhs
    }
}

/// Where two values first differ, for failure messages.
func firstDifference(_ lhs: JSONValue, _ rhs: JSONValue, path: String = "$") -> String {
    switch (lhs, rhs) {
    case (.array(let a), .array(let b)) where a.count == b.count:
        for (index, pair) in zip(a, b).enumerated() where !sameJSON(pair.0, pair.1) {
            return firstDifference(pair.0, pair.1, path: path + "[\(index)]")
        }
    case (.object(let a), .object(let b)) where Set(a.keys) == Set(b.keys):
        for key in a.keys.sorted() where !sameJSON(a[key] ?? .null, b[key] ?? .null) {
            return firstDifference(a[key] ?? .null, b[key] ?? .null, path: path + "[\(key.debugDescription)]")
        }
    default: break
    }
    return
        "\(path): read \(String(describing: lhs).debugDescription.prefix(200)), expected \(String(describing: rhs).debugDescription.prefix(200))"
}

/// Non-finite numbers written by `JSONValue.description` come back as `null`.
func normalizedForRoundTrip(_ value: JSONValue) -> JSONValue {
    switch value {
    case .number(let number) where !number.isFinite: return .null
    case .array(let values): return .array(values.map(normalizedForRoundTrip))
    case .object(let members): return .object(members.mapValues(normalizedForRoundTrip))
    default: return value
    }
}

/// The generator of one case: its random source and the secret markers it has handed out.
struct Gen {
    var rng: SplitMix64
    /// Markers such as `CT-SECRET-3`; none of them may appear in what the SDK renders.
    private(set) var markerCount = 0
    /// How often a field gets a value of the wrong JSON type.
    var wrongTypeRate = 0.06

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func marker(_ prefix: String) -> String {
        markerCount += 1
        return "\(prefix)-SECRET-\(markerCount)"
    }

    // MARK: Strings

    /// One piece of a string: written form and value, never interacting with its neighbours.
    mutating func textPiece() -> FuzzText {
        switch rng.int(0..<14) {
        case 0...3:
            let ascii = (0..<rng.int(1...12)).map { _ in Character(Unicode.Scalar(UInt8(rng.int(0x20...0x7E)))) }
            return FuzzText(String(ascii))
        case 4:
            let (written, value) = rng.pick([
                ("\\\"", "\""), ("\\\\", "\\"), ("\\/", "/"), ("\\b", "\u{08}"), ("\\f", "\u{0C}"), ("\\n", "\n"),
                ("\\r", "\r"), ("\\t", "\t"),
            ])
            return FuzzText(written: written, value: value)
        case 5:
            // An escaped BMP scalar that is not a surrogate, in upper or lower case hex.
            var unit = rng.int(0...0xFFFF)
            if (0xD800...0xDFFF).contains(unit) { unit = 0xE000 + (unit & 0xFFF) }
            let hex = String(format: rng.chance(0.5) ? "%04x" : "%04X", unit)
            return FuzzText(written: "\\u" + hex, value: String(Self.scalar(unit)))
        case 6:
            // An escaped surrogate pair.
            let scalar = UInt32(rng.int(0x10000...0x10FFFF))
            let high = 0xD800 + ((scalar - 0x10000) >> 10)
            let low = 0xDC00 + ((scalar - 0x10000) & 0x3FF)
            return FuzzText(
                written: String(format: "\\u%04x\\u%04x", high, low),
                value: String(Self.scalar(Int(scalar))))
        case 7:
            // Lone surrogates: replaced by U+FFFD; a piece ends in a plain letter so that it cannot
            // pair with the next piece.
            return rng.pick([
                FuzzText(written: "\\ud800x", value: "\u{FFFD}x"),
                FuzzText(written: "\\udbffx", value: "\u{FFFD}x"),
                FuzzText(written: "\\udc00x", value: "\u{FFFD}x"),
                FuzzText(written: "\\udfffx", value: "\u{FFFD}x"),
                FuzzText(written: "\\ud83d\\u0041x", value: "\u{FFFD}Ax"),
                FuzzText(written: "\\ud800\\ud800x", value: "\u{FFFD}\u{FFFD}x"),
                FuzzText(written: "\\ud800\\udbffx", value: "\u{FFFD}\u{FFFD}x"),
            ])
        case 8...10:
            // Raw non-ASCII text: accents, CJK, right-to-left, combining marks, emoji, zero widths.
            let ranges: [ClosedRange<UInt32>] = [
                0xA0...0x17F, 0x300...0x36F, 0x590...0x6FF, 0x4E00...0x4FFF, 0x1F300...0x1F64F, 0x200B...0x200F,
                0xFE00...0xFE0F, 0xFFF0...0xFFFD, 0x10000...0x1007F,
            ]
            var text = String.UnicodeScalarView()
            for _ in 0..<rng.int(1...8) {
                let range = rng.pick(ranges)
                text.append(Self.scalar(rng.int(Int(range.lowerBound)...Int(range.upperBound))))
            }
            return FuzzText(String(text))
        case 11:
            // A control character, escaped.
            return FuzzText(String(Character(Unicode.Scalar(UInt8(rng.int(0...0x1F))))))
        case 12:
            // A long run of escapes.
            let count = rng.int(100...2000)
            return FuzzText(
                written: String(repeating: "\\u00e9\\n", count: count), value: String(repeating: "é\n", count: count))
        default:
            return FuzzText(rng.pick(["", " ", "null", "true", "0", "{}", "[]", "\"", "\\", "é", "👩‍💻", "\u{0}"]))
        }
    }

    /// The scalar `value`, which the callers keep out of the surrogate range.
    static func scalar(_ value: Int) -> Unicode.Scalar { Unicode.Scalar(UInt32(value)) ?? "?" }

    /// A random string of a few pieces.
    mutating func text(pieces: Int? = nil) -> FuzzText {
        let count = pieces ?? rng.int(0...4)
        return (0..<count).reduce(FuzzText("")) { text, _ in text + textPiece() }
    }

    /// A string of about a megabyte.
    mutating func hugeText() -> FuzzText {
        let unit = rng.pick(["a", "é", "\\u00e9", "😀", "\\\\"])
        let value = ["\\u00e9": "é", "\\\\": "\\"][unit] ?? unit
        let count = 1_048_576 / max(1, unit.utf8.count)
        return FuzzText(written: String(repeating: unit, count: count), value: String(repeating: value, count: count))
    }

    // MARK: Numbers

    static let edgeNumbers = [
        "0", "-0", "1", "-1", "8", "3600", "1e308", "-1e308", "1e309", "-1e400", "1e-400", "4.9e-324",
        "2.2250738585072014e-308", "1.7976931348623157e308", "123456789012345678901234567890",
        "-123456789012345678901234567890", "9007199254740993", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "8999999999999999", "9000000000000000", "1.5", "-2.5e3",
        "1E+2", "1e-0", "0.000001", "100e-2", "0.1", "60", "61", "64", "65", String(repeating: "9", count: 400),
        "0." + String(repeating: "0", count: 400) + "1",
    ]

    mutating func numberText() -> String {
        switch rng.int(0..<4) {
        case 0: return rng.pick(Self.edgeNumbers)
        case 1: return String(rng.int(-1000...100_000))
        case 2:
            return String(rng.int(-99...99)) + "." + String(rng.int(0...999_999))
                + (rng.chance(0.5) ? "e" + String(rng.int(-330...330)) : "")
        default: return String(rng.int(Int.min...Int.max))
        }
    }

    mutating func number() -> FuzzJSON { .number(numberText()) }

    // MARK: Values

    /// A random value, nested at most `depth` more levels.
    mutating func value(depth: Int = 3) -> FuzzJSON {
        let kind = depth > 0 ? rng.int(0..<8) : rng.int(0..<5)
        switch kind {
        case 0, 1: return .string(text())
        case 2: return number()
        case 3: return .bool(rng.chance(0.5))
        case 4: return .null
        case 5, 6: return .array((0..<rng.int(0...4)).map { _ in value(depth: depth - 1) })
        default:
            return .object(
                (0..<rng.int(0...4)).map { _ in .init(key: text(pieces: rng.int(0...2)), value: value(depth: depth - 1))
                })
        }
    }

    /// `levels` nested arrays or objects around `inner`. Beyond 100 levels the nesting is written as
    /// text (the model's own recursion would overflow a stack).
    mutating func nested(_ levels: Int, around inner: FuzzJSON = .int(1)) -> FuzzJSON {
        let useObjects = rng.chance(0.5)
        if levels > 100 {
            let open = useObjects ? "{\"a\":" : "["
            let close = useObjects ? "}" : "]"
            let text =
                String(repeating: open, count: levels) + inner.render(using: &rng)
                + String(repeating: close, count: levels)
            return .raw(text, depth: levels + inner.depth)
        }
        var value = inner
        for _ in 0..<levels {
            value = useObjects ? .obj([("a", value)]) : .array([value])
        }
        return value
    }

    /// A value of another JSON type than `valid` (or the same type, badly formed).
    mutating func wrongValue(for valid: FuzzJSON) -> FuzzJSON {
        switch rng.int(0..<12) {
        case 0:
            switch valid {
            case .number(let text): return .str(text)
            case .string(let text): return .number(Double(text.value) != nil ? text.value : numberText())
            default: return .str(numberText())
            }
        case 1: return .array([valid])
        case 2: return .obj([("value", valid)])
        case 3: return .null
        case 4: return .bool(rng.chance(0.5))
        case 5: return .str("")
        case 6: return .number(rng.pick(["1e308", "-1e400", "123456789012345678901234567890", "1e-400", "-0"]))
        case 7: return nested(rng.int(2...80), around: valid)
        case 8: return .array([])
        case 9: return .object([])
        case 10: return .str(" " + (rng.chance(0.5) ? "42" : "true") + " ")
        default: return value(depth: 2)
        }
    }
}
