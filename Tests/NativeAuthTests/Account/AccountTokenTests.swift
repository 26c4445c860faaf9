import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

@Suite("Account: cached tokens, one refresh in flight, sign-out, restore", .hangLimit)
struct AccountTokenTests {
    let transport = ScriptedTransport()
    let gate: GatedTransport
    let clock = TestClock()
    let store = InMemoryCredentialStore()

    init() { gate = GatedTransport(transport) }

    func makeClient() -> NativeAuthClient {
        var configuration = testConfiguration()
        configuration.clock = clock
        return NativeAuthClient(configuration: configuration, transport: gate, credentialStore: store)
    }

    func signedIn(_ client: NativeAuthClient, scopes: [String] = []) async throws -> UserAccountResult {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", .tokens(access: "access-1", refresh: "refresh-1", expiresIn: 3600))
        let result = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "pw", scopes: scopes))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        return account
    }

    func storedRecord() async throws -> AccountRecord? {
        guard let data = try await store.data(forKey: "nativeauth.account.client-1") else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(AccountRecord.self, from: data)
    }

    @Test func cachedTokenNeedsNoRequest() async throws {
        let account = try await signedIn(makeClient())
        let count = transport.requests.count
        let token = try await account.getAccessToken()
        #expect(token.accessToken == "access-1")
        #expect(token.expiresOn == clock.now().addingTimeInterval(3600))
        #expect(transport.requests.count == count)
    }

    @Test func expiredTokenIsRefreshedAndRotatedRefreshTokenStored() async throws {
        let account = try await signedIn(makeClient())
        clock.advance(by: 3600 - 299)  // inside the 300 s margin
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        let token = try await account.getAccessToken()
        #expect(token.accessToken == "access-2")
        let refresh = formFields(transport.requests.last!)
        #expect(refresh.contains("grant_type=refresh_token"))
        #expect(refresh.contains("refresh_token=refresh-1"))
        #expect(try await storedRecord()?.refreshToken == "refresh-2")
        #expect(try await storedRecord()?.accessTokens[""]?.token == "access-2")
    }

    @Test func forceRefresh() async throws {
        let account = try await signedIn(makeClient())
        transport.then("token", .tokens(access: "access-2", refresh: nil))
        #expect(try await account.getAccessToken(forceRefresh: true).accessToken == "access-2")
        // A refresh answer without a refresh token keeps the old one.
        #expect(try await storedRecord()?.refreshToken == "refresh-1")
    }

    @Test func thousandConcurrentCallersShareOneRefresh() async throws {
        let account = try await signedIn(makeClient())
        clock.advance(by: 4000)
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        let before = transport.requests.count
        gate.close()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 {
                group.addTask { try await account.getAccessToken().accessToken }
            }
            await gate.waitUntilHeld(1)
            gate.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 1000)
        #expect(Set(tokens) == ["access-2"])
        #expect(transport.requests.count == before + 1)
        #expect(try await storedRecord()?.refreshToken == "refresh-2")
    }

    @Test func differentScopesAreCachedSeparately() async throws {
        let account = try await signedIn(makeClient(), scopes: ["api://a/read"])
        transport.then("token", .tokens(access: "access-b", scope: "api://b/write"))
        let b = try await account.getAccessToken(scopes: ["api://b/write"])
        #expect(b.accessToken == "access-b")
        #expect(formFields(transport.requests.last!).contains("scope=api://b/write openid profile offline_access"))
        let count = transport.requests.count
        #expect(try await account.getAccessToken(scopes: ["api://a/read"]).accessToken == "access-1")
        #expect(try await account.getAccessToken(scopes: ["api://b/write"]).accessToken == "access-b")
        #expect(transport.requests.count == count)
    }

    @Test func revokedRefreshTokenSignsOut() async throws {
        let client = makeClient()
        let account = try await signedIn(client)
        clock.advance(by: 4000)
        transport.then("token", .error("invalid_grant", codes: [70000]))
        do {
            _ = try await account.getAccessToken()
            Issue.record("expected an error")
        } catch {
            #expect(error.isRefreshTokenExpired)
        }
        #expect(try await client.currentAccount() == nil)
        #expect(try await storedRecord() == nil)
    }

    @Test(arguments: [
        ScriptedTransport.Answer.failure(.notConnectedToInternet),
        .raw(503, contentType: "text/html", "<html>busy</html>"),
        .error("server_error", status: 500),
    ])
    func transientRefreshFailureKeepsCredentials(answer: ScriptedTransport.Answer) async throws {
        let client = makeClient()
        let account = try await signedIn(client)
        clock.advance(by: 4000)
        transport.then("token", answer)
        // A 503 and "not connected" are retried once by the SDK.
        if case .response(let response) = answer, response.statusCode == 503 { transport.then("token", answer) }
        if case .failure(.notConnectedToInternet) = answer { transport.then("token", answer) }
        do {
            _ = try await account.getAccessToken()
            Issue.record("expected an error")
        } catch {
            #expect(!error.isRefreshTokenExpired)
        }
        #expect(try await storedRecord()?.refreshToken == "refresh-1")
        transport.then("token", .tokens(access: "access-2"))
        #expect(try await account.getAccessToken().accessToken == "access-2")
    }

    @Test func restoreOnANewClientNeedsNoRequest() async throws {
        _ = try await signedIn(makeClient())
        let count = transport.requests.count
        let restored = try #require(try await makeClient().currentAccount())
        #expect(restored.account.username == "ada@example.com")
        #expect(restored.account.claims.objectId == "00000000-0000-0000-0000-0000000000a1")
        #expect(try await restored.getAccessToken().accessToken == "access-1")
        #expect(transport.requests.count == count)
        clock.advance(by: 4000)
        transport.then("token", .tokens(access: "access-2"))
        #expect(try await restored.getAccessToken().accessToken == "access-2")
        #expect(transport.requests.count == count + 1)
    }

    @Test func signOutRemovesCredentials() async throws {
        let client = makeClient()
        let account = try await signedIn(client)
        let result = await account.signOut()
        #expect(result == SignOutResult(removedFromStore: true, wasSignedIn: true))
        #expect(try await client.currentAccount() == nil)
        #expect(try await storedRecord() == nil)
        do {
            _ = try await account.getAccessToken()
            Issue.record("expected an error")
        } catch {
            #expect(error.isNoAccount)
        }
        #expect(await account.signOut().wasSignedIn == false)
    }

    @Test func unreadableStoreIsAnErrorNotASignOut() async throws {
        struct LockedStore: CredentialStore {
            struct Locked: Error {}
            func data(forKey key: String) async throws -> Data? { throw Locked() }
            func setData(_ data: Data, forKey key: String) async throws { throw Locked() }
            func removeData(forKey key: String) async throws { throw Locked() }
        }
        let client = NativeAuthClient(
            configuration: testConfiguration(), transport: transport, credentialStore: LockedStore())
        await #expect(throws: CredentialStoreError.self) { _ = try await client.currentAccount() }
    }

    @Test func damagedStoreEntryIsIgnoredNotFatal() async throws {
        try await store.setData(Data("{not json".utf8), forKey: "nativeauth.account.client-1")
        #expect(try await makeClient().currentAccount() == nil)
        try await store.setData(Data("{\"version\":99}".utf8), forKey: "nativeauth.account.client-1")
        #expect(try await makeClient().currentAccount() == nil)
    }
}
