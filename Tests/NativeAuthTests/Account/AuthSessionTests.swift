import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Observation
import Testing

@testable import NativeAuth

/// Waits, on the main actor, until `condition` holds, woken by Observation (never polling): each
/// change of a property `condition` reads wakes it to check again. Bounded by the suite's time limit.
@MainActor
func observe(_ session: AuthSession, until condition: @escaping @MainActor (AuthSession) -> Bool) async {
    while !condition(session) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumed = LockedValue(false)
            let resume: @Sendable () -> Void = {
                let first = resumed.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume() }
            }
            // Tracks what `condition` reads; a change of any of it resumes the wait.
            if withObservationTracking({ condition(session) }, onChange: resume) { resume() }
        }
    }
}

/// The observable session model: restored at launch with no request, following sign-in, refresh
/// and sign-out, for native and web clients; observed with `withObservationTracking`, as SwiftUI does.
@Suite("AuthSession: the session as an observable model", .hangLimit)
@MainActor
struct AuthSessionTests {
    let harness = EmulatorHarness()

    func signIn(_ client: NativeAuthClient) async throws -> UserAccountResult {
        guard
            case .completed(let account) = try await client.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected a completed sign-in") }
        return account
    }

    @Test func aStoredAccountIsRestoredAtLaunchWithNoRequest() async throws {
        _ = try await signIn(harness.client)
        let before = harness.tenant.receivedRequests.count
        let session = AuthSession(client: harness.makeClient())
        #expect(session.isRestoring)
        let published = LockedValue(0)
        withObservationTracking {
            _ = session.isRestoring
        } onChange: {
            published.withLock { $0 += 1 }
        }
        await observe(session) { !$0.isRestoring }
        #expect(published.current == 1, "the restore's end was published")
        #expect(session.account?.account.username == "ada@example.com")
        #expect(session.isSignedIn)
        #expect(harness.tenant.receivedRequests.count == before, "a restore sends nothing")
    }

    @Test func nobodyStoredRestoresToSignedOut() async {
        let session = AuthSession(client: harness.client)
        await observe(session) { !$0.isRestoring }
        #expect(session.account == nil && !session.isSignedIn && session.storeError == nil)
        #expect(session.lastEvent == nil)
    }

    @Test func itFollowsASignInARefreshAndASignOut() async throws {
        let session = AuthSession(client: harness.client)
        await observe(session) { !$0.isRestoring }
        let account = try await signIn(harness.client)
        await observe(session) { $0.account != nil }
        #expect(session.lastEvent == .signedIn(account.account))
        _ = try await session.accessToken(forceRefresh: true)
        await observe(session) {
            if case .tokenRefreshed = $0.lastEvent { true } else { false }
        }
        #expect(session.isSignedIn)
        let result = await session.signOut()
        #expect(result?.wasSignedIn == true)
        #expect(session.account == nil, "at once")
        await observe(session) { $0.lastEvent == .signedOut(account.account, reason: .requested) }
        #expect(await session.signOut() == nil)
        do {
            _ = try await session.accessToken()
            Issue.record("expected no account")
        } catch {
            #expect(error.isNoAccount)
        }
    }

    @Test func aSessionThatEndsOnTheServerSignsTheModelOut() async throws {
        let session = AuthSession(client: harness.client)
        let account = try await signIn(harness.client)
        await observe(session) { $0.account != nil }
        harness.tenant.revokeRefreshTokens(for: "ada@example.com")
        do {
            _ = try await account.getAccessToken(forceRefresh: true)
            Issue.record("expected the refresh to be refused")
        } catch {
            #expect(error.isRefreshTokenExpired)
        }
        await observe(session) { $0.account == nil }
        #expect(session.lastEvent == .signedOut(account.account, reason: .sessionExpired))
    }

    @Test func aSignInWithTheBrowserIsFollowedToo() async throws {
        let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = TestClock()
        let client = try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
        let session = AuthSession(client: client)
        await observe(session) { !$0.isRestoring }
        #expect(session.account == nil)
        _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        await observe(session) { $0.account != nil }
        #expect(session.account?.account.claims.subject == "user-1")
        #expect(try await session.accessToken().accessToken == "web-access-1")
    }

    @Test func anUnreadableStoreIsNotASignOutAndCanBeRetried() async throws {
        let store = FailingReadStore()
        let configuration = try NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority)
        let client = NativeAuthClient(configuration: configuration, transport: harness.tenant, credentialStore: store)
        let session = AuthSession(client: client)
        await observe(session) { !$0.isRestoring }
        #expect(session.storeError != nil && session.account == nil)
        store.failing.withLock { $0 = false }
        await session.restore()
        #expect(session.storeError == nil)
    }
}

/// A store whose reads fail while `failing`.
final class FailingReadStore: CredentialStore, Sendable {
    struct Locked: Error {}
    let failing = LockedValue(true)
    private let inner = InMemoryCredentialStore()

    func data(forKey key: String) async throws -> Data? {
        if failing.current { throw Locked() }
        return try await inner.data(forKey: key)
    }

    func setData(_ data: Data, forKey key: String) async throws { try await inner.setData(data, forKey: key) }
    func removeData(forKey key: String) async throws { try await inner.removeData(forKey: key) }
}
