import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A credential store in memory that records what is read and written, keeps every state it
/// passes through, and can refuse reads or writes of some keys.
final class RecordingStore: CredentialStore, Sendable {
    enum Operation: Equatable, Sendable {
        case read(String)
        case write(String)
        case remove(String)
    }

    struct Refused: Error {}

    private let state = Locked<(items: [String: Data], log: [Operation], history: [[String: Data]])>(([:], [], []))
    private let refuse = Locked<@Sendable (String) -> Bool>({ _ in false })
    private let refuseRead = Locked<@Sendable (String) -> Bool>({ _ in false })

    init(_ items: [String: Data] = [:]) { state.withLock { $0.items = items } }

    var items: [String: Data] { state.current.items }
    var operations: [Operation] { state.current.log }
    /// The items after each write or removal, in order.
    var history: [[String: Data]] { state.current.history }
    var writes: [String] {
        operations.compactMap {
            if case .write(let key) = $0 { key } else { nil }
        }
    }

    func clearLog() { state.withLock { $0.log = [] } }
    func refuseWrites(_ predicate: @escaping @Sendable (String) -> Bool) { refuse.withLock { $0 = predicate } }
    func refuseReads(_ predicate: @escaping @Sendable (String) -> Bool) { refuseRead.withLock { $0 = predicate } }

    func data(forKey key: String) async throws -> Data? {
        if refuseRead.current(key) { throw Refused() }
        return state.withLock {
            $0.log.append(.read(key))
            return $0.items[key]
        }
    }

    func setData(_ data: Data, forKey key: String) async throws {
        if refuse.current(key) { throw Refused() }
        state.withLock {
            $0.log.append(.write(key))
            $0.items[key] = data
            $0.history.append($0.items)
        }
    }

    func removeData(forKey key: String) async throws {
        state.withLock {
            $0.log.append(.remove(key))
            $0.items[key] = nil
            $0.history.append($0.items)
        }
    }
}

@Suite("Account store: one item per access token, lazy loading, migration, crash safety", .hangLimit)
struct AccountStoreLayoutTests {
    static let accountKey = "nativeauth.account.client-1"
    static let indexKey = accountKey + ".tokens"
    static func tokenKey(_ scopes: [String]) -> String {
        AccountStoreLayout.tokenKey(accountKey, scopeKey: AccountRecord.scopeKey(scopes))
    }

    let transport = ScriptedTransport()
    let clock = TestClock()

