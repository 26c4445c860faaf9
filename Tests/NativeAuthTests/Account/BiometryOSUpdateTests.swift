import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// An OS update must not lock everyone out: a biometry state that changes together with the
/// system version the checker reports is confirmed with the device owner's credential and then
/// kept; one that changes with the same version is a change of the enrolled biometrics, refused.
@Suite("Presence: a biometry state changed by an OS update", .hangLimit)
struct BiometryOSUpdateTests {
    let harness = EmulatorHarness()
    let enrolled = Data("enrolled".utf8)
    let rehashed = Data("rehashed".utf8)

    func signedIn(asking person: EmulatedPresenceChecker, store: InMemoryCredentialStore = InMemoryCredentialStore())
        async throws -> (NativeAuthClient, UserAccountResult)
    {
        var configuration = try NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority)
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.userPresence = UserPresenceRequirement(policy: .always, reason: "Unlock", checker: person)
        let client = NativeAuthClient(configuration: configuration, transport: harness.tenant, credentialStore: store)
        let result = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        return (client, account)
    }

    @Test func aStateChangedWithTheSystemVersionIsConfirmedByTheOwnerAndKept() async throws {
        let person = EmulatedPresenceChecker([
            .confirm(biometryState: enrolled, systemVersion: "18.5"),
            .confirm(biometryState: rehashed, systemVersion: "19.0"),  // the update changed the hash
            .confirm(),  // the owner's passcode
            .confirm(biometryState: rehashed, systemVersion: "19.0"),
        ])
        let (_, account) = try await signedIn(asking: person)
        _ = try await account.getAccessToken(forceRefresh: true)
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(person.ownerCalls == 1)
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(person.ownerCalls == 1, "the new state is the session's: no owner prompt again")
        #expect(person.calls == 4)
    }

    @Test func aStateChangedWithTheSameSystemVersionIsStillRefused() async throws {
        let person = EmulatedPresenceChecker([
            .confirm(biometryState: enrolled, systemVersion: "18.5"),
            .confirm(biometryState: rehashed, systemVersion: "18.5"),  // a face enrolled
        ])
        let (client, account) = try await signedIn(asking: person)
        _ = try await account.getAccessToken(forceRefresh: true)
        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(error.isBiometryChanged)
        #expect(person.ownerCalls == 0)
        #expect(try await client.currentAccount() != nil, "kept until the app signs out")
    }

    @Test func anOwnerWhoDoesNotConfirmLeavesTheOldStateAndIsAskedAgain() async throws {
        let person = EmulatedPresenceChecker([
            .confirm(biometryState: enrolled, systemVersion: "18.5"),
            .confirm(biometryState: rehashed, systemVersion: "19.0"),
            .refuse(.cancelled),  // the passcode prompt, cancelled
            .confirm(biometryState: rehashed, systemVersion: "19.0"),
            .confirm(),  // the passcode, this time
        ])
        let (_, account) = try await signedIn(asking: person)
        _ = try await account.getAccessToken(forceRefresh: true)
        let cancelled = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(cancelled.isUserPresenceCancelled)
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(person.ownerCalls == 2)
    }

    @Test func aSessionKeptBeforeVersionsWereKeptIsAskedNotRefused() async throws {
        // A state stored with no version (an earlier release), then the checker reports one.
        let person = EmulatedPresenceChecker([
            .confirm(biometryState: enrolled),
            .confirm(biometryState: rehashed, systemVersion: "18.0; domainState"),
            .confirm(),
        ])
        let (_, account) = try await signedIn(asking: person)
        _ = try await account.getAccessToken(forceRefresh: true)
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(person.ownerCalls == 1)
    }

    @Test func theKeptVersionSurvivesARestart() async throws {
        let store = InMemoryCredentialStore()
        let person = EmulatedPresenceChecker([.confirm(biometryState: enrolled, systemVersion: "18.5")])
        let (_, account) = try await signedIn(asking: person, store: store)
        _ = try await account.getAccessToken(forceRefresh: true)

        // The app starts again, after the update.
        let after = EmulatedPresenceChecker([.confirm(biometryState: rehashed, systemVersion: "19.0"), .confirm()])
        var configuration = try NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority)
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.userPresence = UserPresenceRequirement(policy: .always, reason: "Unlock", checker: after)
        let restarted = NativeAuthClient(
            configuration: configuration, transport: harness.tenant, credentialStore: store)
        let restored = try #require(try await restarted.currentAccount())
        _ = try await restored.getAccessToken(forceRefresh: true)
        #expect(after.ownerCalls == 1)
    }
}
