import Foundation

/// A small, strict JSON reader for the JSON the emulator reads: the one JSON value a client sends
/// (the `attributes` form field), the claims of its own access tokens, and tenant snapshots.
///
/// It accepts RFC 8259 JSON and nothing else (no comments, no trailing commas), so a client that
/// serialises attributes sloppily is caught.
struct JSONParser {
    struct Failure: Error, Equatable {
        var offset: Int
    }

    private let bytes: [UInt8]
    private var index = 0

    /// Parses `text` as one JSON value with nothing but whitespace around it.
    static func parse(_ text: String) throws(Failure) -> JSON {
        var parser = JSONParser(bytes: Array(text.utf8))
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw Failure(offset: parser.index) }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            index += 1
        }
    }

    private mutating func expect(_ literal: String) throws(Failure) {
        for byte in literal.utf8 {
            guard current == byte else { throw Failure(offset: index) }
            index += 1
        }
    }

    private mutating func parseValue(depth: Int) throws(Failure) -> JSON {
        guard depth < 64, let byte = current else { throw Failure(offset: index) }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default: return try parseNumber()
        }
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> JSON {
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw Failure(offset: index) }
            let key = try parseString()
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            object[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect("}")
            return .object(object)
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) -> JSON {
        index += 1
        var values: [JSON] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect("]")
            return .array(values)
        }
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var pending: [UInt8] = []
        func flush() throws(Failure) {
            guard !pending.isEmpty else { return }
            guard let text = String(bytes: pending, encoding: .utf8) else { throw Failure(offset: index) }
            scalars.append(contentsOf: text.unicodeScalars)
            pending.removeAll()
        }
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                try flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush()
                scalars.append(try parseEscape())
            case 0x00..<0x20:
                throw Failure(offset: index - 1)
            default:
                pending.append(byte)
            }
        }
        throw Failure(offset: index)
    }

    private mutating func parseEscape() throws(Failure) -> Unicode.Scalar {
        guard let byte = current else { throw Failure(offset: index) }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800..<0xDC00).contains(first) {
                try expect("\\u")
                let second = try parseHex4()
                guard (0xDC00..<0xE000).contains(second) else { throw Failure(offset: index) }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else { throw Failure(offset: index) }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw Failure(offset: index) }
            return scalar
        default:
            throw Failure(offset: index - 1)
        }
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexValue(byte) else { throw Failure(offset: index) }
            value = value * 16 + UInt32(digit)
            index += 1
        }
        return value
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private mutating func parseNumber() throws(Failure) -> JSON {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw Failure(offset: index)
        }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard skipRequiredDigits() else { throw Failure(offset: index) }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipRequiredDigits() else { throw Failure(offset: index) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return .integer(value) }
        guard let value = Double(text) else { throw Failure(offset: start) }
        return .double(value)
    }

    private mutating func skipDigits() {
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            index += 1
        }
    }

    private mutating func skipRequiredDigits() -> Bool {
        let start = index
        skipDigits()
        return index > start
    }
}
