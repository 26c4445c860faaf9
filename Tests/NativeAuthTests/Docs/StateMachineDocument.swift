import Foundation

/// Writes Docs/StateMachine.md from the public surface of the sources: each flow's states, the
/// calls on them, the outcome each call can have and the error type it throws.
///
/// The graph is read from the code, never written by hand: a state is a public class whose name ends
/// in `State`; an edge is a public async method of a state (or of `NativeAuthClient`, for the flow's
/// start) returning a state or a result enum, whose cases name the next state. Delegate forms are
/// left out: they lead to the same places.
struct StateMachineDocument {
    /// One transition: `from` --call--> `to`, through the result enum's `outcome` case when there is one.
    struct Edge: Hashable {
        var from: String
        var call: String
        var outcome: String?
        var to: String?
        var throwsType: String?
        /// The call starts another flow (it returns what that flow's start returns, as the
        /// sign-in's password screen starts a password reset): its section draws what follows.
        var handsOff = false
    }

    /// The flows, each from its start method on the client.
    static let flows: [(title: String, start: String)] = [
        ("Sign-in", "signIn"),
        ("Sign-up", "signUp"),
        ("Password reset", "resetPassword"),
        ("Sign-up or sign-in", "signUpOrSignIn"),
    ]

    /// Flows made of the others (sign-up-or-sign-in leads into sign-in's and sign-up's states):
    /// their section stops where another flow's states begin, and they make no state shared.
    static let composite: Set<String> = ["signUpOrSignIn"]

    static let start = "[*]"
    static let signedIn = "UserAccountResult"

    let surface: SwiftSurfaceScanner

    /// The document for the sources under `directory`.
    static func read(sourcesAt directory: URL) throws -> StateMachineDocument {
        var scanner = SwiftSurfaceScanner()
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var paths: [URL] = []
        while let file = files?.nextObject() as? URL {
            if file.pathExtension == "swift" { paths.append(file) }
        }
        for path in paths.sorted(by: { $0.path < $1.path }) {
            scanner.scan(try String(contentsOf: path, encoding: .utf8))
        }
        return StateMachineDocument(surface: scanner)
    }

    private func isState(_ type: String) -> Bool { type.hasSuffix("State") && surface.classes.contains(type) }

    /// The edges leaving `owner` (a state, or the client for the start), through `methods`.
    private func edges(from node: String, of owner: String, named: String? = nil) -> [Edge] {
        var edges: [Edge] = []
        for method in surface.methods[owner] ?? [] where !method.takesDelegate {
            guard named == nil || method.name == named, let returns = method.returns else { continue }
            if isState(returns) || returns == Self.signedIn {
                edges.append(
                    Edge(from: node, call: method.name, outcome: nil, to: returns, throwsType: method.throwsType))
            } else if let cases = surface.enumCases[returns] {
                for enumCase in cases {
                    let next = enumCase.associatedTypes.first { isState($0) || $0 == Self.signedIn }
                    edges.append(
                        Edge(
                            from: node, call: method.name, outcome: enumCase.name, to: next,
                            throwsType: method.throwsType))
                }
            }
        }
        return edges
    }

    /// Every edge reachable from the flow's start, in breadth-first order, without repeats; states in
    /// `stopAt`, and those a call that starts another flow leads to (``Edge/handsOff``), are reached
    /// but not followed.
    func edges(ofFlowStartingWith start: String, stopAt: Set<String> = []) -> [Edge] {
        let client = surface.methods["NativeAuthClient"] ?? []
        let otherStarts = Set(
            Self.flows.filter { $0.start != start && !Self.composite.contains($0.start) }.compactMap { flow in
                client.first { $0.name == flow.start && !$0.takesDelegate }?.returns
            })
        return walk(from: edges(from: Self.start, of: "NativeAuthClient", named: start), stopAt: stopAt) { owner in
            edges(from: owner, of: owner).map { edge in
                var edge = edge
                edge.handsOff = (surface.methods[owner] ?? []).contains {
                    $0.name == edge.call && !$0.takesDelegate && otherStarts.contains($0.returns ?? "")
                }
                return edge
            }
        }
    }

