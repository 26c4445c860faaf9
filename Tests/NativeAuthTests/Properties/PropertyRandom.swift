import Foundation

/// The property tests' own pseudo-random generator (PropertyRandom): one per sequence, seeded from the
/// sequence's seed, so a sequence is a pure function of its seed.
struct PropertyRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next() % UInt64(bound))
    }

    /// A number in `range`.
    mutating func inRange(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// `true` with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    /// One of `options`, each with its weight.
    mutating func weighted<T>(_ options: [(Int, T)]) -> T {
        let total = options.reduce(0) { $0 + $1.0 }
        var roll = below(total)
        for (weight, value) in options {
            if roll < weight { return value }
            roll -= weight
        }
        return options[options.count - 1].1
    }

    /// One element of a non-empty array.
    mutating func pick<T>(_ options: [T]) -> T { options[below(options.count)] }

    /// The seed of sequence `index` of a run whose base seed is `base`.
    static func sequenceSeed(base: UInt64, index: Int) -> UInt64 {
        var generator = PropertyRandom(seed: base ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }
}
