import Foundation
import NativeAuthTestSupport
import Testing

/// Keeps the layering of Docs/Architecture.md true: every folder of the SDK has a place in the
/// table, the table has no cycle, no file names a type of a layer above its own, the diagrams
/// are the table and name types where they are, folders stay small, and no comment cites a page
/// the repository does not hold.
@Suite(.hangLimit, .cpuHeavy)
struct ArchitectureTests {
    static let repository = StateMachineDocTests.repository
    static let sources = repository.appendingPathComponent("Sources/NativeAuth")
    static let document = repository.appendingPathComponent("Docs/Architecture.md")

    /// Which folders each folder may name the types of, directly; a folder may also name what
    /// those name, further down. Docs/Architecture.md draws exactly these arrows.
    static let layers: [String: Set<String>] = [
        "Client": ["SignUp", "ResetPassword", "Device"],
        "SignUp": ["SignIn"],
        "ResetPassword": ["SignIn"],
        "SignIn": ["Flow"],
        "Flow": ["WebClient", "WireV2"],
        "Device": ["WebClient"],
        "WebClient": ["Account", "IDToken", "UserAgents"],
        "IDToken": ["OIDC"],
        "OIDC": ["Wire", "DPoP", "ClientAuthentication"],
        "ClientAuthentication": ["Wire"],
        "Account": ["IDToken", "Delegates", "Storage", "DPoP"],
        "DPoP": ["Transport", "JSON"],
        "Delegates": ["Errors"],
        "Errors": ["Wire"],
        "WireV2": ["Wire"],
        "Wire": ["Configuration", "JSON"],
        "Configuration": ["Transport", "Presence"],
        "Presence": ["Support"],
        "Transport": ["HTTPGrammar", "Support"],
        "Storage": ["Support"],
        "UserAgents": ["Support"],
        "JSON": ["Support"],
        "HTTPGrammar": [],
        "Support": [],
    ]

    /// The folders `folder` may name, at any depth below it.
    static func below(_ folder: String) -> Set<String> {
        var reached: Set<String> = []
        var pending = Array(layers[folder] ?? [])
        while let next = pending.popLast() {
            guard reached.insert(next).inserted else { continue }
            pending += layers[next] ?? []
        }
        return reached
    }

    @Test func everyFolderOfTheSDKHasItsPlaceInTheTable() throws {
        let folders = try SourceTree.folders(of: Self.sources)
        #expect(folders == Set(Self.layers.keys), "folders on disk: \(folders.sorted())")
        for (folder, names) in Self.layers {
            #expect(names.isSubset(of: Set(Self.layers.keys)), "\(folder) names an unknown folder")
        }
    }

    /// The scanner reads the files of each folder: a file outside one, or in a folder inside one,
    /// would escape the layer check.
    @Test func everySourceFileIsDirectlyInALayerFolder() throws {
        for file in try SourceTree.swiftFiles(below: Self.sources) {
            let parts = file.path.dropFirst(Self.sources.path.count + 1).split(separator: "/")
            #expect(parts.count == 2, "\(parts.joined(separator: "/")) is not directly in a layer folder")
        }
    }

    @Test func theTableHasNoCycle() {
        for folder in Self.layers.keys {
            #expect(!Self.below(folder).contains(folder), "\(folder) can reach itself")
        }
    }

    @Test func noFileNamesATypeOfALayerAboveItsOwn() throws {
        let tree = try SourceTree(Self.sources)
        var upward: [String] = []
        for file in tree.files {
            let allowed = Self.below(file.folder)
            for name in file.typeNames.sorted() {
                guard let home = tree.declaringFolder[name], home != file.folder, !allowed.contains(home) else {
                    continue
                }
                upward.append("\(file.folder)/\(file.name) names \(name), declared in \(home)/")
            }
        }
        #expect(upward.isEmpty, "arrows that run upward:\n\(upward.joined(separator: "\n"))")
        // The scanner sees the types: the engine's core is found where it lives.
        #expect(tree.declaringFolder["FlowContext"] == "Flow")
        #expect(tree.declaringFolder["RequestPipeline"] == "Transport")
    }

