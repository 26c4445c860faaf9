import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Storage: file store modes are 0700 and 0600 whatever the umask", .serialized, .hangLimit)
struct StorageFilePermissionTests {
    let scratch = ScratchDirectory()

    func mode(_ url: URL) throws -> mode_t {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return info.st_mode & 0o7777
    }

    /// Runs `body` with the process umask set to `mask`, restoring it afterwards.
    func withUmask(_ mask: mode_t, _ body: () async throws -> Void) async rethrows {
        let previous = umask(mask)
        defer { umask(previous) }
        try await body()
    }

    @Test("With umask 000, the directory and its new parents are 0700 and the file 0600")
    func permissiveUmask() async throws {
        let directory = scratch.url.appendingPathComponent("parent/credentials", isDirectory: true)
        let store = FileCredentialStore(directory: directory)
        try await withUmask(0) {
            try await store.setData(Data("secret".utf8), forKey: "key")
        }
        #expect(try mode(directory) == 0o700)
        #expect(try mode(directory.deletingLastPathComponent()) == 0o700)
        #expect(try mode(store.fileURL(forKey: "key")) == 0o600)
        #expect(try mode(directory.appendingPathComponent(".lock")) == 0o600)
    }

    @Test("A replaced file is 0600 too, with umask 000")
    func replacedFileMode() async throws {
        let store = FileCredentialStore(directory: scratch.storeDirectory)
        try await withUmask(0) {
            try await store.setData(Data("one".utf8), forKey: "key")
            try await store.setData(Data("two".utf8), forKey: "key")
        }
        #expect(try mode(store.fileURL(forKey: "key")) == 0o600)
    }

    @Test("An existing directory of this user with a looser mode is tightened to 0700")
    func tightensExistingDirectory() async throws {
        try FileManager.default.createDirectory(at: scratch.storeDirectory, withIntermediateDirectories: true)
        #expect(chmod(scratch.storeDirectory.path, 0o755) == 0)
        let store = FileCredentialStore(directory: scratch.storeDirectory)
        #expect(try await store.data(forKey: "key") == nil)
        #expect(try mode(scratch.storeDirectory) == 0o755)  // reading changes nothing
        try await store.setData(Data("x".utf8), forKey: "key")
        #expect(try mode(scratch.storeDirectory) == 0o700)
    }

    @Test("A symbolic link in place of the file is refused, not followed")
    func symlinkRefused() async throws {
        let store = FileCredentialStore(directory: scratch.storeDirectory)
        try await store.setData(Data("x".utf8), forKey: "other")
        let outside = scratch.url.appendingPathComponent("outside")
        try Data(CredentialEnvelope.encode(Data("planted".utf8))).write(to: outside)
        try FileManager.default.createSymbolicLink(at: store.fileURL(forKey: "key"), withDestinationURL: outside)
        let error = await #expect(throws: FileCredentialStore.IOError.self) { try await store.data(forKey: "key") }
        #expect(error?.code == ELOOP)
        #expect(error?.operation == "open")
        // Writing replaces the link itself, not its target.
        try await store.setData(Data("mine".utf8), forKey: "key")
        #expect(try await store.data(forKey: "key") == Data("mine".utf8))
        #expect(try CredentialEnvelope.decode(Array(Data(contentsOf: outside))) == Data("planted".utf8))
    }

    @Test("A directory path that is a file gives IOError on read, write and remove")
    func directoryIsAFile() async throws {
        try FileManager.default.createDirectory(at: scratch.url, withIntermediateDirectories: true)
        try Data("not a directory".utf8).write(to: scratch.storeDirectory)
        let store = FileCredentialStore(directory: scratch.storeDirectory)
        let read = await #expect(throws: FileCredentialStore.IOError.self) { try await store.data(forKey: "key") }
        #expect(read?.code == ENOTDIR)
        #expect(read?.key == "key")
        let write = await #expect(throws: FileCredentialStore.IOError.self) {
            try await store.setData(Data("x".utf8), forKey: "key")
        }
        #expect(write?.code == ENOTDIR)
        await #expect(throws: FileCredentialStore.IOError.self) { try await store.removeData(forKey: "key") }
        let description = String(describing: try #require(write))
        #expect(description.contains("errno \(ENOTDIR)"))
        #expect(!description.contains(scratch.url.path))
    }
}
