import Foundation
import NativeAuthTestSupport
import Testing

@Suite(.hangLimit, .cpuHeavy)
struct StateMachineDocTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let sources = repository.appendingPathComponent("Sources/NativeAuth")
    static let document = repository.appendingPathComponent("Docs/StateMachine.md")

    @Test func theCheckedInDocumentIsGeneratedFromTheCurrentSources() throws {
        let generated = try StateMachineDocument.read(sourcesAt: Self.sources).markdown()
        if ProcessInfo.processInfo.environment["NATIVEAUTH_UPDATE_DOCS"] == "1" {
            try generated.write(to: Self.document, atomically: true, encoding: .utf8)
        }
        let checkedIn = try? String(contentsOf: Self.document, encoding: .utf8)
        #expect(
            checkedIn == generated,
            """
            Docs/StateMachine.md is stale: a state, a result or a call changed. Regenerate it with \
            `NATIVEAUTH_UPDATE_DOCS=1 swift test --filter StateMachineDocTests` and commit it.
            """)
    }

    @Test func everyNativeFlowStateIsInTheDocumentAndTheCatalogue() throws {
        let document = try StateMachineDocument.read(sourcesAt: Self.sources)
        // The web client's states (device sign-in) are not native flow states.
        let webStates = try ["OIDC", "WebClient", "Device", "UserAgents", "IDToken"].reduce(into: Set<String>()) {
            states, folder in
            states.formUnion(
                try StateMachineDocument.read(sourcesAt: Self.sources.appendingPathComponent(folder)).surface.classes)
        }
        let reached = Set(
            StateMachineDocument.flows.flatMap { document.edges(ofFlowStartingWith: $0.start) }.compactMap(\.to))
        let states = document.surface.classes.filter { $0.hasSuffix("State") }.subtracting(webStates)
        #expect(states.subtracting(reached).isEmpty, "states no flow reaches: \(states.subtracting(reached).sorted())")
        #expect(reached.contains(StateMachineDocument.signedIn))
        // The catalogue the rules, fuzz, property and delegate tests read has every state, and no other.
        #expect(Set(FlowStateKind.allCases.map(\.typeName)) == states)
        #expect(document.sharedStates == Set(FlowStateKind.allCases.filter(\.isShared).map(\.typeName)))
        #expect(StateMachineDocument.flows.map(\.start) == FlowStateKind.Flow.allCases.map(\.rawValue))
    }

    @Test(arguments: FlowStateKind.allCases)
    func theCatalogueHasEveryCallOfTheState(kind: FlowStateKind) throws {
        let document = try StateMachineDocument.read(sourcesAt: Self.sources)
        let flow = StateMachineDocument.flows.first { $0.start == kind.flow.rawValue }
        let edges = document.edges(ofFlowStartingWith: try #require(flow).start)
        let calls = Set(edges.filter { $0.from == kind.typeName }.map(\.call))
        #expect(calls == Set(kind.calls.map(\.rawValue)), "\(kind.typeName)")
        #expect(edges.contains { $0.to == kind.typeName }, "\(kind.typeName) is reached from \(kind.flow)")
    }

    @Test func theSignInFlowHasItsKnownSteps() throws {
        let edges = try StateMachineDocument.read(sourcesAt: Self.sources).edges(ofFlowStartingWith: "signIn")
        func has(_ from: String, _ call: String, _ outcome: String?, _ to: String?) -> Bool {
            edges.contains { $0.from == from && $0.call == call && $0.outcome == outcome && $0.to == to }
        }
        #expect(has("[*]", "signIn", "codeRequired", "SignInCodeRequiredState"))
        #expect(has("SignInCodeRequiredState", "submitCode", "completed", "UserAccountResult"))
        #expect(has("SignInCodeRequiredState", "resendCode", nil, "SignInCodeRequiredState"))
        #expect(has("AwaitingMFAState", "requestChallenge", nil, "MFARequiredState"))
        #expect(edges.first { $0.call == "submitPassword" }?.throwsType == "PasswordRequiredError")
    }

    @Test func deprecatedNamesAreNotCallsOfTheFlow() throws {
        var surface = SwiftSurfaceScanner()
        surface.scan(
            """
            public final class SomeCodeState: Sendable {
                /// The call.
                public func submitChallenge(_ code: String) async throws(SomeError) -> SignInResult {
                    fatalError()
                }
                /// Its earlier name.
                @available(*, deprecated, renamed: "submitChallenge(_:)")
                public func submitCode(_ code: String) async throws(SomeError) -> SignInResult {
                    fatalError()
                }
                @MainActor public func submitChallenge(challenge: String, delegate: any SomeDelegate) {}
            }
            """)
        #expect(surface.methods["SomeCodeState"]?.map(\.name) == ["submitChallenge", "submitChallenge"])

        let edges = try StateMachineDocument.read(sourcesAt: Self.sources).edges(ofFlowStartingWith: "signIn")
        #expect(!edges.contains { $0.from == "MFARequiredState" && $0.call == "submitCode" })
        #expect(edges.contains { $0.from == "MFARequiredState" && $0.call == "submitChallenge" })
    }

    @Test func aNewStateWithoutRegeneratingMakesTheDocumentStale() throws {
        let current = try StateMachineDocument.read(sourcesAt: Self.sources)
        var surface = current.surface
        surface.scan(
            """
            /// A new step.
            public final class SignInExtraStepState: Sendable {}
            extension SignInPasswordRequiredState {
                public func submitExtra(_ value: String) async throws(PasswordRequiredError) -> SignInExtraStepState {
                    fatalError("\\(value) {")
                }
            }
            """)
        let changed = StateMachineDocument(surface: surface).markdown()
        #expect(changed != current.markdown())
        #expect(changed.contains("SignInPasswordRequiredState --> SignInExtraStepState: submitExtra"))
    }

    @Test func theScannerIgnoresBracesInCommentsAndStrings() {
        var scanner = SwiftSurfaceScanner()
        scanner.scan(
            #"""
            // } a stray brace in a comment
            public enum OddResult: Sendable {
                /* { */ case next(OddState, sentTo: String)
                case done
                var text: String { "}\("{" + "\(1)")" + """
                    } "quoted" {
                    """ }
            }
            public final class OddState {
                public func go(_ items: [String] = ["}"]) async throws(OddError) -> OddResult { fatalError() }
                public func go(delegate: any OddDelegate) {}
                func hidden() -> OddState { self }
            }
            """#)
        #expect(
            scanner.enumCases["OddResult"]
                == [
                    .init(name: "next", associatedTypes: ["OddState", "String"]),
                    .init(name: "done", associatedTypes: []),
                ])
        #expect(
            scanner.methods["OddState"]
                == [
                    .init(name: "go", returns: "OddResult", throwsType: "OddError", takesDelegate: false),
                    .init(name: "go", returns: nil, throwsType: nil, takesDelegate: true),
                ])
        #expect(scanner.classes == ["OddState"])
    }
}
