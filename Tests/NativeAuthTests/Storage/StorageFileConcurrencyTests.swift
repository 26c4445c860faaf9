import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Storage: file store under concurrent writers and readers", .hangLimit)
struct StorageFileConcurrencyTests {
    let scratch = ScratchDirectory()

    /// The value write `index` stores: its size and bytes differ for every write.
    static func value(_ index: Int) -> Data { Data.pattern(seed: index, count: 500 + (index * 37) % 3000) }

    @Test("200 interleaved writes from 2 store values over 4 keys: every read is one whole written value")
    func interleavedWrites() async throws {
        // Two spellings of one directory: the stores share it without knowing.
        let stores = [
            FileCredentialStore(directory: scratch.storeDirectory),
            FileCredentialStore(directory: scratch.storeDirectory.appendingPathComponent(".", isDirectory: true)),
        ]
        let keys = (0..<4).map { "nativeauth.account.client-\($0)" }
        let writes = 200
        let written = Dictionary(grouping: 0..<writes) { keys[$0 % keys.count] }
            .mapValues { Set($0.map(Self.value)) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<writes {
                group.addTask {
                    try await stores[index % 2].setData(Self.value(index), forKey: keys[index % keys.count])
                }
                group.addTask {
                    let key = keys[(index * 7) % keys.count]
                    if let data = try await stores[(index + 1) % 2].data(forKey: key) {
                        #expect(written[key]?.contains(data) == true, "a read of \(key) gave bytes never written")
                    }
                }
            }
            try await group.waitForAll()
        }

        for key in keys {
            let final = try #require(try await stores[0].data(forKey: key))
            #expect(written[key]?.contains(final) == true)
            #expect(try await stores[1].data(forKey: key) == final)
        }
        #expect(try stores[0].temporaryNames().isEmpty)
        #expect(try stores[0].directoryNames().count == keys.count + 1)
    }

    @Test("Writes and removals racing on one key end in a whole value or nothing")
    func writesAndRemovals() async throws {
        let store = FileCredentialStore(directory: scratch.storeDirectory)
        let values = Set((0..<50).map(Self.value))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { try await store.setData(Self.value(index), forKey: "key") }
                if index % 3 == 0 { group.addTask { try await store.removeData(forKey: "key") } }
                group.addTask {
                    if let data = try await store.data(forKey: "key") { #expect(values.contains(data)) }
                }
            }
            try await group.waitForAll()
        }
        if let data = try await store.data(forKey: "key") { #expect(values.contains(data)) }
        #expect(try store.temporaryNames().isEmpty)
    }

    @Test("A writer waits for the directory lock another process holds; readers do not")
    func crossProcessLock() async throws {
        let store = FileCredentialStore(directory: scratch.storeDirectory)
        try await store.setData(Data("old".utf8), forKey: "key")

        // An open file description of its own, as another process would have.
        let descriptor = open(scratch.storeDirectory.appendingPathComponent(".lock").path, O_RDWR)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(flock(descriptor, LOCK_EX) == 0)

        let finished = Locked(false)
        let writer = Task {
            try await store.setData(Data("new".utf8), forKey: "key")
            finished.withLock { $0 = true }
        }
        try await Self.waitUntilBlocked(onLockAt: scratch.storeDirectory.appendingPathComponent(".lock"))
        #expect(finished.current == false, "the write went ahead while another process held the lock")
        #expect(try await store.data(forKey: "key") == Data("old".utf8))

        flock(descriptor, LOCK_UN)
        try await writer.value
        #expect(finished.current)
        #expect(try await store.data(forKey: "key") == Data("new".utf8))
    }

    /// Waits until a writer is blocked on the `flock(2)` of the file at `url`. On Linux the kernel
    /// lists every blocked waiter in `/proc/locks` (a line with `->` and the file's inode): the
    /// wait ends on that event. Elsewhere nothing shows it, and the check can only be given time:
    /// a write that wrongly went ahead has done so within a few hundred milliseconds, and a busy
    /// machine can only make the check pass more easily, never fail.
    static func waitUntilBlocked(onLockAt url: URL) async throws {
        #if os(Linux)
            var info = stat()
            try #require(stat(url.path, &info) == 0)
            let inode = ":\(info.st_ino) "
            try await requireUntil("a writer blocked on the directory lock") {
                let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
                return locks.split(separator: "\n").contains { $0.contains("->") && $0.contains(inode) }
            }
        #else
            try await Task.sleep(for: .milliseconds(300))
        #endif
    }
}
