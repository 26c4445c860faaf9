import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// `AuthSession.changes()`: the session followed outside SwiftUI, as an async sequence of its
/// states, through a restore, a sign-in, a sign-out and a session the server ended.
@Suite("AuthSession: its changes as an async sequence", .hangLimit)
@MainActor
struct AuthSessionChangesTests {
    let harness = EmulatorHarness()

    /// The next state `states` gives that `condition` holds for (earlier ones are skipped: a
    /// reader that falls behind sees the newest).
    func next(
        _ states: inout AsyncStream<AuthSession.Snapshot>.Iterator,
        where condition: (AuthSession.Snapshot) -> Bool
    ) async throws -> AuthSession.Snapshot {
        while let state = await states.next(isolation: #isolation) {
            if condition(state) { return state }
        }
        throw TestFailure("the changes ended")
    }

    @Test func itFollowsARestoreASignInAndASignOut() async throws {
        let client = harness.client
        let session = AuthSession(client: client)
        var states = session.changes().makeAsyncIterator()
        let restored = try await next(&states) { !$0.isRestoring }
        #expect(!restored.isSignedIn)

        let result = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        guard case .completed = result else { throw TestFailure("expected a sign-in, got \(result)") }
        let signedIn = try await next(&states) { $0.isSignedIn }
        #expect(signedIn.account?.account.username == "ada@example.com")
        if case .signedIn? = signedIn.lastEvent {} else { Issue.record("\(String(describing: signedIn.lastEvent))") }

        await session.signOut()
        let signedOut = try await next(&states) { !$0.isSignedIn }
        #expect(signedOut.account == nil)
        #expect(session.snapshot.account == nil)
    }

    @Test func aStateIsGivenAtOnceAndTheSequenceEndsWithItsTask() async throws {
        let session = AuthSession(client: harness.client)
        let reader = Task { @MainActor in
            var count = 0
            for await _ in session.changes() { count += 1 }
            return count
        }
        await observe(session) { !$0.isRestoring }
        reader.cancel()
        #expect(await reader.value >= 1, "the state now, at least")
    }

    @Test func theSequenceEndsWhenTheSessionGoesAway() async throws {
        var session: AuthSession? = AuthSession(client: harness.client)
        let stream = try #require(session).changes()
        await observe(try #require(session)) { !$0.isRestoring }
        session = nil
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count >= 1)
    }
}
