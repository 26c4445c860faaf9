/// A 256-bit unsigned integer in four little-endian 64-bit limbs, held inline (no heap): the
/// coordinates and scalars of P-256 and Ed25519.
///
/// Nothing here is constant-time. It is used only to verify signatures, whose inputs (public keys,
/// signatures, messages) are all public, so timing reveals nothing secret.
package struct UInt256: Sendable, Hashable, Comparable {
    /// Limbs 0 (lowest) to 3 (highest), as plain fields so that even an unoptimised build is quick.
    package var w0: UInt64
    package var w1: UInt64
    package var w2: UInt64
    package var w3: UInt64

    /// Zero.
    package static let zero = UInt256(0)

    /// The number with these limbs, lowest first.
    package init(_ w0: UInt64, _ w1: UInt64, _ w2: UInt64, _ w3: UInt64) {
        (self.w0, self.w1, self.w2, self.w3) = (w0, w1, w2, w3)
    }

    /// The small number `value`.
    package init(_ value: UInt64) {
        self.init(value, 0, 0, 0)
    }

    /// The big-endian number `bytes`; `nil` unless there are exactly 32.
    package init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        self.init(littleEndian: bytes.reversed())
    }

    /// The little-endian number `bytes`; `nil` unless there are exactly 32.
    package init?(littleEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var limbs: [UInt64] = [0, 0, 0, 0]
        for (offset, byte) in bytes.enumerated() {
            limbs[offset / 8] |= UInt64(byte) << UInt64((offset % 8) * 8)
        }
        self.init(limbs[0], limbs[1], limbs[2], limbs[3])
    }

    /// The number written in hexadecimal (64 digits at most), for constants; traps on bad text.
    init(hex: String) {
        let digits = Array(hex.utf8)
        precondition(digits.count <= 64)
        var limbs: [UInt64] = [0, 0, 0, 0]
        for (offset, digit) in digits.reversed().enumerated() {
            guard let value = UInt8(String(UnicodeScalar(digit)), radix: 16) else { preconditionFailure() }
            limbs[offset / 16] |= UInt64(value) << UInt64((offset % 16) * 4)
        }
        self.init(limbs[0], limbs[1], limbs[2], limbs[3])
    }

    /// The limbs, lowest first.
    var limbs: [UInt64] { [w0, w1, w2, w3] }

    /// The value as 32 big-endian bytes.
    package var bigEndianBytes: [UInt8] { littleEndianBytes.reversed() }

    /// The value as 32 little-endian bytes.
    package var littleEndianBytes: [UInt8] {
        let limbs = self.limbs
        return (0..<32).map { UInt8(truncatingIfNeeded: limbs[$0 / 8] >> UInt64(($0 % 8) * 8)) }
    }

    /// `true` for zero.
    package var isZero: Bool { w0 | w1 | w2 | w3 == 0 }

    /// `true` when the lowest bit is set.
    package var isOdd: Bool { w0 & 1 == 1 }

    /// Bit `index`, 0 being the lowest; `index` is below 256.
    package func bit(_ index: Int) -> Bool {
        let limb: UInt64
        switch index >> 6 {
        case 0: limb = w0
        case 1: limb = w1
        case 2: limb = w2
        default: limb = w3
        }
        return (limb >> UInt64(index & 63)) & 1 == 1
    }

    package static func < (lhs: UInt256, rhs: UInt256) -> Bool {
        if lhs.w3 != rhs.w3 { return lhs.w3 < rhs.w3 }
        if lhs.w2 != rhs.w2 { return lhs.w2 < rhs.w2 }
        if lhs.w1 != rhs.w1 { return lhs.w1 < rhs.w1 }
        return lhs.w0 < rhs.w0
    }

    /// `lhs + rhs` modulo 2^256, and whether it overflowed.
    package static func adding(_ lhs: UInt256, _ rhs: UInt256) -> (sum: UInt256, carry: Bool) {
        let (s0, c0) = addWithCarry(lhs.w0, rhs.w0, 0)
        let (s1, c1) = addWithCarry(lhs.w1, rhs.w1, c0)
        let (s2, c2) = addWithCarry(lhs.w2, rhs.w2, c1)
        let (s3, c3) = addWithCarry(lhs.w3, rhs.w3, c2)
        return (UInt256(s0, s1, s2, s3), c3 != 0)
    }

    /// `lhs - rhs` modulo 2^256, and whether it borrowed (`rhs` was larger).
    package static func subtracting(_ lhs: UInt256, _ rhs: UInt256) -> (difference: UInt256, borrow: Bool) {
        let (d0, b0) = subtractWithBorrow(lhs.w0, rhs.w0, 0)
        let (d1, b1) = subtractWithBorrow(lhs.w1, rhs.w1, b0)
        let (d2, b2) = subtractWithBorrow(lhs.w2, rhs.w2, b1)
        let (d3, b3) = subtractWithBorrow(lhs.w3, rhs.w3, b2)
        return (UInt256(d0, d1, d2, d3), b3 != 0)
    }

    @inline(__always)
    private static func addWithCarry(_ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (UInt64, UInt64) {
        let (partial, overflow1) = a.addingReportingOverflow(b)
        let (sum, overflow2) = partial.addingReportingOverflow(carry)
        return (sum, (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0))
    }

    @inline(__always)
    private static func subtractWithBorrow(_ a: UInt64, _ b: UInt64, _ borrow: UInt64) -> (UInt64, UInt64) {
        let (partial, overflow1) = a.subtractingReportingOverflow(b)
        let (difference, overflow2) = partial.subtractingReportingOverflow(borrow)
        return (difference, (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0))
    }

    /// The value as a `BigUInt`, for the few conversions done once.
    var big: BigUInt { BigUInt(limbs: limbs) }

    /// The low 256 bits of `value`.
    init(_ value: BigUInt) {
        let limbs = Array(value.limbs.prefix(4)) + [UInt64](repeating: 0, count: max(0, 4 - value.limbs.count))
        self.init(limbs[0], limbs[1], limbs[2], limbs[3])
    }
}

