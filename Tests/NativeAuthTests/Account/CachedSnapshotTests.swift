import Foundation
import NativeAuthEmulator
import Testing

@testable import NativeAuth

@Suite("Account: cached tokens are read without entering the account's actor", .timeLimit(.minutes(1)))
struct CachedSnapshotTests {
    @Test(arguments: [false, true])
    func aRestoredAccountServesCachedTokensFromTheSnapshot(fileStore: Bool) async throws {
        let harness = EmulatorHarness()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshot-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store: any CredentialStore =
            fileStore ? FileCredentialStore(directory: directory) : InMemoryCredentialStore()
        let client = NativeAuthClient(
            configuration: harness.client.configuration, transport: harness.tenant, credentialStore: store)
        guard
            case .completed(let account) = try await client.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else {
            Issue.record("expected a sign-in")
            return
        }
        #expect(account.manager.cachedAccessToken(for: account.account.identifier, scopes: []) != nil)
        _ = try await account.getAccessToken(scopes: ["api://one/read"])
        #expect(account.manager.cachedAccessToken(for: account.account.identifier, scopes: ["api://one/read"]) != nil)
        // A new client on the same store: after the first call, cached tokens come from the snapshot.
        let restoredClient = NativeAuthClient(
            configuration: harness.client.configuration, transport: harness.tenant, credentialStore: store)
        let restored = try #require(try await restoredClient.currentAccount())
        _ = try await restored.getAccessToken(scopes: ["api://one/read"])
        #expect(restored.manager.cachedAccessToken(for: restored.account.identifier, scopes: ["api://one/read"]) != nil)
        #expect(restored.manager.cachedAccessToken(for: restored.account.identifier, scopes: []) != nil)
        // Signed out: nothing is served, not even from the snapshot.
        await restored.signOut()
        #expect(restored.manager.cachedAccessToken(for: restored.account.identifier, scopes: []) == nil)
    }
}
