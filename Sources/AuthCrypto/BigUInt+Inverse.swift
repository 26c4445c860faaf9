extension BigUInt {
    /// x with `self` · x ≡ 1 (mod `modulus`), below `modulus`; `nil` when there is none (the two are
    /// not coprime, or the modulus is below 2).
    ///
    /// For an odd modulus, the binary extended Euclidean algorithm; for an even one, the inverse
    /// of the modulus modulo `self` (which is then odd) gives this one: if m·y = 1 + a·t, then
    /// a · (m - t) ≡ 1 (mod m). Variable-time, like the rest of `BigUInt`.
    package func inverse(modulo modulus: BigUInt) -> BigUInt? {
        guard modulus.bitWidth >= 2 else { return nil }
        if modulus.isOdd { return OddInverse.of(self % modulus, modulo: modulus) }
        let value = self % modulus
        guard value.isOdd else { return nil }
        if value == BigUInt(1) { return value }
        guard let y = OddInverse.of(modulus % value, modulo: value) else { return nil }
        let t = (modulus * y - BigUInt(1)) / value
        return modulus - t
    }
}

/// The binary extended Euclidean algorithm for an odd modulus m (Menezes, van Oorschot and
/// Vanstone, Handbook of Applied Cryptography, 14.61, with the coefficients kept modulo m):
/// a·x1 ≡ u and a·x2 ≡ v (mod m) hold while (u, v) runs from (a, m) down to gcd(a, m).
///
/// Signing inverts a blinding factor with it each time, so it works in place on one buffer and
/// keeps u and v to their significant limbs, which shrink as they do.
private enum OddInverse {
    static func of(_ value: BigUInt, modulo modulus: BigUInt) -> BigUInt? {
        let count = modulus.limbs.count
        let buffer = UnsafeMutablePointer<UInt64>.allocate(capacity: 5 * count)
        defer {
            buffer.update(repeating: 0, count: 5 * count)
            buffer.deallocate()
        }
        buffer.initialize(repeating: 0, count: 5 * count)
        let m = buffer
        let u = buffer + count
        let v = buffer + 2 * count
        let x1 = buffer + 3 * count
        let x2 = buffer + 4 * count
        for (index, limb) in modulus.limbs.enumerated() {
            m[index] = limb
            v[index] = limb
        }
        for (index, limb) in value.limbs.enumerated() { u[index] = limb }
        x1[0] = 1
        var uLength = value.limbs.count
        var vLength = count
        while true {
            // u reaches 0 only when u = v > 1 was subtracted: no inverse. (Checked before halving,
            // which would never end on 0.)
            guard uLength > 0, vLength > 0 else { return nil }
            if uLength == 1, u[0] == 1 { return BigUInt(limbs: Array(UnsafeBufferPointer(start: x1, count: count))) }
            if vLength == 1, v[0] == 1 { return BigUInt(limbs: Array(UnsafeBufferPointer(start: x2, count: count))) }
            while u[0] & 1 == 0 {
                halve(u, length: &uLength)
                halveModulo(x1, m, count)
            }
            while v[0] & 1 == 0 {
                halve(v, length: &vLength)
                halveModulo(x2, m, count)
            }
            if compare(u, uLength, v, vLength) >= 0 {
                subtract(v, vLength, from: u, length: &uLength)
                subtractModulo(x1, x2, m, count)
            } else {
                subtract(u, uLength, from: v, length: &vLength)
                subtractModulo(x2, x1, m, count)
            }
        }
    }

    /// x = x / 2 for the `length` significant limbs of x; `length` drops when the top limb empties.
    private static func halve(_ x: UnsafeMutablePointer<UInt64>, length: inout Int) {
        for index in 0..<length - 1 { x[index] = x[index] >> 1 | x[index + 1] << 63 }
        x[length - 1] >>= 1
        if x[length - 1] == 0 { length -= 1 }
    }

    /// x = x / 2 mod m for x < m: x / 2 when x is even, else (x + m) / 2, the carry coming back in at the top.
    private static func halveModulo(_ x: UnsafeMutablePointer<UInt64>, _ m: UnsafeMutablePointer<UInt64>, _ count: Int)
    {
        var carry: UInt64 = 0
        if x[0] & 1 == 1 {
            for index in 0..<count {
                let (partial, overflow1) = x[index].addingReportingOverflow(m[index])
                let (sum, overflow2) = partial.addingReportingOverflow(carry)
                x[index] = sum
                carry = (overflow1 ? 1 : 0) | (overflow2 ? 1 : 0)
            }
        }
        for index in 0..<count - 1 { x[index] = x[index] >> 1 | x[index + 1] << 63 }
        x[count - 1] = x[count - 1] >> 1 | carry << 63
    }

    /// -1, 0 or 1 as a (of `aLength` significant limbs) compares with b (of `bLength`).
    private static func compare(
        _ a: UnsafeMutablePointer<UInt64>, _ aLength: Int, _ b: UnsafeMutablePointer<UInt64>, _ bLength: Int
    ) -> Int {
        guard aLength == bLength else { return aLength < bLength ? -1 : 1 }
        for index in stride(from: aLength - 1, through: 0, by: -1) where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return 0
    }

    /// a = a - b for a ≥ b, over a's `length` significant limbs, which are then recounted.
    private static func subtract(
        _ b: UnsafeMutablePointer<UInt64>, _ bLength: Int, from a: UnsafeMutablePointer<UInt64>, length: inout Int
    ) {
        var borrow: UInt64 = 0
        for index in 0..<length {
            let (partial, borrow1) = a[index].subtractingReportingOverflow(index < bLength ? b[index] : 0)
            let (difference, borrow2) = partial.subtractingReportingOverflow(borrow)
            a[index] = difference
            borrow = (borrow1 ? 1 : 0) | (borrow2 ? 1 : 0)
        }
        while length > 0, a[length - 1] == 0 { length -= 1 }
    }

    /// x = x - y mod m for x, y < m: the difference, plus m when it borrowed.
    private static func subtractModulo(
        _ x: UnsafeMutablePointer<UInt64>, _ y: UnsafeMutablePointer<UInt64>, _ m: UnsafeMutablePointer<UInt64>,
        _ count: Int
    ) {
        var borrow: UInt64 = 0
        for index in 0..<count {
            let (partial, borrow1) = x[index].subtractingReportingOverflow(y[index])
            let (difference, borrow2) = partial.subtractingReportingOverflow(borrow)
            x[index] = difference
            borrow = (borrow1 ? 1 : 0) | (borrow2 ? 1 : 0)
        }
        guard borrow != 0 else { return }
        var carry: UInt64 = 0
        for index in 0..<count {
            let (partial, overflow1) = x[index].addingReportingOverflow(m[index])
            let (sum, overflow2) = partial.addingReportingOverflow(carry)
            x[index] = sum
            carry = (overflow1 ? 1 : 0) | (overflow2 ? 1 : 0)
        }
    }
}
