import Foundation

/// A JSON value as the emulator writes and reads it.
///
/// Objects keep their keys in the order they were added, so every response has a stable,
/// predictable byte form: a test can compare bodies, and nothing depends on dictionary order.
enum JSON: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object(JSONObject)

    /// The string, when the value is one.
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The serialised form: compact UTF-8 JSON.
    var data: Data { Data(serialized.utf8) }

    /// The serialised form as a string.
    var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    func write(to output: inout String) {
        switch self {
        case .string(let value):
            JSON.writeString(value, to: &output)
        case .integer(let value):
            output += String(value)
        case .double(let value):
            if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
                output += String(Int(value))
            } else if value.isFinite {
                output += String(value)
            } else {
                output += "null"
            }
        case .bool(let value):
            output += value ? "true" : "false"
        case .null:
            output += "null"
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let object):
            object.write(to: &output)
        }
    }

    static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}

/// A JSON object whose keys keep their insertion order.
struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    private(set) var pairs: [(key: String, value: JSON)]

    init() {
        pairs = []
    }

    init(dictionaryLiteral elements: (String, JSON)...) {
        pairs = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The value for `key`, or `nil`. Setting replaces the value in place or appends a new key;
    /// setting `nil` removes the key.
    subscript(key: String) -> JSON? {
        get { pairs.first { $0.key == key }?.value }
        set {
            let index = pairs.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): pairs[index].value = value
            case (let index?, nil): pairs.remove(at: index)
            case (nil, let value?): pairs.append((key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    var keys: [String] { pairs.map(\.key) }

    var data: Data { JSON.object(self).data }

    func write(to output: inout String) {
        output += "{"
        for (index, pair) in pairs.enumerated() {
            if index > 0 { output += "," }
            JSON.writeString(pair.key, to: &output)
            output += ":"
            pair.value.write(to: &output)
        }
        output += "}"
    }

    static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.pairs.count == rhs.pairs.count
            && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    init(stringLiteral value: String) {
        self = .string(value)
    }

    init(integerLiteral value: Int) {
        self = .integer(value)
    }

    init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}
