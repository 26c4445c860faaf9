import Foundation
import NativeAuthTestSupport

@testable import NativeAuth

/// A fresh directory under the system's temporary directory, deleted with everything in it when
/// the value goes away. Each test holds its own.
final class ScratchDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("nativeauth-storage-tests-\(UUID().uuidString)", isDirectory: true)
    }

    /// The store directory inside the scratch directory (not created).
    var storeDirectory: URL { url.appendingPathComponent("store", isDirectory: true) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

extension FileCredentialStore {
    /// The path of the file that holds `key`.
    func fileURL(forKey key: String) -> URL {
        directory.appendingPathComponent(Self.fileName(forKey: key), isDirectory: false)
    }

    /// The names in the store's directory, sorted.
    func directoryNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// Leftover temporary files in the store's directory.
    func temporaryNames() throws -> [String] { try directoryNames().filter { $0.hasSuffix(".tmp") } }
}

extension Data {
    /// `count` bytes that differ for every `seed`.
    static func pattern(seed: Int, count: Int) -> Data {
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: seed))
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
