import Foundation

/// The fields of an `application/x-www-form-urlencoded` request body, decoded by hand.
///
/// Keys and values are percent-decoded and `+` reads as a space, as HTML forms and every OAuth
/// client encode them. A key sent twice keeps its first value (the server reads one value per key).
struct FormBody: Sendable, Equatable {
    /// The decoded fields in the order they were sent.
    private(set) var fields: [(key: String, value: String)]

    /// Why a body could not be read as a form.
    struct Malformed: Error, Equatable {
        var reason: String
    }

    init(fields: [(key: String, value: String)] = []) {
        self.fields = fields
    }

    /// Decodes `data`; an empty body is an empty form.
    init(data: Data) throws(Malformed) {
        guard let text = String(data: data, encoding: .utf8) else {
            throw Malformed(reason: "the body is not UTF-8")
        }
        var fields: [(key: String, value: String)] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try Self.decode(parts[0])
            let value = parts.count > 1 ? try Self.decode(parts[1]) : ""
            fields.append((key: key, value: value))
        }
        self.fields = fields
    }

    /// The first value sent for `key`, or `nil`.
    subscript(key: String) -> String? {
        fields.first { $0.key == key }?.value
    }

    /// The value for `key` split on spaces, empty items dropped; empty when the key is absent.
    func list(_ key: String) -> [String] {
        (self[key] ?? "").split(separator: " ").map(String.init)
    }

    /// Percent-decodes one key or value, reading `+` as a space.
    static func decode(_ encoded: Substring) throws(Malformed) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.utf8.count)
        var iterator = encoded.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(JSONParser.hexValue),
                    let low = iterator.next().flatMap(JSONParser.hexValue)
                else {
                    throw Malformed(reason: "a percent escape is incomplete")
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw Malformed(reason: "a percent-encoded value is not UTF-8")
        }
        return text
    }

    static func == (lhs: FormBody, rhs: FormBody) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
