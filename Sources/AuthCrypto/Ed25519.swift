/// Ed25519 signature verification (RFC 8032 §5.1.7), as JWS "EdDSA" uses it with an `OKP` key of
/// curve `Ed25519` (RFC 8037 §3.1).
///
/// The check is the cofactorless one: [S]B - [k]A is computed and its canonical encoding compared
/// byte for byte with R, so a non-canonical R never verifies. S must be below the group order L.
/// Not constant-time, and it need not be: verification handles only public values.
package enum Ed25519 {
    /// The field prime p = 2^255 - 19.
    static let field = MontgomeryField(
        modulus: UInt256(hex: "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed"))
    /// The group order L = 2^252 + 27742317777372353535851937790883648493.
    static let order = UInt256(hex: "1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed")
    /// d = -121665/121666 (Montgomery form).
    static let d = field.enter(UInt256(hex: "52036cee2b6ffe738cc740797779e89800700a4d4141d8ab75eb4dca135978a3"))
    /// 2d (Montgomery form).
    static let d2 = field.double(d)
    /// A square root of -1: 2^((p-1)/4) (Montgomery form).
    static let squareRootOfMinusOne = field.enter(
        UInt256(hex: "2b8324804fc1df0b2b4d00993dfbd7a72f431806ad2fe478c4ee1b274a0ea0b0"))
    /// (p-5)/8, the exponent of the square root in decoding.
    static let rootExponent = UInt256(hex: "0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffd")
    /// The base point B.
    static let base = ExtendedPoint(
        affineX: field.enter(UInt256(hex: "216936d3cd6e53fec0a4e231fdd6dc5c692cc7609525a7b2c9562d608f25d51a")),
        affineY: field.enter(UInt256(hex: "6666666666666666666666666666666666666666666666666666666666666658")))

    /// `true` when `signature` (R ‖ S, 64 bytes) is a valid Ed25519 signature of `message` by `key`.
    package static func isValidSignature(
        _ signature: some Collection<UInt8>, of message: some Collection<UInt8>, key: Ed25519PublicKey
    ) -> Bool {
        let bytes = Array(signature)
        guard bytes.count == 64, let s = UInt256(littleEndian: bytes[32...]), s < order else { return false }
        let encodedR = Array(bytes[0..<32])
        // k = SHA-512(R ‖ A ‖ M) mod L, the digest read little-endian.
        let digest = SHA512.hash(encodedR + key.bytes + Array(message))
        let k = UInt256(BigUInt(bigEndian: digest.reversed()) % order.big)
        // [S]B + [k](-A), by one pass over both scalars (both below L < 2^253).
        let minusA = key.point.negated()
        let sum = base.adding(minusA)
        var point = ExtendedPoint.identity
        for index in stride(from: 252, through: 0, by: -1) {
            point = point.doubled()
            switch (s.bit(index), k.bit(index)) {
            case (true, true): point = point.adding(sum)
            case (true, false): point = point.adding(base)
            case (false, true): point = point.adding(minusA)
            case (false, false): break
            }
        }
        return point.encoded == encodedR
    }

    /// The point of the 32-byte encoding (RFC 8032 §5.1.3); `nil` when `bytes` encode none: y not
    /// below p, x² with no square root, or x = 0 with the sign bit set.
    static func decode(_ bytes: [UInt8]) -> ExtendedPoint? {
        guard bytes.count == 32 else { return nil }
        var cleared = bytes
        let sign = cleared[31] >> 7
        cleared[31] &= 0x7f
        guard let yValue = UInt256(littleEndian: cleared), yValue < field.modulus else { return nil }
        let f = field
        let y = f.enter(yValue)
        let y2 = f.square(y)
        let u = f.subtract(y2, f.one)
        let v = f.add(f.multiply(d, y2), f.one)
        // x = u·v³·(u·v⁷)^((p-5)/8)
        let v3 = f.multiply(f.square(v), v)
        let v7 = f.multiply(f.square(v3), v)
        var x = f.multiply(f.multiply(u, v3), f.power(f.multiply(u, v7), rootExponent))
        let check = f.multiply(v, f.square(x))
        if check == u {
            // x is a root.
        } else if check == f.negate(u) {
            x = f.multiply(x, squareRootOfMinusOne)
        } else {
            return nil
        }
        let plainX = f.leave(x)
        if plainX.isZero && sign == 1 { return nil }
        if UInt8(truncatingIfNeeded: plainX.w0 & 1) != sign { x = f.negate(x) }
        return ExtendedPoint(affineX: x, affineY: y)
    }

    /// A point in extended coordinates (x = X/Z, y = Y/Z, x·y = T/Z; Hisil, Wong, Carter and Dawson,
    /// 2008), in Montgomery form. The formulas of RFC 8032 §5.1.4 are complete: no special cases.
    struct ExtendedPoint {
        var x: UInt256
        var y: UInt256
        var z: UInt256
        var t: UInt256

        static let identity = ExtendedPoint(x: .zero, y: field.one, z: field.one, t: .zero)

        init(x: UInt256, y: UInt256, z: UInt256, t: UInt256) {
            self.x = x
            self.y = y
            self.z = z
            self.t = t
        }

        init(affineX: UInt256, affineY: UInt256) {
            self.init(x: affineX, y: affineY, z: field.one, t: field.multiply(affineX, affineY))
        }

        func negated() -> ExtendedPoint {
            ExtendedPoint(x: field.negate(x), y: y, z: z, t: field.negate(t))
        }

        func adding(_ other: ExtendedPoint) -> ExtendedPoint {
            let f = field
            let a = f.multiply(f.subtract(y, x), f.subtract(other.y, other.x))
            let b = f.multiply(f.add(y, x), f.add(other.y, other.x))
            let c = f.multiply(f.multiply(t, d2), other.t)
            let dd = f.double(f.multiply(z, other.z))
            let e = f.subtract(b, a)
            let ff = f.subtract(dd, c)
            let g = f.add(dd, c)
            let h = f.add(b, a)
            return ExtendedPoint(x: f.multiply(e, ff), y: f.multiply(g, h), z: f.multiply(ff, g), t: f.multiply(e, h))
        }

        func doubled() -> ExtendedPoint {
            let f = field
            let a = f.square(x)
            let b = f.square(y)
            let c = f.double(f.square(z))
            let h = f.add(a, b)
            let e = f.subtract(h, f.square(f.add(x, y)))
            let g = f.subtract(a, b)
            let ff = f.add(c, g)
            return ExtendedPoint(x: f.multiply(e, ff), y: f.multiply(g, h), z: f.multiply(ff, g), t: f.multiply(e, h))
        }

        /// The 32-byte encoding (RFC 8032 §5.1.2): y little-endian, x's low bit in the top bit.
        var encoded: [UInt8] {
            let f = field
            let zInverse = f.invert(z)
            let affineX = f.leave(f.multiply(x, zInverse))
            var bytes = f.leave(f.multiply(y, zInverse)).littleEndianBytes
            bytes[31] |= UInt8(truncatingIfNeeded: affineX.w0 & 1) << 7
            return bytes
        }
    }
}

/// An Ed25519 public key accepted for EdDSA verification: 32 bytes that decode to a curve point
/// (RFC 8032 §5.1.3), y canonical (below p).
package struct Ed25519PublicKey: Sendable, Hashable {
    /// The encoding as given: JWK `x` (RFC 8037 §2).
    package let bytes: [UInt8]
    /// The decoded point.
    let point: Ed25519.ExtendedPoint

    /// The key encoded by `bytes`.
    /// - Throws: `ECKeyError` naming the check that failed.
    package init(_ bytes: some Collection<UInt8>) throws(ECKeyError) {
        let array = Array(bytes)
        guard array.count == 32 else { throw .ed25519Length(array.count) }
        guard let point = Ed25519.decode(array) else { throw .ed25519Encoding }
        self.bytes = array
        self.point = point
    }

    package static func == (lhs: Ed25519PublicKey, rhs: Ed25519PublicKey) -> Bool { lhs.bytes == rhs.bytes }

    package func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}
