/// SplitMix64 (Steele, Lea and Flood, 2014): the tests' one seeded generator. Small, fast and
/// seedable: every random case is made from one 64-bit seed, so a failing case replays from its
/// seed alone, and random inputs are the same on every run.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The generator's output function: a well-mixed 64-bit value of `value`.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    // MARK: Uniform choices (through the standard library's `random(in:using:)`)

    /// A uniformly chosen value of `range`.
    public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(UInt64(1) << 53) < p }
    public mutating func pick<T>(_ items: [T]) -> T { items[int(0..<items.count)] }
    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
    public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }

    /// Picks an index by weight.
    public mutating func weighted(_ weights: [Int]) -> Int {
        var roll = int(0..<weights.reduce(0, +))
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }

    // MARK: Choices by remainder (the property tests' sequences are made with these)

    /// A number in `0..<bound`: the next value modulo `bound`.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0)
        return Int(next() % UInt64(bound))
    }

    /// A number in `range`, by ``below(_:)``.
    public mutating func inRange(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.count)
    }

    /// `true` with probability `percent` / 100, by ``below(_:)``.
    public mutating func chance(percent: Int) -> Bool { below(100) < percent }

    /// One of `options`, each with its weight, by ``below(_:)``.
    public mutating func weighted<T>(_ options: [(Int, T)]) -> T {
        let total = options.reduce(0) { $0 + $1.0 }
        var roll = below(total)
        for (weight, value) in options {
            if roll < weight { return value }
            roll -= weight
        }
        return options[options.count - 1].1
    }

    /// One element of a non-empty array, by ``below(_:)``.
    public mutating func element<T>(of options: [T]) -> T { options[below(options.count)] }
}
