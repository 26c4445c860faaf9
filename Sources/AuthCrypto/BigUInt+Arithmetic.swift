/// The arithmetic RSA key generation and signing need beyond modular exponentiation: addition,
/// subtraction, multiplication, shifts, long division, the greatest common divisor and random
/// numbers (the modular inverse is in BigUInt+Inverse.swift).
///
/// Like the rest of `BigUInt`, nothing here is constant-time: the running time depends on the
/// values. `RSAPrivateKey` says where it uses these on secret values and what that leaks.
extension BigUInt {
    /// The sum.
    package static func + (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        let (long, short) = lhs.limbs.count >= rhs.limbs.count ? (lhs.limbs, rhs.limbs) : (rhs.limbs, lhs.limbs)
        var sum = long + [0]
        var carry: UInt64 = 0
        for index in 0..<long.count {
            let (partial, overflow1) = sum[index].addingReportingOverflow(index < short.count ? short[index] : 0)
            let (total, overflow2) = partial.addingReportingOverflow(carry)
            sum[index] = total
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        sum[long.count] = carry
        return BigUInt(limbs: sum)
    }

    /// The difference; `lhs` must not be below `rhs` (like `UInt`, the subtraction traps otherwise).
    package static func - (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        precondition(!(lhs < rhs), "BigUInt subtraction would be negative")
        var difference = lhs.limbs
        subtract(rhs.limbs, from: &difference)
        return BigUInt(limbs: difference)
    }

    /// The product (schoolbook multiplication).
    package static func * (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        guard !lhs.isZero, !rhs.isZero else { return .zero }
        var product = [UInt64](repeating: 0, count: lhs.limbs.count + rhs.limbs.count)
        for (outer, factor) in lhs.limbs.enumerated() {
            var carry: UInt64 = 0
            for (inner, limb) in rhs.limbs.enumerated() {
                let (high, low) = factor.multipliedFullWidth(by: limb)
                let (partial, overflow1) = low.addingReportingOverflow(product[outer + inner])
                let (total, overflow2) = partial.addingReportingOverflow(carry)
                product[outer + inner] = total
                // high ≤ 2^64 - 2, so the two carries cannot overflow it.
                carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
            }
            product[outer + rhs.limbs.count] = carry
        }
        return BigUInt(limbs: product)
    }

    /// The quotient, rounded down; `rhs` must not be zero (like `UInt`, the division traps otherwise).
    package static func / (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        lhs.quotientAndRemainder(dividingBy: rhs).quotient
    }

    /// The remainder; `rhs` must not be zero (like `UInt`, the division traps otherwise).
    package static func % (lhs: BigUInt, rhs: BigUInt) -> BigUInt {
        lhs.quotientAndRemainder(dividingBy: rhs).remainder
    }

    /// The value shifted left by `count` bits (multiplied by 2^count); `count` must not be negative.
    package static func << (lhs: BigUInt, count: Int) -> BigUInt {
        precondition(count >= 0, "negative shift")
        guard !lhs.isZero else { return .zero }
        let (whole, bits) = count.quotientAndRemainder(dividingBy: 64)
        var shifted = [UInt64](repeating: 0, count: whole) + shiftLeft(lhs.limbs, by: bits)
        while shifted.last == 0 { shifted.removeLast() }
        return BigUInt(limbs: shifted)
    }

    /// The value shifted right by `count` bits (divided by 2^count, rounded down).
    package static func >> (lhs: BigUInt, count: Int) -> BigUInt {
        precondition(count >= 0, "negative shift")
        let (whole, bits) = count.quotientAndRemainder(dividingBy: 64)
        guard whole < lhs.limbs.count else { return .zero }
        let kept = Array(lhs.limbs[whole...])
        var shifted = [UInt64](repeating: 0, count: kept.count)
        for index in kept.indices {
            let next = index + 1 < kept.count ? kept[index + 1] : 0
            // `<<` by 64 gives 0 in Swift, which is what a shift by a whole limb needs.
            shifted[index] = kept[index] >> UInt64(bits) | next << UInt64(64 - bits)
        }
        return BigUInt(limbs: shifted)
    }

    /// The number of zero bits below the lowest set bit (0 for zero).
    package var trailingZeroBitCount: Int {
        guard let index = limbs.firstIndex(where: { $0 != 0 }) else { return 0 }
        return index * 64 + limbs[index].trailingZeroBitCount
    }

    /// The quotient and remainder of division by `divisor`, which must not be zero (Knuth, TAOCP
    /// vol. 2, §4.3.1, Algorithm D, with 64-bit digits).
    package func quotientAndRemainder(dividingBy divisor: BigUInt) -> (quotient: BigUInt, remainder: BigUInt) {
        precondition(!divisor.isZero, "BigUInt division by zero")
        guard !(self < divisor) else { return (.zero, self) }
        if divisor.limbs.count == 1 {
            let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor.limbs[0])
            return (quotient, BigUInt(remainder))
        }
        // D1: normalise so the divisor's top limb has its top bit set; the dividend gains a limb.
        let shift = divisor.limbs[divisor.limbs.count - 1].leadingZeroBitCount
        let v = Self.shiftLeft(divisor.limbs, by: shift).dropLast()
        var u = Self.shiftLeft(limbs, by: shift)
        let n = v.count
        let m = limbs.count - n
        let vTop = v[n - 1]
        let vNext = v[n - 2]
        var quotient = [UInt64](repeating: 0, count: m + 1)
        for j in stride(from: m, through: 0, by: -1) {
            // D3: estimate the quotient digit from the top two limbs, then correct it with the third.
            var estimate: UInt64
            var remainder: UInt64
            var remainderOverflowed = false
            if u[j + n] >= vTop {
                estimate = .max
                (remainder, remainderOverflowed) = u[j + n - 1].addingReportingOverflow(vTop)
            } else {
                (estimate, remainder) = vTop.dividingFullWidth((u[j + n], u[j + n - 1]))
            }
            while !remainderOverflowed {
                let (high, low) = estimate.multipliedFullWidth(by: vNext)
                guard high > remainder || (high == remainder && low > u[j + n - 2]) else { break }
                estimate -= 1
                (remainder, remainderOverflowed) = remainder.addingReportingOverflow(vTop)
            }
            // D4: u[j ... j+n] -= estimate · v.
            var carry: UInt64 = 0
            var borrow: UInt64 = 0
            for index in 0..<n {
                let (high, low) = estimate.multipliedFullWidth(by: v[index])
                let (product, overflow) = low.addingReportingOverflow(carry)
                carry = high &+ (overflow ? 1 : 0)
                let (partial, borrow1) = u[j + index].subtractingReportingOverflow(product)
                let (difference, borrow2) = partial.subtractingReportingOverflow(borrow)
                u[j + index] = difference
                borrow = borrow1 || borrow2 ? 1 : 0
            }
            let (partial, borrow1) = u[j + n].subtractingReportingOverflow(carry)
            let (top, borrow2) = partial.subtractingReportingOverflow(borrow)
            u[j + n] = top
            // D6: the estimate was one too large (rare): add v back.
            if borrow1 || borrow2 {
                estimate -= 1
                var addCarry = false
                for index in 0..<n {
                    let (partialSum, overflow1) = u[j + index].addingReportingOverflow(v[index])
                    let (sum, overflow2) = partialSum.addingReportingOverflow(addCarry ? 1 : 0)
                    u[j + index] = sum
                    addCarry = overflow1 || overflow2
                }
                u[j + n] &+= addCarry ? 1 : 0
            }
            quotient[j] = estimate
        }
        // D8: the remainder is u's low n limbs, shifted back.
        let remainder = BigUInt(limbs: Array(u[0..<n])) >> shift
        return (BigUInt(limbs: quotient), remainder)
    }

