import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The store's items as a sign-out and a save must treat them when the index cannot be read or
/// was altered: no token item is stranded by a sign-out that reports success, and no item of
/// another client is removed.
@Suite("Account store: an unreadable or altered index", .hangLimit)
struct AccountStoreDamageTests {
    typealias Layout = AccountStoreLayoutTests
    /// The layout tests' client, transport and clock, shared.
    let layout = AccountStoreLayoutTests()

    func makeClient(_ store: any CredentialStore) -> NativeAuthClient { layout.makeClient(store) }
    func signedIn(_ store: RecordingStore) async throws -> UserAccountResult {
        try await layout.signedIn(makeClient(store))
    }
    func answer(_ n: Int, scope: String) { layout.answer(n, scope: scope) }

    @Test func aSignOutThatCannotReadTheIndexKeepsItReportsFailureAndARetryRemovesEverything() async throws {
        let store = RecordingStore()
        let a = try await signedIn(store)
        // Another client on the store lists a scope set that `a` does not know about.
        let b = try #require(try await makeClient(store).currentAccount())
        answer(2, scope: "api://r1/read")
        _ = try await a.getAccessToken(scopes: ["api://r1/read"])
        answer(3, scope: "api://r2/read")
        _ = try await b.getAccessToken(scopes: ["api://r2/read"])
        #expect(store.items[Layout.tokenKey(["api://r2/read"])] != nil)
        store.refuseReads { $0 == Layout.indexKey }
        let first = await a.signOut()
        #expect(first.wasSignedIn)
        #expect(!first.removedFromStore, "the index could not be read: what it lists may be left")
        #expect(store.items[Layout.accountKey] == nil, "the account is gone for every reader")
        #expect(store.items[Layout.indexKey] != nil, "the index stays, so that a retry finds b's item")
        store.refuseReads { _ in false }
        let retry = await a.signOut()
        #expect(retry.removedFromStore)
        #expect(store.items.isEmpty)
    }

    @Test func aSaveThatCannotReadTheIndexStoresTheRotatedRefreshTokenAndTheTokenItemLater() async throws {
        let store = RecordingStore()
        let account = try await signedIn(store)
        store.refuseReads { $0 == Layout.indexKey }
        answer(2, scope: "api://r1/read")
        #expect(try await account.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-2")
        let accountItem = String(decoding: try #require(store.items[Layout.accountKey]), as: UTF8.self)
        #expect(accountItem.contains("refresh-2"), "the rotated refresh token is stored at once")
        #expect(store.items[Layout.indexKey] == nil, "an index that cannot be read is not rewritten blind")
        #expect(store.items[Layout.tokenKey(["api://r1/read"])] == nil, "no token item the index does not list")
        store.refuseReads { _ in false }
        // The next call retries the save: the index, then the token item.
        #expect(try await account.getAccessToken(scopes: ["api://r1/read"]).accessToken == "access-2")
        #expect(store.items[Layout.indexKey] != nil)
        #expect(store.items[Layout.tokenKey(["api://r1/read"])] != nil)
        #expect(await account.signOut().removedFromStore)
        #expect(store.items.isEmpty)
    }

    @Test func anAlteredIndexCannotMakeASignOutRemoveAnotherClientsItems() async throws {
        let store = RecordingStore()
        let account = try await signedIn(store)
        answer(2, scope: "api://r1/read")
        _ = try await account.getAccessToken(scopes: ["api://r1/read"])
        try await store.setData(Data("someone else's".utf8), forKey: "nativeauth.account.client-2")
        try await store.setData(Data("another app's".utf8), forKey: "unrelated")
        let stored = try #require(store.items[Layout.indexKey])
        var index = try AccountStoreLayout.decoder.decode(AccountStoreLayout.Index.self, from: stored)
        index.tokens["x"] = "nativeauth.account.client-2"
        index.tokens["y"] = "unrelated"
        index.tokens["z"] = Layout.accountKey + ".token."
        try await store.setData(AccountStoreLayout.encode(index), forKey: Layout.indexKey)
        let restored = try #require(try await makeClient(store).currentAccount())
        #expect(await restored.signOut().removedFromStore)
        #expect(Set(store.items.keys) == ["nativeauth.account.client-2", "unrelated"])
    }

    @Test func anIndexKeepsOnlyItemsOfItsOwnAccount() throws {
        let key = Layout.accountKey
        let index = AccountStoreLayout.Index(
            session: "s",
            tokens: ["a": key + ".token.00ff", "b": "elsewhere", "c": key, "d": key + ".tokens", "e": key + ".token."])
        let read = try #require(AccountStoreLayout.index(from: AccountStoreLayout.encode(index), accountKey: key))
        #expect(read.tokens == ["a": key + ".token.00ff"])
    }
}
