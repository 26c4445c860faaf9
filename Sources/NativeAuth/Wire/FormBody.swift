import Foundation

/// An `application/x-www-form-urlencoded` body whose fields keep the order they were added in.
struct FormBody: Sendable, Equatable {
    private(set) var fields: [(name: String, value: String)] = []

    static func == (lhs: FormBody, rhs: FormBody) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    mutating func add(_ name: String, _ value: String?) {
        guard let value else { return }
        fields.append((name, value))
    }

    mutating func add(_ name: String, secret: Secret?) {
        add(name, secret?.reveal)
    }

    /// Field names only, for logs.
    var names: [String] { fields.map(\.name) }

    var encoded: Data {
        Data(fields.map { Self.escape($0.name) + "=" + Self.escape($0.value) }.joined(separator: "&").utf8)
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
