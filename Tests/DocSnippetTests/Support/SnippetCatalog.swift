import Foundation

/// A region of compiled sample code, marked in a test source file by `// snippet: NAME` and
/// `// snippet: end`.
struct SnippetRegion {
    let name: String
    /// The region's lines, with the indentation they all share removed.
    let lines: [String]
    /// Where the region starts, for messages: `Tests/DocSnippetTests/X.swift:12`.
    let location: String
}

/// A fenced code block of a Markdown file.
struct DocBlock {
    /// The file, relative to the repository root.
    let file: String
    /// The 1-based line of the opening fence.
    let fenceLine: Int
    /// The info string after the opening fence (`swift`, `sh`, ...).
    let language: String
    /// The block's lines, between the fences.
    let lines: [String]
    /// The index (0-based) of the first and last content line in the file's lines.
    let contentRange: Range<Int>
    /// The marker comment before the block, when there is one.
    let marker: SnippetMarker?

    var location: String { "\(file):\(fenceLine)" }
}

/// What a `<!-- snippet: … -->` line before a block says.
enum SnippetMarker: Equatable {
    /// The block is the region of this name.
    case region(String)
    /// The block cannot be compiled as a test, for the reason given.
    case excluded(reason: String)
}

/// Reads regions from test sources and blocks from Markdown, compares and rewrites them.
enum SnippetCatalog {
    static let regionStart = "// snippet: "
    static let regionEnd = "// snippet: end"
    static let updateVariable = "NATIVEAUTH_UPDATE_SNIPPETS"
    static let updateCommand = "NATIVEAUTH_UPDATE_SNIPPETS=1 swift test --filter DocSnippet"

