import Foundation

/// A JSON object from a server answer, read leniently.
///
/// Keys are matched after trimming white space (a published sample has `"challenge_target_label "`),
/// and numbers are accepted as JSON numbers or numeric strings. An exact key wins over padded ones;
/// among padded variants of one key the one whose raw key sorts first wins, so that the same body
/// always reads the same (a dictionary's order changes from run to run).
struct WireObject: Sendable, Equatable {
    let members: [String: JSONValue]

    init(_ members: [String: JSONValue]) {
        var trimmed: [String: JSONValue] = [:]
        var padded: [String: JSONValue] = [:]
        for (key, value) in members {
            let name = Self.hasPlainEnds(key) ? key : key.trimmingCharacters(in: .whitespacesAndNewlines)
            if key == name { trimmed[key] = value } else { padded[key] = value }
        }
        for key in padded.sortedKeys {
            let name = key.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed[name] == nil { trimmed[name] = padded[key] }
        }
        self.members = trimmed
    }

    /// Whether `key` starts and ends with a printable ASCII character, so that trimming white
    /// space would leave it as it is (the answer's keys nearly always do).
    private static func hasPlainEnds(_ key: String) -> Bool {
        guard let first = key.utf8.first, let last = key.utf8.last else { return true }
        return (0x21..<0x7F).contains(first) && (0x21..<0x7F).contains(last)
    }

    @inline(never)
    func string(_ key: String) -> String? {
        switch members[key] {
        case .string(let value): value
        case .number(let value) where value.isFinite: JSONValue.number(value).description
        default: nil
        }
    }

    @inline(never)
    func int(_ key: String) -> Int? { members[key]?.intValue }
    @inline(never)
    func bool(_ key: String) -> Bool? {
        switch members[key] {
        case .bool(let value): value
        case .string(let text): ["true": true, "false": false][text.lowercased()]
        default: nil
        }
    }
    @inline(never)
    func array(_ key: String) -> [JSONValue]? { members[key]?.arrayValue }
    @inline(never)
    func object(_ key: String) -> WireObject? { members[key]?.objectValue.map(WireObject.init) }

    /// The first entry of a list of integers (an array, or a single value), when it is a
    /// representable integer. An entry that is not (such as 9223372036854775807, which does not fit
    /// a double exactly) gives `nil`: the first code is then unknown, and the next entry never
    /// stands in for it.
    func firstListedInt(_ key: String) -> Int? {
        switch members[key] {
        case .array(let values): values.first?.intValue
        case let value?: value.intValue
        case nil: nil
        }
    }

    /// A list of integers: a JSON array of numbers or numeric strings, or a single number.
    func intList(_ key: String) -> [Int] {
        switch members[key] {
        case .array(let values): values.compactMap(\.intValue)
        case let value?: value.intValue.map { [$0] } ?? []
        case nil: []
        }
    }

    /// Attribute names from `[{"name": …}]` or `["…"]`.
    func attributeNames(_ key: String) -> [String] {
        (array(key) ?? []).compactMap { $0.stringValue ?? $0["name"]?.stringValue }.filter { !$0.isEmpty }
    }

    /// A space- or comma-separated list.
    func list(_ key: String) -> [String] {
        (string(key) ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    }
}
