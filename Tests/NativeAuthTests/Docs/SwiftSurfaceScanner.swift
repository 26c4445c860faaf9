import Foundation

/// Reads the public flow surface out of Swift source text: result enums with their cases, and the
/// async methods of state classes and of `NativeAuthClient` with what they return and throw.
///
/// It is a small scanner, not a parser: it blanks comments and string literals (so braces inside
/// them do not count), then reads declarations at the top level of each type body. It knows the
/// shapes this package writes (`public func name(...) async throws(E) -> T`, `case name(T, label: U)`)
/// and nothing more, which is all the state-machine document needs.
struct SwiftSurfaceScanner {
    /// A `public func` of a type body: its base name, the type it returns and the error it throws.
    struct Method: Equatable {
        var name: String
        var returns: String?
        var throwsType: String?
        var takesDelegate: Bool
    }

    /// A case of a public enum, with the types of its associated values.
    struct EnumCase: Equatable {
        var name: String
        var associatedTypes: [String]
    }

    private(set) var methods: [String: [Method]] = [:]
    private(set) var enumCases: [String: [EnumCase]] = [:]
    private(set) var classes: Set<String> = []

    /// Adds the declarations of one source file.
    mutating func scan(_ source: String) {
        let text = Array(Self.blankingCommentsAndStrings(source))
        var index = 0
        while index < text.count {
            guard let (kind, name, bodyStart) = Self.typeDeclaration(in: text, at: index) else {
                index += 1
                continue
            }
            let bodyEnd = Self.matchingBrace(in: text, openingAt: bodyStart)
            let body = Array(text[(bodyStart + 1)..<bodyEnd])
            if kind == "class" { classes.insert(name) }
            if kind == "enum" { enumCases[name, default: []] += Self.cases(in: body) }
            methods[name, default: []] += Self.publicMethods(in: body)
            index = bodyEnd + 1
        }
    }

    // MARK: - Declarations

    private static let typeKeywords = ["class", "struct", "enum", "actor", "extension"]

    /// A type or extension declaration starting at `index` (at the top level), with the index of
    /// the `{` that opens its body.
    private static func typeDeclaration(in text: [Character], at index: Int) -> (String, String, Int)? {
        guard index == 0 || !isIdentifier(text[index - 1]) else { return nil }
        for keyword in typeKeywords where matches(keyword, in: text, at: index) {
            var cursor = index + keyword.count
            guard cursor < text.count, text[cursor].isWhitespace else { continue }
            while cursor < text.count, text[cursor].isWhitespace { cursor += 1 }
            let nameStart = cursor
            while cursor < text.count, isIdentifier(text[cursor]) || text[cursor] == "." { cursor += 1 }
            let name = String(text[nameStart..<cursor])
            guard !name.isEmpty, let open = text[cursor...].firstIndex(of: "{") else { return nil }
            return (keyword, name, open)
        }
        return nil
    }

    /// The declarations starting with `keyword` directly in a type body (not in nested bodies):
    /// `read` gets the index after the keyword and returns what it read and where to go on.
    private static func topLevel<T>(
        _ keyword: String, in body: [Character], read: (Int) -> (T?, Int)
    ) -> [T] {
        var found: [T] = []
        var depth = 0
        var index = 0
        while index < body.count {
            switch body[index] {
            case "{": depth += 1
            case "}": depth -= 1
            default:
                if depth == 0, matches(keyword, in: body, at: index), index == 0 || !isIdentifier(body[index - 1]) {
                    let (item, end) = read(index + keyword.count)
                    if let item { found.append(item) }
                    index = end
                    continue
                }
            }
            index += 1
        }
        return found
    }

    /// The `public func`s declared directly in a type body, but the deprecated ones: an earlier
    /// name kept so that old code still compiles is not another call of the flow.
    private static func publicMethods(in body: [Character]) -> [Method] {
        topLevel("public func ", in: body) { start in
            let (method, end) = method(in: body, at: start)
            return (isDeprecated(body, declarationAt: start - "public func ".count) ? nil : method, end)
        }
    }

    /// Whether the attributes written just before `index` (on its line, and on the lines above it
    /// that hold only attributes) mark the declaration deprecated.
    private static func isDeprecated(_ body: [Character], declarationAt index: Int) -> Bool {
        let lines = String(body[..<max(0, index)]).split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines.reversed().enumerated() {
            let text = line.element.trimmingCharacters(in: .whitespaces)
            if text.contains("@available"), text.contains("deprecated") { return true }
            if line.offset > 0, !text.isEmpty, !text.hasPrefix("@") { return false }
        }
        return false
    }