    /// The repository root, found from this file's path.
    static func repositoryRoot() -> URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // DocSnippetTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
    }

    /// The folder of the DocC catalog's articles.
    static let articleFolder = "Sources/NativeAuth/NativeAuth.docc"

    /// The Markdown files whose Swift blocks are checked: README.md, Docs/*.md and the DocC
    /// catalog's articles.
    static func documentFiles(root: URL) throws -> [String] {
        func markdown(in folder: String) throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
                .filter { $0.hasSuffix(".md") }
                .sorted()
                .map { "\(folder)/\($0)" }
        }
        return ["README.md"] + (try markdown(in: "Docs")) + (try markdown(in: articleFolder))
    }

    /// Every region in the Swift files under `Tests/DocSnippetTests`, and the problems found
    /// while reading them (an unterminated region, a name used twice).
    static func regions(root: URL) throws -> (regions: [String: SnippetRegion], problems: [String]) {
        let folder = root.appendingPathComponent("Tests/DocSnippetTests")
        guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else {
            return ([:], ["cannot list \(folder.path)"])
        }
        var files: [String] = []
        while let path = enumerator.nextObject() as? String {
            if path.hasSuffix(".swift") { files.append(path) }
        }
        var regions: [String: SnippetRegion] = [:]
        var problems: [String] = []
        for path in files.sorted() {
            let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
            let lines = text.components(separatedBy: "\n")
            var open: (name: String, line: Int, body: [String])?
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                let location = "Tests/DocSnippetTests/\(path):\(index + 1)"
                if trimmed == regionEnd {
                    guard let region = open else {
                        problems.append("\(location): `\(regionEnd)` without a region open")
                        continue
                    }
                    if let earlier = regions[region.name] {
                        problems.append("\(location): region `\(region.name)` is also defined at \(earlier.location)")
                    }
                    regions[region.name] = SnippetRegion(
                        name: region.name, lines: showingImports(dedent(region.body)),
                        location: "Tests/DocSnippetTests/\(path):\(region.line)")
                    open = nil
                } else if trimmed.hasPrefix(regionStart) {
                    if let region = open {
                        problems.append("\(location): region `\(region.name)` (line \(region.line)) is not ended")
                    }
                    open = (String(trimmed.dropFirst(regionStart.count)), index + 1, [])
                } else if open != nil {
                    open?.body.append(line)
                }
            }
            if let region = open {
                problems.append("Tests/DocSnippetTests/\(path):\(region.line): region `\(region.name)` is not ended")
            }
        }
        return (regions, problems)
    }

    /// The lines with their common leading spaces removed, and blank lines emptied.
    static func dedent(_ lines: [String]) -> [String] {
        let indents = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix(while: { $0 == " " }).count }
        let common = indents.min() ?? 0
        return lines.map { line in
            line.trimmingCharacters(in: .whitespaces).isEmpty ? "" : String(line.dropFirst(common))
        }
    }

    /// The lines with their leading import comments shown as code: `// import Module`,
    /// `// #if canImport(Module)` and `// #endif` lose their `// `.
    ///
    /// A sample that begins with imports but is compiled inside a type or a function writes them as
    /// comments: an `import` may only stand at the top level of a file, and the file imports the
    /// same modules itself.
    static func showingImports(_ lines: [String]) -> [String] {
        var lines = lines
        for index in lines.indices {
            let line = lines[index]
            let code = line.dropFirst("// ".count)
            let isImport = code.hasPrefix("import ") && !code.dropFirst("import ".count).contains(" ")
            let isCondition = code.hasPrefix("#if canImport(") || code == "#endif"
            guard line.hasPrefix("// "), isImport || isCondition else { break }
            lines[index] = String(code)
        }
        return lines
    }

    /// The fenced blocks of a Markdown text, with the marker line before each.
    static func blocks(in text: String, file: String) -> [DocBlock] {
        let lines = text.components(separatedBy: "\n")
        var blocks: [DocBlock] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            guard line.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            var end = index + 1
            while end < lines.count, !lines[end].hasPrefix("```") { end += 1 }
            var before = index - 1
            while before >= 0, lines[before].trimmingCharacters(in: .whitespaces).isEmpty { before -= 1 }
            let marker = before >= 0 ? parseMarker(lines[before]) : nil
            blocks.append(
                DocBlock(
                    file: file, fenceLine: index + 1, language: language,
                    lines: Array(lines[(index + 1)..<min(end, lines.count)]),
                    contentRange: (index + 1)..<min(end, lines.count), marker: marker))
            index = end + 1
        }
        return blocks
    }

    /// Reads `<!-- snippet: NAME -->`, `<!-- snippet: NAME (NOTE) -->` (a region with a note for the
    /// reader, such as where it is compiled) or `<!-- snippet: none (REASON) -->`.
    static func parseMarker(_ line: String) -> SnippetMarker? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("<!-- snippet:"), trimmed.hasSuffix("-->") else { return nil }
        let body = trimmed.dropFirst("<!-- snippet:".count).dropLast("-->".count)
            .trimmingCharacters(in: .whitespaces)
        if body.hasPrefix("none") {
            let reason = body.dropFirst("none".count).trimmingCharacters(in: .whitespaces)
            guard reason.hasPrefix("("), reason.hasSuffix(")") else { return .excluded(reason: "") }
            return .excluded(reason: String(reason.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces))
        }
        return .region(String(body.prefix { $0 != " " }))
    }

    /// The product names a Package.swift text declares (`.library(name: "X"`, `.executable(name: "X"`).
    static func declaredProducts(inManifest text: String) -> Set<String> {
        Set(captures(of: #"\.(?:library|executable)\(\s*name:\s*"([^"]+)""#, in: text))
    }

    /// The products a manifest sample uses from this package (`.product(name: "X", package: "swift-native-auth")`).
    static func usedProducts(inManifest text: String) -> [String] {
        captures(of: #"\.product\(\s*name:\s*"([^"]+)",\s*package:\s*"swift-native-auth""#, in: text)
    }

    /// The Swift sources of the package (`Sources/**/*.swift`), with every run of white space made
    /// one space, so that a declaration listed in a doc is found whatever its line breaks.
    static func normalizedSources(root: URL) throws -> String {
        let folder = root.appendingPathComponent("Sources")
        var texts: [String] = []
        if let enumerator = FileManager.default.enumerator(atPath: folder.path) {
            while let path = enumerator.nextObject() as? String {
                guard path.hasSuffix(".swift") else { continue }
                texts.append(try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8))
            }
        }
        return collapsingWhiteSpace(texts.joined(separator: "\n"))
    }

    /// The lines of an API listing to look for in the sources: each line with its white space
    /// collapsed, leaving out comments, blank lines, lone braces and a trailing `{`.
    static func declarationLines(_ lines: [String]) -> [String] {
        lines.compactMap { line in
            var text = collapsingWhiteSpace(line)
            if text.hasSuffix("{") { text = String(text.dropLast()).trimmingCharacters(in: .whitespaces) }
            guard !text.isEmpty, !text.hasPrefix("//"), text != "}" else { return nil }
            return text
        }
    }

    static func collapsingWhiteSpace(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    private static func captures(of pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}