    func makeClient(_ store: any CredentialStore) -> NativeAuthClient {
        var configuration = testConfiguration()
        configuration.clock = clock
        return NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store)
    }

    func signedIn(_ client: NativeAuthClient) async throws -> UserAccountResult {
        let account = try await transport.signIn(client)
        return account
    }

    /// A refresh answer numbered `n`: access token `access-n`, refresh token `refresh-n`.
    func answer(_ n: Int, scope: String = "api://r1/read") {
        transport.then("token", .tokens(access: "access-\(n)", refresh: "refresh-\(n)", expiresIn: 3600, scope: scope))
    }

    @Test func aRefreshOfACachedScopeSetWritesItsTokenItemAndTheAccountOnly() async throws {
        let store = RecordingStore()
        let account = try await signedIn(makeClient(store))
        #expect(store.writes == [Self.accountKey])
        store.clearLog()
        answer(2)
        #expect(try await account.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-2")
        // A new scope set: the index first, the rotated refresh token next, its token last.
        #expect(store.writes == [Self.indexKey, Self.accountKey, Self.tokenKey(["api://r1/read"])])
        store.clearLog()
        clock.advance(by: 3600)
        answer(3)
        #expect(try await account.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-3")
        #expect(store.writes == [Self.accountKey, Self.tokenKey(["api://r1/read"])])
        store.clearLog()
        // The sign-in scopes' token lives in the account item: one write.
        answer(4, scope: "openid offline_access")
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(store.writes == [Self.accountKey])
    }

    @Test func restoreReadsTheAccountAndIndexAndATokenItemOnlyWhenAskedFor() async throws {
        let store = RecordingStore()
        let account = try await signedIn(makeClient(store))
        for (n, scope) in ["api://r1/read", "api://r2/read", "api://r3/read"].enumerated() {
            answer(n + 2, scope: scope)
            _ = try await account.getAccessToken(scopes: [scope])
        }
        store.clearLog()
        let requests = transport.requests.count
        let restored = try #require(try await makeClient(store).currentAccount())
        #expect(store.operations == [.read(Self.accountKey), .read(Self.indexKey)])
        #expect(try await restored.getAccessToken().accessToken == "access-1")
        #expect(try await restored.getAccessToken(scopes: ["api://r2/read"]).accessToken == "access-3")
        #expect(
            store.operations == [
                .read(Self.accountKey), .read(Self.indexKey), .read(Self.tokenKey(["api://r2/read"])),
            ])
        #expect(transport.requests.count == requests)
        // Once read, it is served from the snapshot.
        #expect(
            restored.manager.cachedAccessToken(for: restored.account.identifier, scopes: ["api://r2/read"])?
                .accessToken == "access-3")
    }

    @Test(arguments: [false, true])
    func aMissingOrDamagedTokenItemIsRefreshedNeverASignOut(damaged: Bool) async throws {
        let store = RecordingStore()
        let account = try await signedIn(makeClient(store))
        answer(2)
        _ = try await account.getAccessToken(scopes: ["api://r1/read"])
        let key = Self.tokenKey(["api://r1/read"])
        if damaged {
            try await store.setData(Data("{\"version\":2,\"session\":".utf8), forKey: key)
        } else {
            try await store.removeData(forKey: key)
        }
        let restored = try #require(try await makeClient(store).currentAccount())
        answer(3)
        #expect(try await restored.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-3")
        #expect(formFields(transport.requests.last!).contains("refresh_token=refresh-2"))
        #expect(try await makeClient(store).currentAccount() != nil)
    }

    @Test func aTokenItemOfAnEarlierSignInIsNeverServed() async throws {
        let store = RecordingStore()
        let client = makeClient(store)
        let first = try await signedIn(client)
        answer(2)
        _ = try await first.getAccessToken(scopes: ["api://r1/read"])
        let earlier = try #require(store.items[Self.tokenKey(["api://r1/read"])])
        let second = try await signedIn(client)
        // The sign-in removed the earlier account's token items; one put back is not taken.
        #expect(store.items[Self.tokenKey(["api://r1/read"])] == nil)
        #expect(store.items[Self.indexKey] == nil)
        try await store.setData(earlier, forKey: Self.tokenKey(["api://r1/read"]))
        let restored = try #require(try await makeClient(store).currentAccount())
        answer(3)
        #expect(try await restored.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-3")
        _ = second
    }

    @Test func aFailedTokenItemWriteKeepsTheAccountAndIsRetried() async throws {
        let store = RecordingStore()
        let account = try await signedIn(makeClient(store))
        let key = Self.tokenKey(["api://r1/read"])
        store.refuseWrites { $0 == key }
        answer(2)
        #expect(try await account.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-2")
        #expect(store.items[key] == nil)
        // The rotated refresh token was stored before the token item failed.
        #expect(
            try #require(try await makeClient(store).currentAccount()).account.identifier == account.account.identifier)
        #expect(String(decoding: try #require(store.items[Self.accountKey]), as: UTF8.self).contains("refresh-2"))
        store.refuseWrites { _ in false }
        #expect(try await account.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-2")
        #expect(store.items[key] != nil)
    }

    @Test func signOutRemovesEveryItem() async throws {
        let store = RecordingStore()
        let account = try await signedIn(makeClient(store))
        for (n, scope) in ["api://r1/read", "api://r2/read"].enumerated() {
            answer(n + 2, scope: scope)
            _ = try await account.getAccessToken(scopes: [scope])
        }
        #expect(store.items.count == 4)
        #expect(await account.signOut().removedFromStore)
        #expect(store.items.isEmpty)
        // The account item goes first: a crash after it leaves no account.
        #expect(store.operations.first { if case .remove = $0 { true } else { false } } == .remove(Self.accountKey))
    }

    @Test func twoClientsOnOneStoreKeepEachOthersIndexEntriesAndASignOutRemovesBoth() async throws {
        let store = RecordingStore()
        let a = try await signedIn(makeClient(store))
        let b = try #require(try await makeClient(store).currentAccount())
        answer(2, scope: "api://r1/read")
        _ = try await a.getAccessToken(scopes: ["api://r1/read"])
        // B adopts the refresh token A rotated, and lists its scope set next to A's.
        answer(3, scope: "api://r2/read")
        _ = try await b.getAccessToken(scopes: ["api://r2/read"])
        #expect(formFields(transport.requests.last!).contains("refresh_token=refresh-2"))
        let indexItem = try #require(store.items[Self.indexKey])
        let index = try #require(AccountStoreLayout.index(from: indexItem, accountKey: Self.accountKey))
        #expect(Set(index.tokens.keys) == ["api://r1/read", "api://r2/read"])
        #expect(await a.signOut().removedFromStore)
        #expect(store.items.isEmpty)
    }

    // MARK: Crash safety

    /// The highest number `n` of the `access-n` tokens in `items`, and of the refresh token in
    /// the account item.
    static func numbers(_ items: [String: Data]) -> (access: Int, refresh: Int)? {
        guard let account = items[accountKey] else { return nil }
        func highest(_ prefix: String, in data: Data) -> Int {
            let text = String(decoding: data, as: UTF8.self)
            return text.components(separatedBy: "\"" + prefix).dropFirst().compactMap {
                Int($0.prefix { $0.isNumber })
            }.max() ?? 0
        }
        let access = items.filter { $0.key != indexKey }.values.map { highest("access-", in: $0) }.max() ?? 0
        return (access, highest("refresh-", in: account))
    }

    /// Restores every state the store went through after `from` writes, and checks that the
    /// account is there and no stored access token is newer than the stored refresh token.
    func checkEveryState(of store: RecordingStore, from: Int, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        for (offset, items) in store.history.enumerated().dropFirst(from) {
            let numbers = try #require(
                Self.numbers(items), "state \(offset): no account", sourceLocation: sourceLocation)
            #expect(
                numbers.access <= numbers.refresh, "state \(offset): an access token stored before its refresh token",
                sourceLocation: sourceLocation)
            let restored = try #require(
                try await makeClient(RecordingStore(items)).currentAccount(), "state \(offset)",
                sourceLocation: sourceLocation)
            #expect(restored.account.username == "ada@example.com", sourceLocation: sourceLocation)
        }
    }

    @Test func aCrashBetweenAnyTwoWritesLosesNoRefreshTokenAndKeepsTheAccountReadable() async throws {
        let store = RecordingStore()
        let account = try await signedIn(makeClient(store))
        answer(2, scope: "api://r1/read")
        _ = try await account.getAccessToken(scopes: ["api://r1/read"])
        answer(3, scope: "api://r2/read")
        _ = try await account.getAccessToken(scopes: ["api://r2/read"])
        clock.advance(by: 3600)
        answer(4, scope: "api://r1/read")
        _ = try await account.getAccessToken(scopes: ["api://r1/read"])
        answer(5, scope: "openid offline_access")
        _ = try await account.getAccessToken()
        try await checkEveryState(of: store, from: 0)
    }

    // MARK: Migration from format 1

    /// What the SDK wrote before the per-token layout (format 1: the whole record in one item),
    /// after a sign-in (`access-1`, `refresh-1`) and a refresh for `api://r1/read` (`access-r1`,
    /// `refresh-2`) at 1_800_000_000, captured from that version's writer.
    static let format1Record = """
        {"version":1,"identifier":"00000000-0000-0000-0000-0000000000a1.tenant-1","username":"ada@example.co\
        m","idToken":"eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJzdWItMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMD\
        AwMDAwMDAwMGExIiwib2lkIjoiMDAwMDAwMDAtMDAwMC0wMDAwLTAwMDAtMDAwMDAwMDAwMGExIiwidGlkIjoidGVuYW50LTEiLC\
        JwcmVmZXJyZWRfdXNlcm5hbWUiOiJhZGFAZXhhbXBsZS5jb20iLCJuYW1lIjoiQWRhIiwiZW1haWwiOiJhZGFAZXhhbXBsZS5jb2\
        0iLCJpYXQiOjE4MDAwMDAwMDAsImV4cCI6MTgwMDAwMzYwMH0.","refreshToken":"refresh-2","signInScopes":[],"ac\
        cessTokens":{"api://r1/read":{"token":"access-r1","expiresOn":1800003600.0,"scopes":["api://r1/read"\
        ]},"":{"token":"access-1","expiresOn":1800003600.0,"scopes":["openid","profile","offline_access"]}}}
        """

    @Test func aRecordWrittenInFormat1IsRestoredAndRewrittenInTheNewLayoutAtTheFirstWrite() async throws {
        let store = RecordingStore([Self.accountKey: Data(Self.format1Record.utf8)])
        let restored = try #require(try await makeClient(store).currentAccount())
        #expect(restored.account.username == "ada@example.com")
        #expect(try await restored.getAccessToken().accessToken == "access-1")
        #expect(try await restored.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-r1")
        #expect(transport.requests.isEmpty)
        #expect(store.writes.isEmpty)
        let migrationStart = store.history.count
        // The first write rewrites it: the account item, the index and a token item.
        answer(3, scope: "openid offline_access")
        _ = try await restored.getAccessToken(forceRefresh: true)
        #expect(formFields(transport.requests.last!).contains("refresh_token=refresh-2"))
        #expect(Set(store.items.keys) == [Self.accountKey, Self.indexKey, Self.tokenKey(["api://r1/read"])])
        let accountItem = String(decoding: try #require(store.items[Self.accountKey]), as: UTF8.self)
        #expect(accountItem.contains("\"version\":2"))
        #expect(!accountItem.contains("access-r1"))
        #expect(accountItem.contains("refresh-3"))
        // Every state on the way holds the account and the newest refresh token.
        for items in store.history.dropFirst(migrationStart) {
            #expect(String(decoding: try #require(items[Self.accountKey]), as: UTF8.self).contains("refresh-3"))
            let again = try #require(try await makeClient(RecordingStore(items)).currentAccount())
            #expect(try await again.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-r1")
        }
        // A later launch reads the new layout, tokens and all, with no request.
        let requests = transport.requests.count
        let relaunched = try #require(try await makeClient(store).currentAccount())
        #expect(try await relaunched.getAccessToken().accessToken == "access-3")
        #expect(try await relaunched.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-r1")
        #expect(transport.requests.count == requests)
    }
}
