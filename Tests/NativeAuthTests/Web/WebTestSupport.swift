import Foundation
import NativeAuthTestSupport

@testable import AuthSupport
@testable import NativeAuth

/// A deterministic ``WebRandomSource`` (SplitMix64), safe to share between tasks.
final class SeededWebRandom: WebRandomSource, Sendable {
    private let generator: Locked<SplitMix64>

    init(seed: UInt64) { generator = Locked(SplitMix64(seed: seed)) }

    func next() -> UInt64 { generator.withLock { $0.next() } }
}
