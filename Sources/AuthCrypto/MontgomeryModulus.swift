/// An odd modulus `n` above 1, prepared once for Montgomery multiplication (R = 2^(64·s) for an
/// s-limb modulus), so each exponentiation needs no division.
///
/// Variable-time: for public-key operations only.
package struct MontgomeryModulus: Sendable, Hashable {
    /// The modulus.
    package let modulus: BigUInt
    /// -n⁻¹ mod 2^64.
    private let inverse: UInt64
    /// R² mod n, as `modulus.limbs.count` limbs.
    private let rSquared: [UInt64]

    /// Prepares `modulus`; `nil` when it is even or below 3.
    package init?(_ modulus: BigUInt) {
        guard modulus.isOdd, modulus.bitWidth >= 2, let low = modulus.limbs.first else { return nil }
        self.modulus = modulus
        // Newton's iteration for the inverse modulo 2^64: each step doubles the correct low bits
        // (an odd number is its own inverse modulo 8, so 3 → 6 → 12 → 24 → 48 → 96).
        var inverse = low
        for _ in 0..<5 { inverse = inverse &* (2 &- low &* inverse) }
        self.inverse = 0 &- inverse
        self.rSquared = Self.powerOfTwo(128 * modulus.limbs.count, modulo: modulus.limbs)
    }

    /// `base ^ exponent mod n`; `nil` when `base` has more limbs than the modulus.
    package func power(_ base: BigUInt, _ exponent: BigUInt) -> BigUInt? {
        let count = modulus.limbs.count
        guard base.limbs.count <= count else { return nil }
        guard !exponent.isZero else { return BigUInt(1) }
        // One workspace: modulus, R², base (Montgomery form), accumulator, the number 1, scratch (count + 2).
        let workspace = UnsafeMutablePointer<UInt64>.allocate(capacity: 6 * count + 2)
        defer { workspace.deallocate() }
        workspace.initialize(repeating: 0, count: 6 * count + 2)
        let modulusLimbs = workspace
        let rSquaredLimbs = workspace + count
        let baseLimbs = workspace + 2 * count
        let accumulator = workspace + 3 * count
        let one = workspace + 4 * count
        let scratch = workspace + 5 * count
        for index in 0..<count {
            modulusLimbs[index] = modulus.limbs[index]
            rSquaredLimbs[index] = rSquared[index]
        }
        for (index, limb) in base.limbs.enumerated() { baseLimbs[index] = limb }
        one[0] = 1

        func multiply(_ lhs: UnsafeMutablePointer<UInt64>, _ rhs: UnsafeMutablePointer<UInt64>) {
            Self.multiply(
                lhs, rhs, into: accumulator, modulus: modulusLimbs, inverse: inverse, count: count, scratch: scratch)
        }
        // base·R mod n; valid for any base below R, since base·(R² mod n) < R·n.
        Self.multiply(
            baseLimbs, rSquaredLimbs, into: baseLimbs, modulus: modulusLimbs, inverse: inverse, count: count,
            scratch: scratch)
        accumulator.update(from: baseLimbs, count: count)
        for bit in stride(from: exponent.bitWidth - 2, through: 0, by: -1) {
            multiply(accumulator, accumulator)
            if exponent.bit(bit) { multiply(accumulator, baseLimbs) }
        }
        multiply(accumulator, one)
        return BigUInt(limbs: Array(UnsafeBufferPointer(start: accumulator, count: count)))
    }

    /// The width of the window of ``power(_:secretExponent:bits:)``: 16 table entries.
    static let windowBits = 4

    /// `base ^ exponent mod n` for a secret exponent (an RSA private exponent, or the exponent of a
    /// Miller–Rabin round on a secret prime candidate); `nil` when `base` is not below the modulus,
    /// or `exponent` has more than `bits` bits.
    ///
    /// A fixed window over exactly `bits` bits of the exponent, leading zeros included: four
    /// squarings and one multiplication per window, also for a zero digit, so the sequence of
    /// operations depends on `bits` alone. Each table entry is read by a masked scan of the whole
    /// table, the exponent's digits are read from a buffer of fixed length, and the multiplication
    /// subtracts the modulus without branching on the values. That is as close to constant time as
    /// this code gets; the compiler is not prevented from adding branches, and nothing has checked
    /// the machine code, so callers that need more blind their inputs (as `RSAPrivateKey` does).
    package func power(_ base: BigUInt, secretExponent exponent: BigUInt, bits: Int) -> BigUInt? {
        let count = modulus.limbs.count
        guard base < modulus, bits > 0, exponent.bitWidth <= bits else { return nil }
        let tableSize = 1 << Self.windowBits
        let exponentLimbCount = (bits + 63) / 64
        // Workspace: modulus, R², the number 1, accumulator, selected entry, table, scratch (count + 2).
        let capacity = (6 + tableSize) * count + 2
        let workspace = UnsafeMutablePointer<UInt64>.allocate(capacity: capacity)
        defer {
            workspace.update(repeating: 0, count: capacity)
            workspace.deallocate()
        }
        workspace.initialize(repeating: 0, count: capacity)
        let modulusLimbs = workspace
        let rSquaredLimbs = workspace + count
        let one = workspace + 2 * count
        let accumulator = workspace + 3 * count
        let selected = workspace + 4 * count
        let table = workspace + 5 * count
        let scratch = workspace + (5 + tableSize) * count
        for index in 0..<count {
            modulusLimbs[index] = modulus.limbs[index]
            rSquaredLimbs[index] = rSquared[index]
        }
        one[0] = 1
        var exponentLimbs = [UInt64](repeating: 0, count: exponentLimbCount)
        defer { exponentLimbs.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        for (index, limb) in exponent.limbs.enumerated() { exponentLimbs[index] = limb }

        func multiply(_ lhs: UnsafeMutablePointer<UInt64>, _ rhs: UnsafeMutablePointer<UInt64>) {
            Self.multiply(
                lhs, rhs, into: lhs, modulus: modulusLimbs, inverse: inverse, count: count, scratch: scratch)
        }
        // table[i] = base^i · R mod n: table[0] is 1 in Montgomery form, table[1] the base.
        table.update(from: one, count: count)
        Self.multiply(
            table, rSquaredLimbs, into: table, modulus: modulusLimbs, inverse: inverse, count: count, scratch: scratch)
        for (index, limb) in base.limbs.enumerated() { table[count + index] = limb }
        Self.multiply(
            table + count, rSquaredLimbs, into: table + count, modulus: modulusLimbs, inverse: inverse, count: count,
            scratch: scratch)
        for entry in 2..<tableSize {
            Self.multiply(
                table + (entry - 1) * count, table + count, into: table + entry * count, modulus: modulusLimbs,
                inverse: inverse, count: count, scratch: scratch)
        }
        accumulator.update(from: table, count: count)
        let windows = (bits + Self.windowBits - 1) / Self.windowBits
        for window in stride(from: windows - 1, through: 0, by: -1) {
            for _ in 0..<Self.windowBits { multiply(accumulator, accumulator) }
            // The digit: bits are never read past the buffer, so their position is all that shows.
            var digit = 0
            for offset in 0..<Self.windowBits {
                let position = window * Self.windowBits + offset
                guard position < exponentLimbCount * 64 else { break }
                digit |= Int((exponentLimbs[position / 64] >> UInt64(position % 64)) & 1) << offset
            }
            selected.update(repeating: 0, count: count)
            for entry in 0..<tableSize {
                let mask = 0 &- Self.bit(entry == digit)
                let row = table + entry * count
                for index in 0..<count { selected[index] |= row[index] & mask }
            }
            multiply(accumulator, selected)
        }
        multiply(accumulator, one)
        return BigUInt(limbs: Array(UnsafeBufferPointer(start: accumulator, count: count)))
    }

    /// `result = lhs · rhs · R⁻¹ mod n` (CIOS method). Needs `lhs < R`, `rhs < n` and `lhs · rhs < R · n`;
    /// the result is fully reduced. `result` may be `lhs` or `rhs`; `scratch` holds `count + 2` limbs.
    private static func multiply(
        _ lhs: UnsafeMutablePointer<UInt64>, _ rhs: UnsafeMutablePointer<UInt64>,
        into result: UnsafeMutablePointer<UInt64>, modulus: UnsafeMutablePointer<UInt64>, inverse: UInt64,
        count: Int, scratch: UnsafeMutablePointer<UInt64>
    ) {
        scratch.update(repeating: 0, count: count + 2)
        for outer in 0..<count {
            // scratch += lhs[outer] · rhs
            let factor = lhs[outer]
            var carry: UInt64 = 0
            for inner in 0..<count {
                let (high, low) = factor.multipliedFullWidth(by: rhs[inner])
                let partial = low &+ scratch[inner]
                let sum = partial &+ carry
                scratch[inner] = sum
                // high ≤ 2^64 - 2, so adding two carries cannot overflow. (`bit(_:)` says why the
                // carries are not written `flag ? 1 : 0`.)
                carry = high &+ Self.bit(partial < low) &+ Self.bit(sum < partial)
            }
            let (top, topOverflow) = scratch[count].addingReportingOverflow(carry)
            scratch[count] = top
            scratch[count + 1] = topOverflow ? 1 : 0
            // scratch = (scratch + m · n) / 2^64, with m chosen so the low limb becomes zero.
            let m = scratch[0] &* inverse
            let (high0, low0) = m.multipliedFullWidth(by: modulus[0])
            carry = high0 &+ (low0.addingReportingOverflow(scratch[0]).overflow ? 1 : 0)
            for inner in 1..<count {
                let (high, low) = m.multipliedFullWidth(by: modulus[inner])
                let partial = low &+ scratch[inner]
                let sum = partial &+ carry
                scratch[inner - 1] = sum
                carry = high &+ Self.bit(partial < low) &+ Self.bit(sum < partial)
            }
            let (sum, overflow) = scratch[count].addingReportingOverflow(carry)
            scratch[count - 1] = sum
            scratch[count] = scratch[count + 1] &+ (overflow ? 1 : 0)
        }
        // scratch < 2n: subtract n once if scratch ≥ n, without a branch on the values (the
        // difference goes to `result`, which the loop above no longer reads, then the mask picks).
        var borrow: UInt64 = 0
        for index in 0..<count {
            let (partial, borrow1) = scratch[index].subtractingReportingOverflow(modulus[index])
            let (difference, borrow2) = partial.subtractingReportingOverflow(borrow)
            result[index] = difference
            borrow = Self.bit(borrow1) | Self.bit(borrow2)
        }
        // scratch - n ≥ 0 exactly when the top limb covers the borrow.
        let keepDifference = 0 &- Self.bit(scratch[count] >= borrow)
        for index in 0..<count {
            result[index] = (result[index] & keepDifference) | (scratch[index] & ~keepDifference)
        }
    }

    /// 1 for `true`, 0 for `false`, without a branch: a `Bool` is one byte holding 0 or 1. Written
    /// `flag ? 1 : 0`, the compiler emits branches in the multiplication loops, which measured about
    /// four times slower on random-looking carries.
    @inline(__always)
    private static func bit(_ flag: Bool) -> UInt64 {
        UInt64(unsafeBitCast(flag, to: UInt8.self))
    }

    /// 2^`exponent` mod `modulus` (little-endian limbs, odd, above 1), by repeated modular doubling.
    private static func powerOfTwo(_ exponent: Int, modulo modulus: [UInt64]) -> [UInt64] {
        let count = modulus.count
        var value = [UInt64](repeating: 0, count: count)
        value[0] = 1
        for _ in 0..<exponent {
            var carry: UInt64 = 0
            for index in 0..<count {
                let next = value[index] >> 63
                value[index] = value[index] << 1 | carry
                carry = next
            }
            // value < n before doubling, so 2·value < 2n: one subtraction reduces it (the carried-out
            // top bit is dropped by the wrapping subtraction, which is what reduction needs).
            if carry != 0 || BigUInt.compare(value, modulus) >= 0 {
                var borrow = false
                for index in 0..<count {
                    let (partial, borrow1) = value[index].subtractingReportingOverflow(modulus[index])
                    let (difference, borrow2) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
                    value[index] = difference
                    borrow = borrow1 || borrow2
                }
            }
        }
        return value
    }
}
