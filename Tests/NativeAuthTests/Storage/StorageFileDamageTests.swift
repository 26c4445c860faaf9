import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite(
    "Storage: damaged and future files give typed errors and never affect other keys", .hangLimit,
    .cpuHeavy)
struct StorageFileDamageTests {
    let scratch = ScratchDirectory()
    var store: FileCredentialStore { FileCredentialStore(directory: scratch.storeDirectory) }
    let value = Data("a credential payload".utf8)

    /// Stores a good item under "good", then puts `bytes` in the file of "bad".
    func plant(_ bytes: [UInt8]) async throws {
        try await store.setData(value, forKey: "good")
        try Data(bytes).write(to: store.fileURL(forKey: "bad"))
    }

    func damage(_ bytes: [UInt8]) async throws -> CredentialStoreDamagedError? {
        try await plant(bytes)
        let error = await #expect(throws: CredentialStoreDamagedError.self) { try await store.data(forKey: "bad") }
        #expect(try await store.data(forKey: "good") == value)
        return error
    }

    @Test("A zero-length file is truncated")
    func zeroLength() async throws {
        let error = try await damage([])
        #expect(error?.isTruncated == true)
        #expect(error?.key == "bad")
    }

    @Test("Every proper prefix of an envelope is truncated")
    func everyTruncation() async throws {
        let envelope = CredentialEnvelope.encode(value)
        for length in 0..<envelope.count {
            let error = try await damage(Array(envelope.prefix(length)))
            #expect(error?.isTruncated == true, "length \(length)")
        }
    }

    @Test("Random bytes are not an envelope", arguments: [1, 2, 3, 42, 1234, 99999] as [UInt64])
    func randomBytes(seed: UInt64) async throws {
        var generator = SplitMix64(seed: seed)
        let count = Int.random(in: 1...4096, using: &generator)
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let error = try await damage(bytes)
        #expect(error?.isNotAnEnvelope == true)
    }

    @Test("A flipped payload byte is a checksum mismatch")
    func flippedPayloadByte() async throws {
        var envelope = CredentialEnvelope.encode(value)
        envelope[14 + 5] ^= 0x01
        let error = try await damage(envelope)
        #expect(error?.isChecksumMismatch == true)
    }

    @Test("Any single flipped bit is reported, never read as data")
    func everyFlippedBit() async throws {
        let envelope = CredentialEnvelope.encode(value)
        try await store.setData(value, forKey: "good")
        for index in envelope.indices {
            for bit in 0..<8 {
                var bytes = envelope
                bytes[index] ^= UInt8(1) << bit
                try Data(bytes).write(to: store.fileURL(forKey: "bad"))
                do {
                    let data = try await store.data(forKey: "bad")
                    Issue.record("byte \(index) bit \(bit) read back as \(data?.count ?? -1) bytes")
                } catch is CredentialStoreDamagedError {
                } catch is CredentialStoreVersionError {
                    #expect(index == 8 || index == 9, "only the version field can look like a newer version")
                }
            }
        }
        #expect(try await store.data(forKey: "good") == value)
    }

    @Test("Bytes after the checksum are damage")
    func trailingBytes() async throws {
        let error = try await damage(CredentialEnvelope.encode(value) + [0])
        #expect(error?.reason == "it has bytes past its end")
    }

    @Test("Version 0 is not an envelope")
    func versionZero() async throws {
        var envelope = CredentialEnvelope.encode(value)
        envelope[9] = 0
        #expect(try await damage(envelope)?.isNotAnEnvelope == true)
    }

    @Test("A directory in place of the file is damage, not a crash")
    func directoryInPlace() async throws {
        try await store.setData(value, forKey: "good")
        try FileManager.default.createDirectory(at: store.fileURL(forKey: "bad"), withIntermediateDirectories: false)
        let error = await #expect(throws: CredentialStoreDamagedError.self) { try await store.data(forKey: "bad") }
        #expect(error?.isNotAnEnvelope == true)
    }

    @Test("A file from a newer version is reported, and reading leaves it untouched")
    func futureVersion() async throws {
        // A version 2 file: same header, then whatever version 2 holds.
        let future = CredentialEnvelope.magic + [0x00, 0x02] + Array("whatever version 2 holds".utf8)
        try await plant(future)
        let error = await #expect(throws: CredentialStoreVersionError.self) { try await store.data(forKey: "bad") }
        #expect(error?.version == 2)
        #expect(error?.supportedVersion == 1)
        #expect(error?.key == "bad")
        #expect(try Array(Data(contentsOf: store.fileURL(forKey: "bad"))) == future)
        #expect(try await store.data(forKey: "good") == value)
        // Storing replaces it in the current format.
        try await store.setData(value, forKey: "bad")
        #expect(try await store.data(forKey: "bad") == value)
    }

    @Test("Storing over a damaged file repairs the key; removing deletes it")
    func repair() async throws {
        try await plant([1, 2, 3])
        try await store.setData(value, forKey: "bad")
        #expect(try await store.data(forKey: "bad") == value)
        try Data([1, 2, 3]).write(to: store.fileURL(forKey: "bad"))
        try await store.removeData(forKey: "bad")
        #expect(try await store.data(forKey: "bad") == nil)
    }

    @Test("Descriptions name the key and the problem, never the contents")
    func descriptions() async throws {
        let secret = "refresh-token-SECRET"
        var envelope = CredentialEnvelope.encode(Data(secret.utf8))
        envelope[envelope.count - 1] ^= 0xFF
        let error = try #require(try await damage(envelope))
        for text in [error.description, error.errorDescription ?? "", error.localizedDescription] {
            #expect(text.contains("\"bad\""))
            #expect(text.contains("checksum"))
            #expect(!text.contains("SECRET"))
        }
        let version = CredentialStoreVersionError(key: "k", version: 3, supportedVersion: 1)
        #expect(version.description.contains("version 3"))
    }
}