/// Arithmetic modulo an odd 256-bit number p (the primes of P-256 and Ed25519, and their group
/// orders), in Montgomery form with R = 2^256: an element a is held as a·R mod p, so each product
/// needs no division.
///
/// Variable-time, like everything under it: for signature verification, where every input is public.
package struct MontgomeryField: Sendable {
    /// The modulus p.
    package let modulus: UInt256
    /// -p⁻¹ mod 2^64.
    private let inverse: UInt64
    /// R² mod p: multiplying by it brings a number into Montgomery form.
    private let rSquared: UInt256
    /// 1 in Montgomery form (R mod p).
    package let one: UInt256

    /// The field of `modulus`, an odd prime (a constant of this module).
    init(modulus: UInt256) {
        precondition(modulus.isOdd)
        self.modulus = modulus
        let low = modulus.w0
        var inverse = low
        for _ in 0..<5 { inverse = inverse &* (2 &- low &* inverse) }
        self.inverse = 0 &- inverse
        let big = modulus.big
        rSquared = UInt256((BigUInt(1) << 512) % big)
        one = UInt256((BigUInt(1) << 256) % big)
    }

    /// a·R mod p: `value` (any number below 2^256) in Montgomery form.
    package func enter(_ value: UInt256) -> UInt256 { multiply(value, rSquared) }

    /// a mod p, out of Montgomery form.
    package func leave(_ value: UInt256) -> UInt256 { multiply(value, UInt256(1)) }

    /// a·b·R⁻¹ mod p, below p. Correct whenever a·b < R·p: for any two elements, and for any number
    /// below 2^256 times an element (so `enter` and `leave` reduce too).
    package func multiply(_ lhs: UInt256, _ rhs: UInt256) -> UInt256 {
        // CIOS (Koç, Acar and Kaliski, 1996), unrolled: for each limb of rhs, add lhs times it,
        // then add the multiple of p that clears the low limb and drop that limb.
        var t = Accumulator()
        t.step(lhs, rhs.w0, modulus, inverse)
        t.step(lhs, rhs.w1, modulus, inverse)
        t.step(lhs, rhs.w2, modulus, inverse)
        t.step(lhs, rhs.w3, modulus, inverse)
        let result = UInt256(t.t0, t.t1, t.t2, t.t3)
        if t.t4 != 0 || !(result < modulus) { return UInt256.subtracting(result, modulus).difference }
        return result
    }

    /// The five limbs of a Montgomery product under way.
    private struct Accumulator {
        var t0: UInt64 = 0
        var t1: UInt64 = 0
        var t2: UInt64 = 0
        var t3: UInt64 = 0
        var t4: UInt64 = 0

        /// t = (t + a·b + m·p) / 2^64, m chosen so that the division is exact.
        @inline(__always)
        mutating func step(_ a: UInt256, _ b: UInt64, _ p: UInt256, _ inverse: UInt64) {
            var carry: UInt64
            (carry, t0) = multiplyAdd(a.w0, b, t0, 0)
            (carry, t1) = multiplyAdd(a.w1, b, t1, carry)
            (carry, t2) = multiplyAdd(a.w2, b, t2, carry)
            (carry, t3) = multiplyAdd(a.w3, b, t3, carry)
            let (sum, sumOverflow) = t4.addingReportingOverflow(carry)
            let m = t0 &* inverse
            (carry, _) = multiplyAdd(m, p.w0, t0, 0)
            (carry, t0) = multiplyAdd(m, p.w1, t1, carry)
            (carry, t1) = multiplyAdd(m, p.w2, t2, carry)
            (carry, t2) = multiplyAdd(m, p.w3, t3, carry)
            let (last, lastOverflow) = sum.addingReportingOverflow(carry)
            t3 = last
            t4 = (sumOverflow ? 1 : 0) + (lastOverflow ? 1 : 0)
        }
    }

    /// a² (Montgomery form in and out).
    package func square(_ value: UInt256) -> UInt256 { multiply(value, value) }

    /// a + b mod p, for elements below p.
    package func add(_ lhs: UInt256, _ rhs: UInt256) -> UInt256 {
        let (sum, carry) = UInt256.adding(lhs, rhs)
        if carry || !(sum < modulus) { return UInt256.subtracting(sum, modulus).difference }
        return sum
    }

    /// 2a mod p, for an element below p.
    package func double(_ value: UInt256) -> UInt256 { add(value, value) }

    /// a - b mod p, for elements below p.
    package func subtract(_ lhs: UInt256, _ rhs: UInt256) -> UInt256 {
        let (difference, borrow) = UInt256.subtracting(lhs, rhs)
        return borrow ? UInt256.adding(difference, modulus).sum : difference
    }

    /// -a mod p.
    package func negate(_ value: UInt256) -> UInt256 { subtract(.zero, value) }

    /// a^exponent (Montgomery form in and out), by square and multiply from the top bit.
    package func power(_ base: UInt256, _ exponent: UInt256) -> UInt256 {
        var result = one
        for index in stride(from: 255, through: 0, by: -1) {
            result = square(result)
            if exponent.bit(index) { result = multiply(result, base) }
        }
        return result
    }

    /// a⁻¹ = a^(p-2) (Fermat; p is prime for every field here); zero for zero.
    package func invert(_ value: UInt256) -> UInt256 {
        power(value, UInt256.subtracting(modulus, UInt256(2)).difference)
    }
}

/// a·b + c + d, which fits in 128 bits.
@inline(__always)
private func multiplyAdd(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> (high: UInt64, low: UInt64) {
    let product = a.multipliedFullWidth(by: b)
    var (low, overflow) = product.low.addingReportingOverflow(c)
    var high = product.high &+ (overflow ? 1 : 0)
    (low, overflow) = low.addingReportingOverflow(d)
    high &+= overflow ? 1 : 0
    return (high, low)
}
