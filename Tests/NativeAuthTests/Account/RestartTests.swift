import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Restart on a file store: restore with no request, refresh once, damage never fatal", .hangLimit)
struct RestartTests {
    let scratch = ScratchDirectory()
    let harness = EmulatorHarness()

    func client(clientId: String? = nil) -> NativeAuthClient {
        var configuration = try? NativeAuthConfiguration(
            clientId: clientId ?? harness.tenant.clientId, authority: harness.tenant.authority)
        configuration?.clock = harness.clock
        configuration?.requestTimeout = TestBounds.requestDeadline
        guard let configuration else { preconditionFailure("configuration") }
        return NativeAuthClient(
            configuration: configuration, transport: harness.tenant,
            credentialStore: FileCredentialStore(directory: scratch.storeDirectory))
    }

    func tokenRequests() -> Int { harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix("token") }.count }

    @Test func restartNeedsNoRequestUntilExpiry() async throws {
        do {
            let first = client()
            guard
                case .completed = try await first.signIn(
                    SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
            else { throw TestFailure("expected completed") }
        }
        let count = harness.tenant.receivedRequests.count
        let restored = try #require(try await client().currentAccount())
        #expect(restored.account.username == "ada@example.com")
        #expect(restored.account.claims.name == "Ada Lovelace")
        let token = try await restored.getAccessToken()
        #expect(harness.tenant.receivedRequests.count == count)
        harness.clock.advance(by: 3600)
        let refreshed = try await restored.getAccessToken()
        #expect(refreshed.accessToken != token.accessToken)
        #expect(harness.tenant.receivedRequests.count == count + 1)
        // A third launch finds the rotated refresh token: the emulator revoked the old one.
        harness.clock.advance(by: 3600)
        let third = try #require(try await client().currentAccount())
        _ = try await third.getAccessToken()
        #expect(harness.tenant.receivedRequests.count == count + 2)
    }

    @Test func signOutSurvivesARestart() async throws {
        let first = client()
        guard
            case .completed(let account) = try await first.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        #expect(await account.signOut().removedFromStore)
        #expect(try await client().currentAccount() == nil)
    }

    @Test func damagedOrFutureFilesAreReportedNotFatalAndSpareOtherAccounts() async throws {
        let other = client(clientId: harness.tenant.clientId)
        guard
            case .completed = try await other.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        let store = FileCredentialStore(directory: scratch.storeDirectory)
        let victimKey = "nativeauth.account.second-app"
        let victim = store.fileURL(forKey: victimKey)
        for damage in [Data(), Data("garbage".utf8), Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })] {
            try damage.write(to: victim)
            let logger = InMemoryLogger()
            var configuration = try NativeAuthConfiguration(clientId: "second-app", authority: harness.tenant.authority)
            configuration.logger = logger
            let second = NativeAuthClient(
                configuration: configuration, transport: harness.tenant, credentialStore: store)
            #expect(try await second.currentAccount() == nil)
            #expect(logger.records.contains { $0.level == .error })
            #expect(try await client().currentAccount()?.account.username == "ada@example.com")
        }
        // A file written by a newer format version is left as it is.
        var future = Data("NAUTHCS\n".utf8)
        future.append(contentsOf: [0x00, 0x63, 0, 0, 0, 0])
        try future.write(to: victim)
        let second = NativeAuthClient(
            configuration: try NativeAuthConfiguration(clientId: "second-app", authority: harness.tenant.authority),
            transport: harness.tenant, credentialStore: store)
        #expect(try await second.currentAccount() == nil)
        #expect(try Data(contentsOf: victim) == future)
    }

    @Test func twoClientsOnOneDirectory() async throws {
        let a = client()
        let b = client()
        guard
            case .completed(let accountA) = try await a.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        let accountB = try #require(try await b.currentAccount())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    _ = try await (index.isMultiple(of: 2) ? accountA : accountB).getAccessToken(forceRefresh: true)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await a.currentAccount() != nil)
        #expect(try await client().currentAccount()?.account.username == "ada@example.com")
        #expect(try await client().currentAccount()?.getAccessToken(forceRefresh: true).accessToken.isEmpty == false)
    }

    @Test func aClientFollowsASignOutOrANewSignInByAnotherClientOnTheSameStore() async throws {
        let a = client()
        let b = client()
        guard
            case .completed(let accountA) = try await a.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        let accountB = try #require(try await b.currentAccount())
        await accountA.signOut()
        // B's refresh finds the account gone and does not write it back.
        do {
            _ = try await accountB.getAccessToken(forceRefresh: true)
            Issue.record("expected no account")
        } catch {
            #expect(error.isNoAccount)
        }
        #expect(try await client().currentAccount() == nil)
        #expect(try await b.currentAccount() == nil)

        // Another user signs in on one client: the other follows on its next refresh and never
        // writes its old account back.
        harness.tenant.addUser(EmulatedUser(username: "bob@example.com", password: EmulatorHarness.password))
        let c1 = client()
        let c2 = client()
        guard
            case .completed = try await c1.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        let adaOnC2 = try #require(try await c2.currentAccount())
        guard
            case .completed = try await c1.signIn(
                SignInParameters(username: "bob@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        do {
            _ = try await adaOnC2.getAccessToken(forceRefresh: true)
            Issue.record("expected no account")
        } catch {
            #expect(error.isNoAccount)
        }
        #expect(try await c2.currentAccount()?.account.username == "bob@example.com")
        #expect(try await client().currentAccount()?.account.username == "bob@example.com")
    }

    @Test func aCustomStoreCanReportADamagedItem() async throws {
        struct DamagedStore: CredentialStore {
            func data(forKey key: String) async throws -> Data? {
                throw CredentialStoreDamagedError(key: key, reason: "the item failed its integrity check")
            }
            func setData(_ data: Data, forKey key: String) async throws {}
            func removeData(forKey key: String) async throws {}
        }
        let client = NativeAuthClient(
            configuration: try NativeAuthConfiguration(clientId: "c", authority: harness.tenant.authority),
            transport: harness.tenant, credentialStore: DamagedStore())
        #expect(try await client.currentAccount() == nil)
        #expect(CredentialStoreDamagedError(key: "k", reason: "why").description.contains("why"))
    }
}
