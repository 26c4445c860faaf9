import Foundation

/// A JSON value, as found in token claims and server answers.
public enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    /// A string.
    case string(String)
    /// A number; integers up to 2^53 are exact.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])
    /// `null`.
    case null

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an integer, when this is a whole number that fits in `Int`, or a string of one.
    public var intValue: Int? {
        switch self {
        case .number(let value):
            guard value.isFinite, value.rounded() == value, abs(value) < 9.0e15 else { return nil }
            return Int(value)
        case .string(let text):
            return Int(decimal: text.trimmingCharacters(in: .whitespaces))
        default:
            return nil
        }
    }

    /// The number, when this is a number.
    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The Boolean, when this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The member `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The value written as compact JSON, object keys sorted.
    @inline(never)
    public var description: String {
        var out: [UInt8] = []
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the value as compact JSON, object keys sorted, so one value always gives the same
    /// bytes.
    func write(into out: inout [UInt8]) {
        switch self {
        case .string(let value): Self.writeString(value, into: &out)
        case .number(let value):
            if let int = intValue {
                out.append(contentsOf: String(int).utf8)
            } else {
                out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
            }
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.sortedKeys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                members[key, default: .null].write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        writeString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal, byte by byte: `"` and `\` escaped, line feed,
    /// carriage return and tab as `\n`, `\r`, `\t`, other control characters as `\u00XX`,
    /// everything else (all of UTF-8 above them) as it is.
    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most text (tokens, names) needs no escape: one copy instead of a check per byte appended.
        let plain =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                !bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            } ?? false
        if plain {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
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

/// Why a body is not JSON.
struct JSONParseError: Error, Equatable {
    let offset: Int
    let reason: String
}

extension JSONValue {
    /// The deepest nesting accepted; server answers are a few levels deep.
    static let maximumDepth = 64

    /// Parses `data` as one JSON value (RFC 8259), with a depth limit; never traps. An object
    /// with a member name twice keeps the first value, or, with `rejectingDuplicateMembers`, is
    /// refused (JOSE headers and JWT claims: RFC 7515 §5.2, RFC 7519 §4), so the SDK and a
    /// parser that keeps the last value can never read two different claims from one token.
    static func parse(_ data: Data, rejectingDuplicateMembers: Bool = false) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: [UInt8](data))
        parser.rejectsDuplicateMembers = rejectingDuplicateMembers
        return try parser.parseDocument()
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var rejectsDuplicateMembers = false

    init(bytes: [UInt8]) {
        // A UTF-8 byte order mark is tolerated.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            self.bytes = Array(bytes.dropFirst(3))
        } else {
            self.bytes = bytes
        }
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the value") }
        return value
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONValue.maximumDepth else { throw fail("nested too deeply") }
        guard index < bytes.count else { throw fail("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func expect(_ word: String) throws(JSONParseError) {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw fail("invalid literal")
        }
        index += utf8.count
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            // A duplicated key keeps its first value, as most servers' parsers do, unless refused.
            let value = try parseValue(depth: depth + 1)
            if members[key] == nil {
                members[key] = value
            } else if rejectsDuplicateMembers {
                throw fail("duplicate member")
            }
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw fail("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw fail("expected ',' or ']'") }
            index += 1
            return .array(values)
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // Overflowing literals become ±infinity; callers treat non-finite numbers as absent.
        return .number(Double(text) ?? .nan)
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        // Most strings (tokens among them) have no escape: one scan and one copy.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes[start..<index - 1], as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("control character in a string") }
            index += 1
        }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                // Invalid UTF-8 reads as U+FFFD, as everywhere else in the SDK.
                return String(decoding: utf8, as: UTF8.self)
            }
            if byte < 0x20 { throw fail("control character in a string") }
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw fail("unexpected end") }
            let escape = bytes[index]
            index += 1
            let scalar: Unicode.Scalar
            switch escape {
            case UInt8(ascii: "\""): scalar = "\""
            case UInt8(ascii: "\\"): scalar = "\\"
            case UInt8(ascii: "/"): scalar = "/"
            case UInt8(ascii: "b"): scalar = "\u{08}"
            case UInt8(ascii: "f"): scalar = "\u{0C}"
            case UInt8(ascii: "n"): scalar = "\n"
            case UInt8(ascii: "r"): scalar = "\r"
            case UInt8(ascii: "t"): scalar = "\t"
            case UInt8(ascii: "u"): scalar = try parseUnicodeEscape(into: &utf8)
            default: throw fail("invalid escape")
            }
            UTF8.encode(scalar) { utf8.append($0) }
        }
        throw fail("unterminated string")
    }

    /// The scalar of a `\u` escape (after the `u`), reading a following low surrogate's escape
    /// when it is a high surrogate. A lone or mismatched surrogate reads as U+FFFD (and a
    /// mismatched second escape as U+FFFD too, appended to `utf8` first).
    mutating func parseUnicodeEscape(into utf8: inout [UInt8]) throws(JSONParseError) -> Unicode.Scalar {
        let unit = try parseHex4()
        guard (0xD800...0xDBFF).contains(unit) else { return Unicode.Scalar(unit) ?? "\u{FFFD}" }
        // A high surrogate must be followed by an escaped low surrogate.
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
        else { return "\u{FFFD}" }
        index += 2
        let low = try parseHex4()
        if (0xDC00...0xDFFF).contains(low),
            let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
        {
            return scalar
        }
        UTF8.encode("\u{FFFD}") { utf8.append($0) }
        return Unicode.Scalar(low) ?? "\u{FFFD}"
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("unexpected end") }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            value <<= 4
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value += UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value += UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value += UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
        }
        index += 4
        return value
    }
}