    /// The method whose name starts at `index`, and where its signature ends (its body's `{`).
    private static func method(in body: [Character], at index: Int) -> (Method?, Int) {
        var cursor = index
        while cursor < body.count, isIdentifier(body[cursor]) { cursor += 1 }
        let name = String(body[index..<cursor])
        guard cursor < body.count, body[cursor] == "(" else { return (nil, cursor) }
        let closing = matchingParenthesis(in: body, openingAt: cursor)
        let parameters = String(body[cursor...min(closing, body.count - 1)])
        let signatureEnd = body[closing...].firstIndex(of: "{") ?? body.count
        let tail = String(body[min(closing + 1, body.count)..<signatureEnd])
        let method = Method(
            name: name,
            returns: firstMatch(of: #"->\s*([A-Za-z_][A-Za-z0-9_]*)"#, in: tail),
            throwsType: firstMatch(of: #"throws\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)"#, in: tail),
            takesDelegate: parameters.contains("delegate:"))
        return (method, signatureEnd)
    }

    /// The cases declared directly in an enum body.
    private static func cases(in body: [Character]) -> [EnumCase] {
        topLevel("case ", in: body) { start in
            var cursor = start
            while cursor < body.count, isIdentifier(body[cursor]) { cursor += 1 }
            let name = String(body[start..<cursor])
            var types: [String] = []
            if cursor < body.count, body[cursor] == "(" {
                let closing = matchingParenthesis(in: body, openingAt: cursor)
                types = associatedTypes(String(body[(cursor + 1)..<min(closing, body.count)]))
                cursor = closing
            }
            return (EnumCase(name: name, associatedTypes: types), cursor)
        }
    }

    /// `T, label: U` -> `["T", "U"]` (top-level commas only).
    private static func associatedTypes(_ list: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        for character in list {
            if "([<".contains(character) { depth += 1 }
            if ")]>".contains(character) { depth -= 1 }
            if character == ",", depth == 0 {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.map { part in
            let type = part.split(separator: ":", maxSplits: 1).last.map(String.init) ?? part
            return type.trimmingCharacters(in: .whitespacesAndNewlines)
        }.filter { !$0.isEmpty }
    }

    // MARK: - Characters

    private static func isIdentifier(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_"
    }

    private static func matches(_ word: String, in text: [Character], at index: Int) -> Bool {
        let characters = Array(word)
        guard index + characters.count <= text.count else { return false }
        return Array(text[index..<(index + characters.count)]) == characters
    }

    private static func matchingBrace(in text: [Character], openingAt open: Int) -> Int {
        matching(in: text, openingAt: open, open: "{", close: "}")
    }

    private static func matchingParenthesis(in text: [Character], openingAt open: Int) -> Int {
        matching(in: text, openingAt: open, open: "(", close: ")")
    }

    private static func matching(in text: [Character], openingAt start: Int, open: Character, close: Character) -> Int {
        var depth = 0
        for index in start..<text.count {
            if text[index] == open { depth += 1 }
            if text[index] == close {
                depth -= 1
                if depth == 0 { return index }
            }
        }
        return text.count - 1
    }

    private static func firstMatch(of pattern: String, in text: String) -> String? {
        guard let expression = try? NSRegularExpression(pattern: pattern),
            let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range])
    }

    /// The source with comments turned into spaces and string literals emptied (`""`), so that
    /// braces and parentheses in them do not count. Interpolations keep their code, strings in them
    /// are emptied too.
    static func blankingCommentsAndStrings(_ source: String) -> String {
        let text = Array(source)
        var output: [Character] = []
        output.reserveCapacity(text.count)
        var index = 0
        // Open interpolations, innermost last: the parenthesis depth inside each and whether the
        // string around it is a multi-line one.
        var interpolations: [(depth: Int, multiline: Bool)] = []
        var inString = false
        var multiline = false

        func at(_ word: String) -> Bool { matches(word, in: text, at: index) }

        while index < text.count {
            let character = text[index]
            if inString {
                if character == "\\", index + 1 < text.count, text[index + 1] == "(" {
                    interpolations.append((0, multiline))
                    inString = false
                    output.append(contentsOf: "\\(")
                    index += 2
                } else if character == "\\" {
                    index += 2
                } else if multiline ? at("\"\"\"") : character == "\"" {
                    output.append(contentsOf: multiline ? "\"\"\"" : "\"")
                    index += multiline ? 3 : 1
                    inString = false
                } else {
                    if character == "\n" { output.append("\n") }
                    index += 1
                }
                continue
            }
            if at("//") {
                while index < text.count, text[index] != "\n" { index += 1 }
                continue
            }
            if at("/*") {
                var depth = 0
                repeat {
                    if at("/*") {
                        depth += 1
                        index += 2
                    } else if at("*/") {
                        depth -= 1
                        index += 2
                    } else {
                        if text[index] == "\n" { output.append("\n") }
                        index += 1
                    }
                } while depth > 0 && index < text.count
                continue
            }
            if character == "\"" {
                multiline = at("\"\"\"")
                output.append(contentsOf: multiline ? "\"\"\"" : "\"")
                index += multiline ? 3 : 1
                inString = true
                continue
            }
            if !interpolations.isEmpty {
                if character == "(" { interpolations[interpolations.count - 1].depth += 1 }
                if character == ")" {
                    if interpolations[interpolations.count - 1].depth == 0 {
                        multiline = interpolations.removeLast().multiline
                        output.append(")")
                        index += 1
                        inString = true
                        continue
                    }
                    interpolations[interpolations.count - 1].depth -= 1
                }
            }
            output.append(character)
            index += 1
        }
        return String(output)
    }
}
