import Foundation

/// An `application/x-www-form-urlencoded` body whose fields keep the order they were added in.
struct FormBody: Sendable, Equatable {
    private(set) var fields: [(name: String, value: String)] = []

    static func == (lhs: FormBody, rhs: FormBody) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    @inline(never)
    mutating func add(_ name: String, _ value: String?) {
        guard let value else { return }
        fields.append((name, value))
    }

    @inline(never)
    mutating func add(_ name: String, secret: Secret?) {
        add(name, secret?.reveal)
    }

    /// Field names only, for logs.
    var names: [String] { fields.map(\.name) }

    var encoded: Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 } + 32)
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: "&")) }
            Self.escape(field.name.utf8, into: &bytes)
            bytes.append(UInt8(ascii: "="))
            Self.escape(field.value.utf8, into: &bytes)
        }
        return Data(bytes)
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func escape(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        escape(text.utf8, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of `text` to `bytes`, percent-encoding all but the unreserved ones.
    static func escape(_ text: String.UTF8View, into bytes: inout [UInt8]) {
        // Tokens and codes are all unreserved: one copy instead of a check per byte appended.
        if text.withContiguousStorageIfAvailable({ $0.allSatisfy(isUnreserved) }) ?? false {
            bytes.append(contentsOf: text)
            return
        }
        for byte in text {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    @inline(__always)
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
