import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The presence checker NativeAuthEmulator ships, through the public API: a client on an
/// emulated tenant asks it before each refresh, and it answers from its script, holds, and lets
/// a cancelled refresh go.
@Suite("EmulatedPresenceChecker: a scripted person for the presence gate", .hangLimit)
struct EmulatedPresenceCheckerTests {
    let harness = EmulatorHarness()

    /// Ada, signed in on a client whose refreshes ask `person` every time.
    func signedIn(asking person: EmulatedPresenceChecker) async throws -> UserAccountResult {
        var configuration = try NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority)
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.userPresence = UserPresenceRequirement(policy: .always, reason: "Unlock", checker: person)
        let client = NativeAuthClient(
            configuration: configuration, transport: harness.tenant, credentialStore: InMemoryCredentialStore())
        let result = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        return account
    }

    @Test func itAnswersFromItsScriptThenConfirms() async throws {
        let person = EmulatedPresenceChecker([.refuse(.cancelled), .refuse(.lockedOut)])
        let account = try await signedIn(asking: person)
        #expect(person.calls == 0, "a sign-in asks nothing")
        let cancelled = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(cancelled.isUserPresenceCancelled)
        let locked = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(locked.isUserPresenceLockedOut)
        _ = try await account.getAccessToken(forceRefresh: true)
        person.then(.refuse(.notEnrolled))
        let notEnrolled = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(notEnrolled.isUserPresenceNotEnrolled)
        #expect(person.calls == 4)
        #expect(person.reasons == Array(repeating: "Unlock", count: 4))
    }

    @Test func aHeldConfirmationWaitsForItsRelease() async throws {
        let person = EmulatedPresenceChecker()
        let account = try await signedIn(asking: person)
        person.hold()
        let refresh = Task { try await account.getAccessToken(forceRefresh: true) }
        await person.waitUntilHeld()
        #expect(person.heldCount == 1)
        person.release()
        #expect(try await refresh.value.accessToken.isEmpty == false)
        #expect(person.heldCount == 0)
    }

    @Test func aHeldConfirmationEndsWithItsCancelledRefresh() async throws {
        let person = EmulatedPresenceChecker()
        let account = try await signedIn(asking: person)
        person.hold()
        let refresh = Task { try await account.getAccessToken(forceRefresh: true) }
        await person.waitUntilHeld()
        refresh.cancel()
        let error = try await #require(throws: RetrieveAccessTokenError.self) { try await refresh.value }
        #expect(error.isUserPresenceCancelled || error.isCancelled, "\(error)")
        #expect(person.heldCount == 0)
    }

    @Test func aWaitForHeldConfirmationsEndsWhenItsTaskIsCancelled() async {
        let person = EmulatedPresenceChecker()
        let wait = Task { await person.waitUntilHeld(3) }
        wait.cancel()
        await wait.value
        #expect(person.heldCount == 0)
    }
}