    @Test func theLayerDiagramIsTheTable() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let blocks = Mermaid.blocks(in: text, after: "<!-- layers: checked by ArchitectureTests -->")
        #expect(blocks.count == 1)
        let drawn = Set(blocks.flatMap(Mermaid.edges).map { "\($0.from) --> \($0.to)" })
        let table = Set(Self.layers.flatMap { folder, names in names.map { "\(folder) --> \($0)" } })
        #expect(
            drawn == table,
            "drawn only: \(drawn.subtracting(table).sorted()); table only: \(table.subtracting(drawn).sorted())")
    }

    @Test func theDataFlowDiagramsNameTypesWhereTheyAre() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let tree = try SourceTree(Self.sources)
        let blocks = Mermaid.blocks(in: text, after: "<!-- dataflow: checked by ArchitectureTests -->")
        #expect(blocks.count == 3, "a native step, a V2 sign-in and a web sign-in")
        let nodes = blocks.flatMap(Mermaid.typeNodes)
        #expect(nodes.count >= 20)
        for node in nodes {
            #expect(tree.declaringFolder[node.type] == node.folder, "\(node.type) is not declared in \(node.folder)/")
        }
    }

    /// The journeys' folders, and the file roles each has (Docs/Architecture.md, "Journey folders").
    static let journeys = ["SignIn", "SignUp", "ResetPassword"]
    static let journeyRoles = ["Parameters", "Results", "Flow", "FlowV2", "Steps", "Errors", "Delegates"]

    @Test func everyJourneyFolderHasTheSameFileRolesAndEachPublicTypeIsInItsRole() throws {
        for journey in Self.journeys {
            let folder = Self.sources.appendingPathComponent(journey)
            let files = try SourceTree.swiftFiles(directlyIn: folder)
            let names = Set(files.map { $0.deletingPathExtension().lastPathComponent })
            for role in Self.journeyRoles {
                #expect(names.contains(journey + role), "\(journey)/ has no \(journey)\(role).swift")
            }
            for file in files {
                let name = file.deletingPathExtension().lastPathComponent
                let code = try String(contentsOf: file, encoding: .utf8)
                for line in code.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard words.first == "public",
                        let index = words.firstIndex(where: { ["enum", "struct", "class", "protocol"].contains($0) }),
                        index + 1 < words.count
                    else { continue }
                    let type = String(words[index + 1].prefix { $0.isLetter || $0.isNumber })
                    let role: String? =
                        type.hasSuffix("Result")
                        ? "Results"
                        : type.hasSuffix("Error")
                            ? "Errors"
                            : type.hasSuffix("Delegate") ? "Delegates" : type.hasSuffix("State") ? "State" : nil
                    guard let role else { continue }
                    let placed =
                        role == "State" ? name.hasSuffix("State") || name.hasSuffix("States") : name.hasSuffix(role)
                    #expect(placed, "\(type) is in \(journey)/\(name).swift, not in a \(role) file")
                }
            }
        }
    }

    @Test func foldersOfTheLibrariesStaySmall() throws {
        var roots = ["AuthCrypto", "AuthSupport", "LoopbackHTTP", "NativeAuth", "NativeAuthEmulator"].map {
            Self.repository.appendingPathComponent("Sources/\($0)")
        }
        roots += try roots.flatMap { root in
            try SourceTree.folders(of: root).map { root.appendingPathComponent($0) }
        }
        for folder in roots {
            let files = try SourceTree.swiftFiles(directlyIn: folder)
            let lines = try files.reduce(0) {
                $0
                    + (try String(contentsOf: $1, encoding: .utf8)).split(
                        separator: "\n", omittingEmptySubsequences: false
                    ).count
            }
            #expect(files.count <= 25, "\(folder.lastPathComponent)/ holds \(files.count) files")
            #expect(lines <= 3_000, "\(folder.lastPathComponent)/ holds \(lines) lines")
        }
    }

    @Test func theSDKOpensNoSocket() throws {
        let tree = try SourceTree(Self.sources)
        let calls = ["socket(", "bind(", "accept(", "listen(", "epoll_create", "epoll_wait", "epoll_ctl"]
        for file in tree.files {
            for call in calls where file.code.contains(call) {
                Issue.record("\(file.folder)/\(file.name) calls \(call)")
            }
        }
    }

    /// A comment may cite a Markdown page only when the repository holds it.
    @Test func commentsCiteOnlyPagesInTheRepository() throws {
        let pages = Set(
            try FileManager.default.contentsOfDirectory(atPath: Self.repository.appendingPathComponent("Docs").path)
                + ["README.md"])
        let sourceRoots = ["Sources", "Tests"].map { Self.repository.appendingPathComponent($0) }
        for root in sourceRoots {
            for file in try SourceTree.swiftFiles(below: root) {
                let text = try String(contentsOf: file, encoding: .utf8)
                for page in Self.citedPages(in: text) where !pages.contains(page) {
                    Issue.record("\(file.lastPathComponent) cites \(page), which is not in Docs/")
                }
            }
        }
    }

    /// The Markdown pages named in the comments of `text`.
    static func citedPages(in text: String) -> [String] {
        text.split(separator: "\n").flatMap { line -> [String] in
            guard let comment = line.range(of: "//") else { return [] }
            return line[comment.upperBound...].split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == ".") })
                .filter { $0.hasSuffix(".md") && $0.first?.isUppercase == true }.map(String.init)
        }
    }
}

