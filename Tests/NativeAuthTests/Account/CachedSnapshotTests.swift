import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Account: cached tokens are read without entering the account's actor", .hangLimit)
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

    @Test func afterEachRefreshTheSnapshotServesExactlyWhatTheAccountHolds() async throws {
        let transport = ScriptedTransport()
        let clock = TestClock()
        var configuration = testConfiguration()
        configuration.clock = clock
        let client = NativeAuthClient(
            configuration: configuration, transport: transport, credentialStore: InMemoryCredentialStore())
        let account = try await transport.signIn(
            client, tokens: .tokens(access: "sign-in-1", refresh: "refresh-1", expiresIn: 3600))
        let id = account.account.identifier
        func served(_ scopes: [String]) -> String? {
            account.manager.cachedAccessToken(for: id, scopes: scopes)?.accessToken
        }
        let sets = [["api://a/read"], ["api://b/read"], ["api://c/read"]]
        for (n, scopes) in sets.enumerated() {
            transport.then(
                "token", .tokens(access: "first-\(n)", refresh: "refresh-1", expiresIn: 3600, scope: scopes[0]))
            _ = try await account.getAccessToken(scopes: scopes)
        }
        // Each refresh changes one token; the others stay as they were.
        for round in 1...3 {
            for (n, scopes) in sets.enumerated() {
                transport.then(
                    "token",
                    .tokens(access: "round-\(round)-\(n)", refresh: "refresh-1", expiresIn: 3600, scope: scopes[0]))
                #expect(
                    try await account.getAccessToken(scopes: scopes, forceRefresh: true).accessToken
                        == "round-\(round)-\(n)")
                for (m, other) in sets.enumerated() {
                    let expected =
                        m <= n ? "round-\(round)-\(m)" : (round == 1 ? "first-\(m)" : "round-\(round - 1)-\(m)")
                    #expect(served(other) == expected, "round \(round), after set \(n), set \(m)")
                }
                #expect(served([]) == "sign-in-1")
            }
        }
        // A new sign-in of the same user serves none of the earlier sign-in's tokens.
        transport.then("initiate", .token("ct3"))
        transport.then("challenge", .password("ct4"))
        transport.then("token", .tokens(access: "sign-in-2", refresh: "refresh-2", expiresIn: 3600))
        guard
            case .completed(let again) = try await client.signIn(
                SignInParameters(username: "ada@example.com", password: "pw"))
        else { throw TestFailure("expected completed") }
        #expect(again.manager.cachedAccessToken(for: id, scopes: [])?.accessToken == "sign-in-2")
        for scopes in sets { #expect(again.manager.cachedAccessToken(for: id, scopes: scopes) == nil) }
    }
}
