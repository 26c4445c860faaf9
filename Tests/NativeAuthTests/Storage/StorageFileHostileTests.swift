import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store directory that is a symbolic link is used but never tightened (that would change the
/// mode of whatever it points at); a planted lock file gets an error that says what to remove, and
/// the signed-in account is still reported.
@Suite("Storage: symlinked directories and planted lock files", .serialized, .hangLimit)
struct StorageFileHostileTests {
    let scratch = ScratchDirectory()

    func mode(_ path: String) -> mode_t {
        var info = stat()
        _ = stat(path, &info)
        return info.st_mode & 0o7777
    }

    @Test func symlinkedDirectoryIsNeverChmodded() async throws {
        let target = scratch.url.appendingPathComponent("shared", isDirectory: true)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        #expect(chmod(target.path, 0o755) == 0)
        let link = scratch.url.appendingPathComponent("credentials")
        #expect(symlink(target.path, link.path) == 0)
        let store = FileCredentialStore(directory: link)
        try await store.setData(Data("secret".utf8), forKey: "key")
        #expect(try await store.data(forKey: "key") == Data("secret".utf8))
        #expect(mode(target.path) == 0o755, "the link's target kept its mode")
    }

    @Test(arguments: ["symlink", "directory"])
    func plantedLockFileIsNamedAndTheAccountStillReported(kind: String) async throws {
        let directory = scratch.url.appendingPathComponent("credentials-\(kind)", isDirectory: true)
        let store = FileCredentialStore(directory: directory)
        var configuration = testConfiguration()
        configuration.clock = TestClock()
        let transport = ScriptedTransport()
        let client = NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store)
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", .tokens())
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "pw"))
        let lock = directory.appendingPathComponent(".lock").path
        #expect(unlink(lock) == 0)
        if kind == "symlink" {
            #expect(symlink(scratch.url.appendingPathComponent("elsewhere").path, lock) == 0)
        } else {
            #expect(mkdir(lock, 0o700) == 0)
        }
        do {
            try await store.setData(Data("x".utf8), forKey: "other")
            Issue.record("expected an error")
        } catch let error as FileCredentialStore.IOError {
            #expect(error.isLockFileUnusable)
            #expect(error.description.contains("remove it"))
            #expect(!error.description.contains(scratch.url.path))
        }
        let restored = NativeAuthClient(
            configuration: configuration, transport: ScriptedTransport(), credentialStore: store)
        #expect(try await restored.currentAccount()?.account.username == "ada@example.com")
    }
}
