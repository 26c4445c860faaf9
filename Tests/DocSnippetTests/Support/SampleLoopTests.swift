import Foundation
import NativeAuthTestSupport
import Testing

/// A loop in a sample that can only end by a `return` or a `throw` from inside it.
///
/// A sample's retry loop around a wrong code or password must have an end of its own: the SDK
/// refuses an empty or wrong answer at once, so a loop with none, fed the same answer (a script,
/// a test at the end of its input), spins at full speed for ever. Samples count their attempts
/// (`for _ in 1...maxAttempts`) and say when they give up.
enum UnboundedLoop {
    /// What makes a loop unbounded, and why, as patterns over one line of Swift.
    static let patterns: [(pattern: String, why: String)] = [
        (#"\bwhile\s*\(?\s*true\b"#, "`while true` ends only by a return or a throw inside it"),
        (#"\brepeat\s*\{"#, "a `repeat` loop shows no bound; count the attempts with `for`"),
        (#"\bfor\b[^{]*\bin\b[^{]*\.\.\.\s*\)?\s*\{"#, "a `for` over a range with no upper end"),
    ]

    /// The lines of `lines` (1-based) that hold an unbounded loop, with the reason; comment lines
    /// are skipped.
    static func find(in lines: [String]) -> [(line: Int, why: String)] {
        var found: [(line: Int, why: String)] = []
        for (index, line) in lines.enumerated() {
            let code = line.trimmingCharacters(in: .whitespaces)
            if code.hasPrefix("//") { continue }
            for (pattern, why) in patterns where code.range(of: pattern, options: .regularExpression) != nil {
                found.append((index + 1, why))
            }
        }
        return found
    }

    /// The Swift files of the samples: the regions' files under `Tests/DocSnippetTests` (not its
    /// `Support` folder) and the terminal demo's sources, relative to the repository root.
    static func sampleSources(root: URL) throws -> [String] {
        var files: [String] = []
        for folder in ["Tests/DocSnippetTests", "Sources/NativeAuthDemo"] {
            let url = root.appendingPathComponent(folder)
            guard let enumerator = FileManager.default.enumerator(atPath: url.path) else {
                throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: url.path])
            }
            while let path = enumerator.nextObject() as? String {
                guard path.hasSuffix(".swift"), !path.hasPrefix("Support/") else { continue }
                files.append("\(folder)/\(path)")
            }
        }
        return files.sorted()
    }
}

@Suite(.hangLimit)
struct SampleLoopTests {
    @Test func noSampleLoopsWithoutAnEnd() throws {
        let root = SnippetCatalog.repositoryRoot()
        var checked = 0
        for file in try SnippetCatalog.documentFiles(root: root) {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for block in SnippetCatalog.blocks(in: text, file: file) where block.language == "swift" {
                checked += 1
                for (line, why) in UnboundedLoop.find(in: block.lines) {
                    Issue.record("\(file):\(block.contentRange.lowerBound + line): \(why)")
                }
            }
        }
        for file in try UnboundedLoop.sampleSources(root: root) {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            checked += 1
            for (line, why) in UnboundedLoop.find(in: text.components(separatedBy: "\n")) {
                Issue.record("\(file):\(line): \(why)")
            }
        }
        #expect(checked > 100, "only \(checked) blocks and files were read")
    }

    @Test func theCheckFindsEachKindOfUnboundedLoop() {
        let unbounded = [
            "    while true {", "while(true) {", "} while true", "repeat {", "for attempt in 1... {",
            "for attempt in (1...) {",
        ]
        for line in unbounded {
            #expect(UnboundedLoop.find(in: [line]).count == 1, "not found: \(line)")
        }
        let bounded = [
            "for _ in 1...maxAttempts {", "for attempt in 0..<3 {", "while index < lines.count {",
            "// while true {", "let isTrue = true", "while let item = try await next() {",
        ]
        for line in bounded {
            #expect(UnboundedLoop.find(in: [line]).isEmpty, "found: \(line)")
        }
    }
}
