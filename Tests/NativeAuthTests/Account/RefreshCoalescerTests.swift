import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Account: refreshes of unrelated clients never wait for each other", .hangLimit)
struct RefreshCoalescerTests {
    let clock = TestClock()

    func makeClient(clientId: String, transport: any HTTPTransport, store: any CredentialStore) throws
        -> NativeAuthClient
    {
        var configuration = try NativeAuthConfiguration(clientId: clientId, tenantSubdomain: "contoso")
        configuration.clock = clock
        configuration.requestTimeout = TestBounds.requestDeadline
        return NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store)
    }

    func signIn(_ client: NativeAuthClient, script: ScriptedTransport) async throws -> UserAccountResult {
        let account = try await script.signIn(client)
        return account
    }

    @Test(arguments: [false, true])
    func aRefreshHeldOpenByOneClientDoesNotHoldUpAnother(sharedStore: Bool) async throws {
        let scriptA = ScriptedTransport()
        let gateA = GatedTransport(scriptA)
        let scriptB = ScriptedTransport()
        let storeA = InMemoryCredentialStore()
        let storeB = sharedStore ? storeA : InMemoryCredentialStore()
        let a = try await signIn(try makeClient(clientId: "client-a", transport: gateA, store: storeA), script: scriptA)
        let b = try await signIn(
            try makeClient(clientId: "client-b", transport: scriptB, store: storeB), script: scriptB)
        gateA.close()
        scriptA.then("token", .tokens(access: "access-a2", refresh: "refresh-a2"))
        let held = Task { try await a.getAccessToken(forceRefresh: true).accessToken }
        await gateA.waitUntilHeld(1)
        // Client A's refresh is on the wire; client B's completes meanwhile.
        scriptB.then("token", .tokens(access: "access-b2", refresh: "refresh-b2"))
        #expect(try await b.getAccessToken(forceRefresh: true).accessToken == "access-b2")
        // And a cached token of A's is still served without waiting.
        #expect(a.manager.cachedAccessToken(for: a.account.identifier, scopes: []) != nil)
        gateA.open()
        #expect(try await held.value == "access-a2")
    }
}