    /// The quotient and remainder of division by the non-zero one-limb `divisor`.
    package func quotientAndRemainder(dividingBy divisor: UInt64) -> (quotient: BigUInt, remainder: UInt64) {
        precondition(divisor != 0, "BigUInt division by zero")
        var quotient = [UInt64](repeating: 0, count: limbs.count)
        var remainder: UInt64 = 0
        for index in stride(from: limbs.count - 1, through: 0, by: -1) {
            (quotient[index], remainder) = divisor.dividingFullWidth((remainder, limbs[index]))
        }
        return (BigUInt(limbs: quotient), remainder)
    }

    /// The remainder of division by the non-zero one-limb `divisor`.
    package func remainder(dividingBy divisor: UInt64) -> UInt64 {
        precondition(divisor != 0, "BigUInt division by zero")
        var remainder: UInt64 = 0
        for limb in limbs.reversed() {
            remainder = divisor.dividingFullWidth((remainder, limb)).remainder
        }
        return remainder
    }

    /// The greatest common divisor (Euclid's algorithm); gcd(0, 0) is 0.
    package static func gcd(_ lhs: BigUInt, _ rhs: BigUInt) -> BigUInt {
        var (a, b) = (lhs, rhs)
        while !b.isZero { (a, b) = (b, a % b) }
        return a
    }

    /// A uniformly random number of at most `bits` bits.
    package static func random(bits: Int, using generator: inout some RandomNumberGenerator) -> BigUInt {
        guard bits > 0 else { return .zero }
        var limbs = (0..<(bits + 63) / 64).map { _ in generator.next() }
        let spare = limbs.count * 64 - bits
        limbs[limbs.count - 1] &= UInt64.max >> UInt64(spare)
        return BigUInt(limbs: limbs)
    }

    /// A uniformly random number below `bound`, which must not be zero (rejection sampling: fewer
    /// than two draws on average). After 128 rejected draws (probability below 2^-128 with a
    /// working generator) the last draw is reduced modulo `bound`, so a stuck generator cannot hang it.
    package static func random(below bound: BigUInt, using generator: inout some RandomNumberGenerator) -> BigUInt {
        precondition(!bound.isZero, "no number is below zero")
        var candidate = BigUInt.zero
        for _ in 0..<128 {
            candidate = random(bits: bound.bitWidth, using: &generator)
            if candidate < bound { return candidate }
        }
        return candidate % bound
    }

    // MARK: Limb helpers

    /// `limbs` shifted left by `bits` (0 to 63), with one more limb for what is shifted out.
    private static func shiftLeft(_ limbs: [UInt64], by bits: Int) -> [UInt64] {
        var shifted = [UInt64](repeating: 0, count: limbs.count + 1)
        for (index, limb) in limbs.enumerated() {
            shifted[index] |= limb << UInt64(bits)
            // `>>` by 64 gives 0 in Swift, so a zero shift carries nothing.
            shifted[index + 1] = limb >> UInt64(64 - bits)
        }
        return shifted
    }

    /// `difference -= subtrahend`, for `difference` ≥ `subtrahend` (which may have fewer limbs).
    private static func subtract(_ subtrahend: [UInt64], from difference: inout [UInt64]) {
        var borrow = false
        for index in difference.indices {
            guard index < subtrahend.count || borrow else { break }
            let (partial, borrow1) = difference[index].subtractingReportingOverflow(
                index < subtrahend.count ? subtrahend[index] : 0)
            let (result, borrow2) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
            difference[index] = result
            borrow = borrow1 || borrow2
        }
    }
}