    private func walk(from first: [Edge], stopAt: Set<String>, next: ((String) -> [Edge])? = nil) -> [Edge] {
        var result: [Edge] = []
        var seen: Set<Edge> = []
        var queue = first
        var visited: Set<String> = []
        while !queue.isEmpty {
            let edge = queue.removeFirst()
            guard seen.insert(edge).inserted else { continue }
            result.append(edge)
            if let to = edge.to, isState(to), !edge.handsOff, !stopAt.contains(to), visited.insert(to).inserted {
                queue += next?(to) ?? edges(from: to, of: to)
            }
        }
        return result
    }

    /// The states more than one flow reaches (the second factor and method registration), not
    /// counting where a flow hands over to another: they get a section of their own instead of
    /// being repeated in each flow.
    var sharedStates: Set<String> {
        let reached = Self.flows.filter { !Self.composite.contains($0.start) }.map { flow in
            Set(edges(ofFlowStartingWith: flow.start).filter { !$0.handsOff }.compactMap(\.to).filter(isState))
        }
        var shared: Set<String> = []
        for (index, states) in reached.enumerated() {
            for other in reached[(index + 1)...] { shared.formUnion(states.intersection(other)) }
        }
        return shared
    }

    /// The edges between the shared states.
    func sharedEdges() -> [Edge] {
        let shared = sharedStates
        return walk(from: shared.sorted().flatMap { edges(from: $0, of: $0) }, stopAt: [])
            .filter { shared.contains($0.from) }
    }

    /// The whole Markdown document.
    func markdown() -> String {
        var lines = [
            "# State machine",
            "",
            "<!-- Generated from the sources by StateMachineDocTests; do not edit by hand. -->",
            "",
            "Every flow as it is in the code: each state is a public class, each arrow a call on it and the",
            "outcome that leads on. A call that throws leaves the flow where the error says (see",
            "[Errors](Errors.md)); delegate forms lead to the same places. `UserAccountResult` is a signed-in",
            "account; `[*]` is the start or an end without a state.",
            "",
            "This file is written by a test: after changing a state, a result or a call, run",
            "`NATIVEAUTH_UPDATE_DOCS=1 swift test --filter StateMachineDocTests` and commit the result.",
        ]
        let shared = sharedStates
        let owned = Self.flows.filter { !Self.composite.contains($0.start) }.reduce(into: shared) { states, flow in
            states.formUnion(edges(ofFlowStartingWith: flow.start).compactMap(\.to).filter(isState))
        }
        var sections = Self.flows.map { flow in
            (
                flow.title,
                edges(ofFlowStartingWith: flow.start, stopAt: Self.composite.contains(flow.start) ? owned : shared)
            )
        }
        if !shared.isEmpty {
            sections.append(("Second factor and method registration (reached from every flow)", sharedEdges()))
        }
        for (title, edges) in sections {
            lines += ["", "## \(title)", "", "```mermaid", "stateDiagram-v2"]
            for edge in edges {
                let label = edge.outcome.map { "\(edge.call) → \($0)" } ?? edge.call
                lines.append("    \(edge.from) --> \(edge.to ?? Self.start): \(label)")
            }
            lines += ["```", "", "| State | Call | Outcome | Next | Throws |", "|---|---|---|---|---|"]
            for edge in edges {
                let from = edge.from == Self.start ? "`NativeAuthClient`" : "`\(edge.from)`"
                let outcome = edge.outcome.map { "`.\($0)`" } ?? ""
                let next = edge.to.map { "`\($0)`" } ?? "end"
                let throwsType = edge.throwsType.map { "`\($0)`" } ?? ""
                lines.append("| \(from) | `\(edge.call)` | \(outcome) | \(next) | \(throwsType) |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
