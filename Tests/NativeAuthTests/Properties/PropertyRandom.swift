import NativeAuthTestSupport

/// The property tests' pseudo-random generator: one per sequence, seeded from the sequence's seed,
/// so a sequence is a pure function of its seed. Its choices are by remainder (`below`,
/// `chance(percent:)`, `element(of:)`, `weighted`), which the recorded seeds depend on.
typealias PropertyRandom = SplitMix64

extension SplitMix64 {
    /// The seed of sequence `index` of a run whose base seed is `base`.
    static func sequenceSeed(base: UInt64, index: Int) -> UInt64 {
        var generator = SplitMix64(seed: base ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }
}
