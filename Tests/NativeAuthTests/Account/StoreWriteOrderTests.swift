import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A recording store whose writes of one key wait at a gate the test opens: a save of several
/// items can be held between two of its writes. A write held for the test bound without the gate
/// opening fails instead of hanging.
final class GatedWriteStore: CredentialStore, Sendable {
    let base = RecordingStore()
    private let gatedKey: String
    private let gate = Locked<(open: Bool, held: Int)>((false, 0))

    init(gatingWritesOf key: String) { gatedKey = key }

    var held: Int { gate.current.held }
    func open() { gate.withLock { $0.open = true } }

    func data(forKey key: String) async throws -> Data? { try await base.data(forKey: key) }
    func removeData(forKey key: String) async throws { try await base.removeData(forKey: key) }

    func setData(_ data: Data, forKey key: String) async throws {
        if key == gatedKey {
            gate.withLock { $0.held += 1 }
            await waitUntil("the gate for \(key) to open") { gate.current.open }
        }
        try await base.setData(data, forKey: key)
    }
}

@Suite("Account store: one write at a time", .hangLimit)
struct StoreWriteOrderTests {
    @Test func aSignOutDuringASaveOfSeveralItemsLeavesNothingBehind() async throws {
        let layout = AccountStoreLayoutTests()
        let store = GatedWriteStore(gatingWritesOf: AccountStoreLayoutTests.indexKey)
        let account = try await layout.signedIn(layout.makeClient(store))
        // A refresh for a new scope set: the index is written first, and held there.
        layout.answer(2, scope: "api://r2/read")
        let refresh = Task { try? await account.getAccessToken(scopes: ["api://r2/read"]) }
        await waitUntil("the index write to be held") { store.held == 1 }
        let signOut = Task { await account.signOut() }
        // The sign-out waits for the save to finish rather than running between its writes.
        try await requireEventually("the sign-out to wait for the store") {
            await account.manager.storeWaiters.count == 1
        }
        store.open()
        _ = await refresh.value
        let result = await signOut.value
        #expect(result.wasSignedIn)
        #expect(result.removedFromStore)
        #expect(store.base.items.isEmpty, "left in the store: \(store.base.items.keys.sorted())")
    }
}