/// The Swift files of a source folder, the top-level types each declares, and the type names each
/// uses, read from text with comments and string literals blanked.
struct SourceTree {
    struct File {
        let folder: String
        let name: String
        let code: String
        /// Capitalised identifiers the file uses.
        let typeNames: Set<String>
    }

    let files: [File]
    /// The folder each top-level type is declared in.
    let declaringFolder: [String: String]

    init(_ root: URL) throws {
        var files: [File] = []
        var declared: [String: String] = [:]
        for folder in try Self.folders(of: root).sorted() {
            for url in try Self.swiftFiles(directlyIn: root.appendingPathComponent(folder)) {
                let code = SwiftSurfaceScanner.blankingCommentsAndStrings(try String(contentsOf: url, encoding: .utf8))
                for name in Self.topLevelTypes(in: code) { declared[name] = declared[name] ?? folder }
                files.append(
                    File(folder: folder, name: url.lastPathComponent, code: code, typeNames: Self.typeNames(in: code)))
            }
        }
        self.files = files
        declaringFolder = declared
    }

    /// The folders directly in `root` that hold Swift files (not the DocC catalog).
    static func folders(of root: URL) throws -> Set<String> {
        let names = try FileManager.default.contentsOfDirectory(atPath: root.path)
        return Set(
            try names.filter { name in
                var isDirectory: ObjCBool = false
                let url = root.appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
                    isDirectory.boolValue
                else { return false }
                return try !swiftFiles(directlyIn: url).isEmpty
            })
    }

    static func swiftFiles(directlyIn folder: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }.sorted()
            .map { folder.appendingPathComponent($0) }
    }

    static func swiftFiles(below root: URL) throws -> [URL] {
        guard let paths = FileManager.default.subpaths(atPath: root.path) else { return [] }
        return paths.filter { $0.hasSuffix(".swift") }.sorted().map { root.appendingPathComponent($0) }
    }

    /// The types declared at the top level of `code` (outside every brace).
    static func topLevelTypes(in code: String) -> [String] {
        let keywords: Set<String> = ["struct", "class", "enum", "protocol", "actor", "typealias"]
        var names: [String] = []
        var depth = 0
        var previous: String?
        for token in tokens(in: code) {
            switch token {
            case "{": depth += 1
            case "}": depth -= 1
            default:
                if depth == 0, let previous, keywords.contains(previous), token.first?.isUppercase == true {
                    names.append(token)
                }
            }
            previous = token
        }
        return names
    }

    static func typeNames(in code: String) -> Set<String> {
        Set(tokens(in: code).filter { $0.first?.isUppercase == true })
    }

    /// Identifiers and braces, in order.
    static func tokens(in code: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in code {
            if character.isLetter || character.isNumber || character == "_" {
                current.append(character)
                continue
            }
            if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
            if character == "{" || character == "}" { tokens.append(String(character)) }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}

/// The parts of a Mermaid diagram the architecture checks read.
enum Mermaid {
    /// The `mermaid` code blocks that follow `marker` (each marker introduces the next block).
    static func blocks(in text: String, after marker: String) -> [[String]] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [[String]] = []
        var index = 0
        while index < lines.count {
            defer { index += 1 }
            guard lines[index].trimmingCharacters(in: .whitespaces) == marker,
                index + 1 < lines.count, lines[index + 1] == "```mermaid"
            else { continue }
            var block: [String] = []
            var cursor = index + 2
            while cursor < lines.count, lines[cursor] != "```" {
                block.append(lines[cursor])
                cursor += 1
            }
            blocks.append(block)
        }
        return blocks
    }

    /// `from --> to` edges between plain node names.
    static func edges(_ block: [String]) -> [(from: String, to: String)] {
        block.compactMap { line in
            let parts = line.components(separatedBy: "-->").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            return (parts[0], parts[1])
        }
    }

    /// The nodes labelled `["Type<br/>Folder/"]`.
    static func typeNodes(_ block: [String]) -> [(type: String, folder: String)] {
        block.flatMap { line -> [(type: String, folder: String)] in
            line.components(separatedBy: "[\"").dropFirst().compactMap { rest in
                guard let end = rest.range(of: "\"]") else { return nil }
                let parts = rest[..<end.lowerBound].components(separatedBy: "<br/>")
                guard parts.count == 2, parts[1].hasSuffix("/") else { return nil }
                return (parts[0], String(parts[1].dropLast()))
            }
        }
    }
}
