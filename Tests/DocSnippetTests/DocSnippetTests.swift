import Foundation
import NativeAuthTestSupport
import Testing

/// The Swift samples of README.md and Docs/*.md are the regions of compiled, running tests in this
/// target; this suite checks that each block still shows its region, word for word.
@Suite(.hangLimit)
struct DocSnippetTests {
    /// Documents whose Swift blocks are not converted yet, and so not checked: none at present.
    static let notYetChecked: Set<String> = []

    /// Why a block may be left out, and what is checked of it instead.
    static let manifestReason = "Package.swift manifest"
    static let declarationsReason = "API declarations"

    @Test func docsMatchTheirCompiledSource() throws {
        let root = SnippetCatalog.repositoryRoot()
        let update = ProcessInfo.processInfo.environment[SnippetCatalog.updateVariable] == "1"
        let (regions, regionProblems) = try SnippetCatalog.regions(root: root)
        for problem in regionProblems { Issue.record("\(problem)") }
        let products = SnippetCatalog.declaredProducts(
            inManifest: try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8))

        let sources = try SnippetCatalog.normalizedSources(root: root)

        var shown: Set<String> = []
        for file in try SnippetCatalog.documentFiles(root: root) {
            let url = root.appendingPathComponent(file)
            let text = try String(contentsOf: url, encoding: .utf8)
            let blocks = SnippetCatalog.blocks(in: text, file: file).filter { $0.language == "swift" }
            for case .region(let name) in blocks.compactMap(\.marker) { shown.insert(name) }
            guard !Self.notYetChecked.contains(file) else { continue }

            var lines = text.components(separatedBy: "\n")
            var rewritten = false
            for block in blocks.reversed() {
                switch block.marker {
                case nil:
                    Issue.record(
                        """
                        \(block.location): a ```swift block without a marker line before it. Put the \
                        sample in a test under Tests/DocSnippetTests between `// snippet: NAME` and \
                        `// snippet: end`, and write `<!-- snippet: NAME -->` before the block (or \
                        `<!-- snippet: none (reason) -->` for a block that cannot be a test).
                        """)
                case .excluded(let reason) where reason.isEmpty:
                    Issue.record("\(block.location): `<!-- snippet: none (…) -->` needs a reason in parentheses")
                case .excluded(let reason):
                    if reason.hasPrefix(Self.manifestReason) {
                        let used = SnippetCatalog.usedProducts(inManifest: block.lines.joined(separator: "\n"))
                        #expect(!used.isEmpty, "\(block.location): the manifest sample uses no product of the package")
                        for product in used where !products.contains(product) {
                            Issue.record("\(block.location): Package.swift declares no product `\(product)`")
                        }
                    } else if reason.hasPrefix(Self.declarationsReason) {
                        for line in SnippetCatalog.declarationLines(block.lines) where !sources.contains(line) {
                            Issue.record("\(block.location): no declaration in Sources reads `\(line)`")
                        }
                    }
                case .region(let name):
                    guard let region = regions[name] else {
                        Issue.record(
                            "\(block.location): `<!-- snippet: \(name) -->` names no region in Tests/DocSnippetTests")
                        continue
                    }
                    guard block.lines != region.lines else { continue }
                    if update {
                        lines.replaceSubrange(block.contentRange, with: region.lines)
                        rewritten = true
                    } else {
                        Issue.record(
                            """
                            \(block.location): the block differs from its compiled source, region `\(name)` \
                            at \(region.location). \(difference(block.lines, region.lines)) Edit the region, \
                            then regenerate the docs: \(SnippetCatalog.updateCommand)
                            """)
                    }
                }
            }
            if rewritten {
                try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
            }
        }
        for name in Set(regions.keys).subtracting(shown).sorted() {
            Issue.record("\(regions[name]?.location ?? name): region `\(name)` is shown in no document")
        }
    }

    /// The first line where two texts differ, for a message.
    private func difference(_ doc: [String], _ source: [String]) -> String {
        for index in 0..<max(doc.count, source.count) {
            let left = index < doc.count ? doc[index] : "(nothing)"
            let right = index < source.count ? source[index] : "(nothing)"
            if left != right {
                return "Line \(index + 1) of the block is `\(left)`, the region has `\(right)`."
            }
        }
        return ""
    }

    @Test func markersAreRead() {
        #expect(SnippetCatalog.parseMarker("<!-- snippet: readme-sign-in -->") == .region("readme-sign-in"))
        #expect(SnippetCatalog.parseMarker("<!-- snippet: none (iOS only) -->") == .excluded(reason: "iOS only"))
        #expect(SnippetCatalog.parseMarker("<!-- snippet: none -->") == .excluded(reason: ""))
        #expect(SnippetCatalog.parseMarker("<!-- a comment -->") == nil)
        #expect(SnippetCatalog.dedent(["    a", "", "      b"]) == ["a", "", "  b"])
        #expect(
            SnippetCatalog.showingImports(["// import NativeAuth", "", "// import x y"]) == [
                "import NativeAuth", "", "// import x y",
            ])
        #expect(
            SnippetCatalog.declarationLines(["public func a(", "    b: Int) {", "  // c", "}"]) == [
                "public func a(", "b: Int)",
            ])
    }
}
