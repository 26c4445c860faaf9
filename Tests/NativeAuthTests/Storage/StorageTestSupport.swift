import Foundation

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

/// SplitMix64: a seeded generator, so random-bytes tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

extension Data {
    /// `count` bytes that differ for every `seed`.
    static func pattern(seed: Int, count: Int) -> Data {
        var generator = SeededGenerator(seed: UInt64(truncatingIfNeeded: seed))
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
