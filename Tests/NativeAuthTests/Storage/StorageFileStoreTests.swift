import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Storage: file store keeps, replaces and removes items", .hangLimit)
struct StorageFileStoreTests {
    let scratch = ScratchDirectory()
    var store: FileCredentialStore { FileCredentialStore(directory: scratch.storeDirectory) }

    @Test("What is stored reads back, in a fresh store value too")
    func roundTrip() async throws {
        let value = Data.pattern(seed: 1, count: 300)
        try await store.setData(value, forKey: "nativeauth.account.client")
        #expect(try await store.data(forKey: "nativeauth.account.client") == value)
        #expect(
            try await FileCredentialStore(directory: scratch.storeDirectory).data(forKey: "nativeauth.account.client")
                == value)
    }

    @Test("Empty data and a 1 MiB item round-trip")
    func sizes() async throws {
        try await store.setData(Data(), forKey: "empty")
        let large = Data.pattern(seed: 2, count: 1 << 20)
        try await store.setData(large, forKey: "large")
        #expect(try await store.data(forKey: "empty") == Data())
        #expect(try await store.data(forKey: "large") == large)
    }

    @Test("An item over 16 MiB is refused with EFBIG and nothing is written")
    func tooLarge() async throws {
        let error = await #expect(throws: FileCredentialStore.IOError.self) {
            try await store.setData(Data(count: CredentialEnvelope.maximumPayloadSize + 1), forKey: "huge")
        }
        #expect(error?.code == EFBIG)
        #expect(!FileManager.default.fileExists(atPath: scratch.storeDirectory.path))
    }

    @Test("Storing again replaces the item, shorter or longer")
    func overwrite() async throws {
        try await store.setData(Data.pattern(seed: 3, count: 500), forKey: "key")
        try await store.setData(Data("short".utf8), forKey: "key")
        #expect(try await store.data(forKey: "key") == Data("short".utf8))
        let longer = Data.pattern(seed: 4, count: 5000)
        try await store.setData(longer, forKey: "key")
        #expect(try await store.data(forKey: "key") == longer)
        #expect(try store.directoryNames() == [".lock", FileCredentialStore.fileName(forKey: "key")])
    }

    @Test("Removing deletes the file; removing again, or from a missing directory, is fine")
    func remove() async throws {
        try await store.removeData(forKey: "key")
        #expect(!FileManager.default.fileExists(atPath: scratch.storeDirectory.path))
        try await store.setData(Data("one".utf8), forKey: "key")
        try await store.setData(Data("two".utf8), forKey: "other")
        try await store.removeData(forKey: "key")
        try await store.removeData(forKey: "key")
        #expect(try await store.data(forKey: "key") == nil)
        #expect(try await store.data(forKey: "other") == Data("two".utf8))
        #expect(!FileManager.default.fileExists(atPath: store.fileURL(forKey: "key").path))
    }

    @Test("A missing key, or a missing directory, reads as nil and creates nothing")
    func missing() async throws {
        #expect(try await store.data(forKey: "nothing") == nil)
        #expect(!FileManager.default.fileExists(atPath: scratch.storeDirectory.path))
        try await store.setData(Data("x".utf8), forKey: "something")
        #expect(try await store.data(forKey: "nothing") == nil)
    }

    @Test("Any key maps to a distinct file inside the directory, never outside it")
    func weirdKeys() async throws {
        let keys = [
            "", ".", "..", "../x", "../../etc/passwd", "a/b", "/abs", "a\\b", "A", "a", "ÅSE", "åse",
            "e\u{301}", "\u{e9}", "日本語のキー", "🔑", "nul\u{0}byte", "new\nline", "space key", ".lock", "x.tmp",
            String(repeating: "k", count: 1000), String(repeating: "k", count: 1001),
            String(repeating: "é", count: 500),
            String(repeating: "a", count: 100), String(repeating: "a", count: 101),
        ]
        let names = keys.map(FileCredentialStore.fileName(forKey:))
        #expect(Set(names).count == keys.count)
        for name in names {
            #expect(!name.contains("/"))
            #expect(name.utf8.count + 22 <= 255)  // with the temporary suffix too
            #expect(name.hasSuffix(".credential"))
            #expect(name == name.lowercased())
        }
        for (index, key) in keys.enumerated() {
            try await store.setData(Data("value \(index)".utf8), forKey: key)
        }
        for (index, key) in keys.enumerated() {
            #expect(try await store.data(forKey: key) == Data("value \(index)".utf8), "key #\(index)")
        }
        #expect(try store.directoryNames() == (names + [".lock"]).sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["store"])
    }

    @Test("File names are pinned: short keys as hex, long keys as SHA-256")
    func fileNames() {
        #expect(FileCredentialStore.fileName(forKey: "a/b") == "k612f62.credential")
        #expect(FileCredentialStore.fileName(forKey: "") == "k.credential")
        let long = FileCredentialStore.fileName(forKey: String(repeating: "a", count: 1000))
        #expect(long == "h41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3.credential")
        let temporary = FileCredentialStore.temporaryName(for: "k61.credential")
        #expect(temporary.hasPrefix("k61.credential.") && temporary.hasSuffix(".tmp") && temporary.count == 35)
    }

    @Test("The directory and its missing parents are created on first write")
    func nestedDirectory() async throws {
        let nested = scratch.url.appendingPathComponent("a/b/c", isDirectory: true)
        let store = FileCredentialStore(directory: nested)
        try await store.setData(Data("x".utf8), forKey: "key")
        #expect(try await store.data(forKey: "key") == Data("x".utf8))
    }

    #if os(Linux)
        @Test("The default directory follows XDG_DATA_HOME, else ~/.local/share")
        func defaultDirectory() {
            let xdg = FileCredentialStore.defaultDirectory(
                applicationName: "MyApp", environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/ada"])
            #expect(xdg.path == "/data/MyApp/credentials")
            let home = FileCredentialStore.defaultDirectory(
                applicationName: "MyApp", environment: ["HOME": "/home/ada"])
            #expect(home.path == "/home/ada/.local/share/MyApp/credentials")
            let relative = FileCredentialStore.defaultDirectory(
                applicationName: "MyApp", environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/ada"])
            #expect(relative.path == "/home/ada/.local/share/MyApp/credentials")
            let empty = FileCredentialStore.defaultDirectory(
                applicationName: "MyApp", environment: ["XDG_DATA_HOME": "", "HOME": "/home/ada"])
            #expect(empty.path == "/home/ada/.local/share/MyApp/credentials")
            let slashed = FileCredentialStore.defaultDirectory(
                applicationName: "../evil/app", environment: ["XDG_DATA_HOME": "/data"])
            #expect(slashed.path == "/data/.._evil_app/credentials")
            let dots = FileCredentialStore.defaultDirectory(
                applicationName: "..", environment: ["XDG_DATA_HOME": "/data"])
            #expect(dots.path == "/data/_../credentials")
            #expect(FileCredentialStore.defaultDirectory(applicationName: "MyApp").path.hasSuffix("/MyApp/credentials"))
        }
    #endif
}
