import Testing

/// One test at a time on the OpenID Connect test server, across suites.
///
/// `.serialized` orders the tests of one suite only; suites still run side by side, and the test
/// server (SQLite) answers `server_error` when logins overlap. Every suite that talks to it takes
/// this trait, so each of their test cases waits for the one before to finish.
struct OIDCServerExclusive: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    /// A scope around each test case; none around a suite or a test function as a whole.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? { testCase == nil ? nil : self }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await OIDCServerGate.shared.enter()
        do {
            try await function()
        } catch {
            await OIDCServerGate.shared.leave()
            throw error
        }
        await OIDCServerGate.shared.leave()
    }
}

extension Trait where Self == OIDCServerExclusive {
    /// Runs each test case alone on the OpenID Connect test server (see ``OIDCServerExclusive``).
    static var oidcServerExclusive: Self { Self() }
}

/// A first-come, first-served gate; the suite's time limit bounds a wait at it.
actor OIDCServerGate {
    static let shared = OIDCServerGate()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
