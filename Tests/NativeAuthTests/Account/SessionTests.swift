import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Sessions: events, skew, shared stores, replacement, authorized requests", .hangLimit)
struct SessionTests {
    let harness = EmulatorHarness()

    func signIn(_ client: NativeAuthClient? = nil, username: String = "ada@example.com") async throws
        -> UserAccountResult
    {
        let result = try await (client ?? harness.client).signIn(
            SignInParameters(username: username, password: EmulatorHarness.password))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        return account
    }

    func requests(to suffix: String) -> Int {
        harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix(suffix) }.count
    }

    @Test func eventsFollowTheSession() async throws {
        let events = harness.client.sessionEvents()
        var iterator = events.makeAsyncIterator()
        let account = try await signIn()
        guard case .signedIn(let signedIn)? = await iterator.next() else { throw TestFailure("signedIn") }
        #expect(signedIn.username == "ada@example.com")
        _ = try await account.getAccessToken(forceRefresh: true)
        guard case .tokenRefreshed(let refreshed, _, let expiresOn)? = await iterator.next() else {
            throw TestFailure("tokenRefreshed")
        }
        #expect(refreshed.username == "ada@example.com")
        #expect(expiresOn == harness.clock.now().addingTimeInterval(3600))
        await account.signOut()
        guard case .signedOut(_, .requested)? = await iterator.next() else { throw TestFailure("signedOut") }
        let again = try await signIn()
        _ = await iterator.next()
        harness.tenant.revokeRefreshTokens(for: "ada@example.com")
        _ = try? await again.getAccessToken(forceRefresh: true)
        guard case .signedOut(_, .sessionExpired)? = await iterator.next() else { throw TestFailure("expired") }
    }

    @Test(arguments: [-600.0, 0, 600])
    func serverClockSkewChangesNothing(offset: Double) async throws {
        harness.tenant.configure { $0.serverClockOffset = offset }
        let account = try await signIn()
        let first = try await account.getAccessToken()
        #expect(first.expiresOn == harness.clock.now().addingTimeInterval(3600))
        harness.clock.advance(by: 3600 - 301)
        #expect(try await account.getAccessToken().accessToken == first.accessToken)
        #expect(requests(to: "token") == 1)
        harness.clock.advance(by: 2)
        #expect(try await account.getAccessToken().accessToken != first.accessToken)
        #expect(requests(to: "token") == 2)
    }

    @Test(arguments: [-600.0, 600])
    func skewIsCorrectedWhenOnlyTheTokenSaysWhenItExpires(offset: Double) async throws {
        let clock = TestClock()
        let serverNow = clock.now().addingTimeInterval(offset)
        let header = Base64URL.encode(Data("{\"alg\":\"none\"}".utf8))
        let payload = Base64URL.encode(Data("{\"exp\":\(Int(serverNow.timeIntervalSince1970) + 3600)}".utf8))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let transport = ScriptedTransport([
            ("initiate", .token("ct1")), ("challenge", .password("ct2")),
            (
                "token",
                .json(
                    200,
                    "{\"token_type\":\"Bearer\",\"access_token\":\"\(header).\(payload).\",\"refresh_token\":\"r\",\"id_token\":\"\(TestTokens.idToken())\"}",
                    headers: ["Date": formatter.string(from: serverNow)])
            ),
        ])
        var configuration = testConfiguration()
        configuration.clock = clock
        let client = NativeAuthClient(
            configuration: configuration, transport: transport, credentialStore: InMemoryCredentialStore())
        guard case .completed(let account) = try await client.signIn(SignInParameters(username: "u", password: "p"))
        else {
            throw TestFailure("expected completed")
        }
        #expect(try await account.getAccessToken().expiresOn == clock.now().addingTimeInterval(3600))
    }

    @Test func twoClientsOnOneStoreNeverBurnEachOthersRefreshToken() async throws {
        let a = harness.client
        let b = harness.makeClient()
        let accountA = try await signIn(a)
        let accountB = try #require(try await b.currentAccount())
        // B rotates the refresh token; the emulator revokes the one A holds in memory.
        _ = try await accountB.getAccessToken(forceRefresh: true)
        // A's refresh is refused, A finds B's rotated token in the store and succeeds.
        let token = try await accountA.getAccessToken(forceRefresh: true)
        #expect(!token.accessToken.isEmpty)
        #expect(try await a.currentAccount() != nil)
        #expect(try await b.currentAccount() != nil)
        _ = try await accountB.getAccessToken(forceRefresh: true)
    }

    @Test func signingInAsAnotherUserReplacesTheAccount() async throws {
        let ada = try await signIn()
        let result = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, _, _) = result,
            case .completed(let grace) = try await state.submitCode(harness.code(for: "grace@example.com"))
        else { throw TestFailure("expected grace") }
        do {
            _ = try await ada.getAccessToken()
            Issue.record("the replaced account must be gone")
        } catch {
            #expect(error.isNoAccount)
        }
        #expect(try await harness.client.currentAccount()?.account.username == "grace@example.com")
        #expect(await ada.signOut().wasSignedIn == false)
        #expect(try await grace.getAccessToken().accessToken.isEmpty == false)
    }

    @Test func authorizeSetsTheBearerToken() async throws {
        let account = try await signIn()
        let token = try await account.getAccessToken()
        let request = HTTPRequest(
            method: "GET", url: harness.tenant.url(for: .resource), headers: ["authorization": "Basic old"])
        let authorized = try await account.authorize(request)
        #expect(authorized.header("Authorization") == "Bearer \(token.accessToken)")
        #expect(authorized.headers.count == 1)
        let response = try await harness.tenant.send(authorized)
        #expect(response.statusCode == 200)
    }

    @Test func sendRefreshesOnceOnAnInvalidTokenChallenge() async throws {
        let account = try await signIn()
        let request = HTTPRequest(method: "GET", url: harness.tenant.url(for: .resource))
        #expect(try await account.send(request).statusCode == 200)
        #expect(requests(to: "token") == 1)
        harness.tenant.force(
            .raw(
                status: 401,
                headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\", error_description=\"expired\""],
                body: Data()), on: .resource)
        let response = try await account.send(request)
        #expect(response.statusCode == 200)
        #expect(requests(to: "token") == 2)
        // A 401 for any other reason is returned as it is, with no refresh and no retry.
        harness.tenant.force(
            .raw(status: 401, headers: ["WWW-Authenticate": "Bearer realm=\"api\""], body: Data()), on: .resource)
        #expect(try await account.send(request).statusCode == 401)
        #expect(requests(to: "token") == 2)
        // Twice in a row: one retry only.
        let challenge = ForcedAnswer.raw(
            status: 401, headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""], body: Data())
        harness.tenant.force(challenge, on: .resource, times: 2)
        #expect(try await account.send(request).statusCode == 401)
        #expect(requests(to: "emulator/me") == 6)
    }

    @Test func wwwAuthenticateParsing() {
        #expect(UserAccountResult.saysTokenInvalid("Bearer error=\"invalid_token\""))
        #expect(
            UserAccountResult.saysTokenInvalid("Bearer realm=\"x\", error = \"invalid_token\", error_description=\"e\"")
        )
        #expect(!UserAccountResult.saysTokenInvalid("Bearer error=\"insufficient_scope\""))
        #expect(!UserAccountResult.saysTokenInvalid("Basic realm=\"x\""))
        #expect(!UserAccountResult.saysTokenInvalid(nil))
    }

    @Test func aStoreThatFailsToWriteKeepsCredentialsInMemoryAndRetries() async throws {
        final class FlakyStore: CredentialStore, @unchecked Sendable {
            // Guarded by `lock`.
            private let lock = NSLock()
            private var items: [String: Data] = [:]
            private var failing = true
            struct Failure: Error {}
            func heal() { lock.withLock { failing = false } }
            func data(forKey key: String) async throws -> Data? { lock.withLock { items[key] } }
            func setData(_ data: Data, forKey key: String) async throws {
                try lock.withLock {
                    if failing { throw Failure() }
                    items[key] = data
                }
            }
            func removeData(forKey key: String) async throws { lock.withLock { items[key] = nil } }
        }
        let store = FlakyStore()
        var configuration = try NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority)
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        let client = NativeAuthClient(configuration: configuration, transport: harness.tenant, credentialStore: store)
        let account = try await signIn(client)
        #expect(try await store.data(forKey: "nativeauth.account.\(harness.tenant.clientId)") == nil)
        #expect(try await account.getAccessToken().accessToken.isEmpty == false)
        store.heal()
        _ = try await account.getAccessToken()
        #expect(try await store.data(forKey: "nativeauth.account.\(harness.tenant.clientId)") != nil)
    }

    @Test func aRetriedSignOutNeverDeletesALaterAccount() async throws {
        final class RemovalFailsOnce: CredentialStore, @unchecked Sendable {
            // Guarded by `lock`.
            private let lock = NSLock()
            private var items: [String: Data] = [:]
            private var failNextRemoval = true
            struct Failure: Error {}
            func data(forKey key: String) async throws -> Data? { lock.withLock { items[key] } }
            func setData(_ data: Data, forKey key: String) async throws { lock.withLock { items[key] = data } }
            func removeData(forKey key: String) async throws {
                try lock.withLock {
                    if failNextRemoval {
                        failNextRemoval = false
                        throw Failure()
                    }
                    items[key] = nil
                }
            }
        }
        var configuration = try NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority)
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        let store = RemovalFailsOnce()
        let client = NativeAuthClient(configuration: configuration, transport: harness.tenant, credentialStore: store)
        let ada = try await signIn(client)
        #expect(await ada.signOut() == SignOutResult(removedFromStore: false, wasSignedIn: true))
        harness.tenant.addUser(EmulatedUser(username: "bob@example.com", password: EmulatorHarness.password))
        _ = try await signIn(client, username: "bob@example.com")
        #expect(await ada.signOut().wasSignedIn == false)
        // The store still holds bob: a new client (a new launch) finds him.
        let relaunched = NativeAuthClient(
            configuration: configuration, transport: harness.tenant, credentialStore: store)
        #expect(try await relaunched.currentAccount()?.account.username == "bob@example.com")
    }

    @Test func refreshesForSeveralScopeSetsNeverBurnTheRotatingToken() async throws {
        // The emulator revokes a refresh token once it is rotated: concurrent refreshes with the
        // same token would sign the user out.
        let account = try await signIn()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask { try await account.getAccessToken(scopes: ["api://r\(index)/read"]).accessToken }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(tokens).count == 8)
        #expect(try await harness.client.currentAccount() != nil)
        #expect(requests(to: "token") == 9)
    }
}
