/// An unsigned integer of any size, just enough for RSA public-key operations: conversion from and
/// to big-endian bytes, comparison, and modular exponentiation with an odd modulus.
///
/// Stored as little-endian 64-bit limbs with no high zero limbs, so equal values have equal limbs.
/// Nothing here is constant-time: use it only with public values (public keys, signatures).
package struct BigUInt: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Little-endian limbs; empty for zero, never ending in a zero limb.
    package private(set) var limbs: [UInt64]

    /// Zero.
    package static let zero = BigUInt(limbs: [])

    /// The value of the small integer `value`.
    package init(_ value: UInt64) {
        self.init(limbs: [value])
    }

    /// The value of little-endian `limbs`; high zero limbs are dropped.
    package init(limbs: [UInt64]) {
        var trimmed = limbs
        while trimmed.last == 0 { trimmed.removeLast() }
        self.limbs = trimmed
    }

    /// The value of the big-endian unsigned integer `bytes`; leading zero bytes are allowed.
    package init(bigEndian bytes: some Collection<UInt8>) {
        let array = Array(bytes)
        var limbs = [UInt64](repeating: 0, count: (array.count + 7) / 8)
        for (offset, byte) in array.reversed().enumerated() {
            limbs[offset / 8] |= UInt64(byte) << UInt64((offset % 8) * 8)
        }
        self.init(limbs: limbs)
    }

    /// `true` for zero.
    package var isZero: Bool { limbs.isEmpty }

    /// `true` when the lowest bit is set.
    package var isOdd: Bool { (limbs.first ?? 0) & 1 == 1 }

    /// The number of significant bits: 0 for zero, 1 for one, 2048 for a 2048-bit modulus.
    package var bitWidth: Int {
        guard let top = limbs.last else { return 0 }
        return (limbs.count - 1) * 64 + (64 - top.leadingZeroBitCount)
    }

    /// Bit `index` (0 is the lowest); `false` past the top.
    package func bit(_ index: Int) -> Bool {
        let limb = index / 64
        guard index >= 0, limb < limbs.count else { return false }
        return (limbs[limb] >> UInt64(index % 64)) & 1 == 1
    }

    /// The value as exactly `count` big-endian bytes, left-padded with zeros; `nil` when it does not fit.
    package func bigEndianBytes(count: Int) -> [UInt8]? {
        guard count >= 0, bitWidth <= count * 8 else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        for offset in 0..<min(count, limbs.count * 8) {
            bytes[count - 1 - offset] = UInt8(truncatingIfNeeded: limbs[offset / 8] >> UInt64((offset % 8) * 8))
        }
        return bytes
    }

    /// The value as big-endian bytes without leading zeros (one zero byte for zero).
    package var bigEndianBytes: [UInt8] {
        bigEndianBytes(count: max(1, (bitWidth + 7) / 8)) ?? []
    }

    /// `base ^ exponent mod modulus`, using Montgomery multiplication.
    ///
    /// Returns `nil` when `modulus` is even or 1 (Montgomery form needs an odd modulus above 1), or
    /// when `self` has more limbs than `modulus` (reduce it first; RSA bases are always below the modulus).
    package func power(_ exponent: BigUInt, modulus: BigUInt) -> BigUInt? {
        guard let context = MontgomeryModulus(modulus) else { return nil }
        return context.power(self, exponent)
    }

    package static func < (lhs: BigUInt, rhs: BigUInt) -> Bool {
        compare(lhs.limbs, rhs.limbs) < 0
    }

    /// Lowercase hexadecimal, without leading zeros.
    package var description: String {
        guard let top = limbs.last else { return "0" }
        var text = String(top, radix: 16)
        for limb in limbs.dropLast().reversed() {
            let digits = String(limb, radix: 16)
            text += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return text
    }

    /// -1, 0 or 1 as little-endian limb arrays `lhs` and `rhs` (high zero limbs allowed) compare.
    package static func compare(_ lhs: [UInt64], _ rhs: [UInt64]) -> Int {
        let count = max(lhs.count, rhs.count)
        for index in stride(from: count - 1, through: 0, by: -1) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            if left != right { return left < right ? -1 : 1 }
        }
        return 0
    }
}
