import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite(
    "Storage: a write killed at any step leaves the old item or the new one, never a mixture", .hangLimit)
struct StorageFileAtomicityTests {
    let scratch = ScratchDirectory()
    let old = Data.pattern(seed: 10, count: 2000)
    let new = Data.pattern(seed: 11, count: 3000)

    func store(crashingAt step: WriteStep? = nil, staleAfter age: TimeInterval = 60) -> FileCredentialStore {
        FileCredentialStore(directory: scratch.storeDirectory, crashPoint: step, staleTemporaryFileAge: age)
    }

    @Test(
        "Killed before the rename: the old item reads back; after it: the new one",
        arguments: [
            (WriteStep.halfTemporaryFileWritten, false), (WriteStep.temporaryFileSynced, false),
            (WriteStep.renamed, true),
        ])
    func crashPoints(step: WriteStep, newIsVisible: Bool) async throws {
        try await store().setData(old, forKey: "key")
        await #expect(throws: SimulatedCrash.self) { try await store(crashingAt: step).setData(new, forKey: "key") }
        #expect(try await store().data(forKey: "key") == (newIsVisible ? new : old))
        #expect(try store().temporaryNames().count == (newIsVisible ? 0 : 1))
    }

    @Test("Killed during the very first write: the key still reads as nil")
    func crashOnFirstWrite() async throws {
        await #expect(throws: SimulatedCrash.self) {
            try await store(crashingAt: .halfTemporaryFileWritten).setData(new, forKey: "key")
        }
        #expect(try await store().data(forKey: "key") == nil)
        let partial = try #require(try store().temporaryNames().first)
        let size =
            try FileManager.default.attributesOfItem(
                atPath: scratch.storeDirectory.appendingPathComponent(partial).path)[.size] as? Int
        #expect(size == (new.count + CredentialEnvelope.overhead) / 2)
    }

    @Test("Garbage and truncated temporary files are ignored by reads")
    func plantedTemporaryFiles() async throws {
        let store = store()
        try await store.setData(old, forKey: "key")
        let name = FileCredentialStore.fileName(forKey: "key")
        let envelope = CredentialEnvelope.encode(new)
        try Data(envelope.prefix(envelope.count / 3))
            .write(to: scratch.storeDirectory.appendingPathComponent(FileCredentialStore.temporaryName(for: name)))
        try Data.pattern(seed: 12, count: 100)
            .write(to: scratch.storeDirectory.appendingPathComponent(FileCredentialStore.temporaryName(for: name)))
        #expect(try await store.data(forKey: "key") == old)
        #expect(try store.temporaryNames().count == 2)
    }

    @Test("A later write deletes stale temporary files and keeps recent ones")
    func staleCleanup() async throws {
        await #expect(throws: SimulatedCrash.self) {
            try await store(crashingAt: .temporaryFileSynced).setData(old, forKey: "key")
        }
        #expect(try store().temporaryNames().count == 1)
        try await store().setData(new, forKey: "other")  // the leftover is seconds old: kept
        #expect(try store().temporaryNames().count == 1)
        try await store(staleAfter: 0).setData(new, forKey: "other")
        #expect(try store().temporaryNames().isEmpty)
        #expect(try await store().data(forKey: "key") == nil)
        #expect(try await store().data(forKey: "other") == new)
    }

    @Test("A failed rename leaves no temporary file behind")
    func failedWriteCleansUp() async throws {
        let store = store()
        try await store.setData(old, forKey: "key")
        // A directory where the file should be makes the rename fail.
        try FileManager.default.removeItem(at: store.fileURL(forKey: "key"))
        try FileManager.default.createDirectory(
            at: store.fileURL(forKey: "key").appendingPathComponent("inner"), withIntermediateDirectories: true)
        let error = await #expect(throws: FileCredentialStore.IOError.self) {
            try await store.setData(new, forKey: "key")
        }
        #expect(error?.operation == "rename")
        #expect(try store.temporaryNames().isEmpty)
    }
}
