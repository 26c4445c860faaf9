/// ECDSA over NIST P-256 with SHA-256 (FIPS 186-5 §6.4.2; SEC 1 §4.1.4), as JWS "ES256" uses it
/// (RFC 7518 §3.4): verification only.
///
/// Not constant-time, and it need not be: verification handles only public values (the key, the
/// signature, the message), so its timing reveals nothing secret.
package enum ECDSAP256 {
    /// The field prime p = 2^256 - 2^224 + 2^192 + 2^96 - 1.
    static let field = MontgomeryField(
        modulus: UInt256(hex: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"))
    /// The group order n.
    static let order = MontgomeryField(
        modulus: UInt256(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"))
    /// The curve's b (Montgomery form); a is -3.
    static let b = field.enter(UInt256(hex: "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b"))
    /// The base point G.
    static let generator = JacobianPoint(
        x: field.enter(UInt256(hex: "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")),
        y: field.enter(UInt256(hex: "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")),
        z: field.one)

    /// `true` when `signature` (r ‖ s, 32 bytes each, big-endian: the JWS form, IEEE P1363) is a
    /// valid ECDSA signature of SHA-256(`message`) by `key`.
    package static func isValidSignature(
        _ signature: some Collection<UInt8>, of message: some Collection<UInt8>, key: P256PublicKey
    ) -> Bool {
        let bytes = Array(signature)
        guard bytes.count == 64, let r = UInt256(bigEndian: bytes[0..<32]), let s = UInt256(bigEndian: bytes[32...])
        else { return false }
        let n = order.modulus
        // §6.4.2 step 1: 0 < r, s < n.
        guard !r.isZero, !s.isZero, r < n, s < n else { return false }
        // e: the whole 256-bit hash (its length equals n's, so nothing is cut). Multiplying a number
        // below 2^256 by an element in Montgomery form gives the plain product mod n.
        guard let e = UInt256(bigEndian: SHA256.hash(message)) else { return false }
        let w = order.invert(order.enter(s))
        let u1 = order.multiply(e, w)
        let u2 = order.multiply(r, w)
        // R = u1·G + u2·Q, by one pass over both scalars (Shamir's trick).
        let q = JacobianPoint(x: key.x, y: key.y, z: field.one)
        let sum = generator.adding(q)
        var point = JacobianPoint.infinity
        for index in stride(from: 255, through: 0, by: -1) {
            point = point.doubled()
            switch (u1.bit(index), u2.bit(index)) {
            case (true, true): point = point.adding(sum)
            case (true, false): point = point.adding(generator)
            case (false, true): point = point.adding(q)
            case (false, false): break
            }
        }
        guard !point.isInfinity else { return false }
        // x = X / Z², then v = x mod n (x < p < 2n, so one subtraction at most).
        let zInverse = field.invert(point.z)
        var x = field.leave(field.multiply(point.x, field.square(zInverse)))
        if !(x < n) { x = UInt256.subtracting(x, n).difference }
        return x == r
    }

    /// A point in Jacobian coordinates (x = X/Z², y = Y/Z³), each coordinate in Montgomery form; Z = 0
    /// is the point at infinity.
    struct JacobianPoint {
        var x: UInt256
        var y: UInt256
        var z: UInt256

        static let infinity = JacobianPoint(x: field.one, y: field.one, z: .zero)

        var isInfinity: Bool { z.isZero }

        /// 2P ("dbl-2001-b", for a = -3).
        func doubled() -> JacobianPoint {
            guard !isInfinity, !y.isZero else { return .infinity }
            let f = ECDSAP256.field
            let delta = f.square(z)
            let gamma = f.square(y)
            let beta = f.multiply(x, gamma)
            let t = f.multiply(f.subtract(x, delta), f.add(x, delta))
            let alpha = f.add(f.double(t), t)
            let beta4 = f.double(f.double(beta))
            let x3 = f.subtract(f.square(alpha), f.double(beta4))
            let z3 = f.subtract(f.subtract(f.square(f.add(y, z)), gamma), delta)
            let gamma2 = f.square(gamma)
            let gamma8 = f.double(f.double(f.double(gamma2)))
            let y3 = f.subtract(f.multiply(alpha, f.subtract(beta4, x3)), gamma8)
            return JacobianPoint(x: x3, y: y3, z: z3)
        }

        /// P + Q ("add-2007-bl"), with the cases it does not cover (equal points, opposite points,
        /// infinity) handled first.
        func adding(_ other: JacobianPoint) -> JacobianPoint {
            if isInfinity { return other }
            if other.isInfinity { return self }
            let f = ECDSAP256.field
            let z1z1 = f.square(z)
            let z2z2 = f.square(other.z)
            let u1 = f.multiply(x, z2z2)
            let u2 = f.multiply(other.x, z1z1)
            let s1 = f.multiply(f.multiply(y, other.z), z2z2)
            let s2 = f.multiply(f.multiply(other.y, z), z1z1)
            let h = f.subtract(u2, u1)
            let rHalf = f.subtract(s2, s1)
            if h.isZero { return rHalf.isZero ? doubled() : .infinity }
            let i = f.square(f.add(h, h))
            let j = f.multiply(h, i)
            let r = f.add(rHalf, rHalf)
            let v = f.multiply(u1, i)
            let x3 = f.subtract(f.subtract(f.square(r), j), f.add(v, v))
            let s1j = f.multiply(s1, j)
            let y3 = f.subtract(f.multiply(r, f.subtract(v, x3)), f.add(s1j, s1j))
            let z3 = f.multiply(f.subtract(f.subtract(f.square(f.add(z, other.z)), z1z1), z2z2), h)
            return JacobianPoint(x: x3, y: y3, z: z3)
        }
    }
}

/// A P-256 public key accepted for ES256 verification: a point (x, y) with both coordinates below
/// p that lies on the curve y² = x³ - 3x + b. P-256 has cofactor 1, so every such point other than
/// infinity (which has no affine coordinates) generates the whole group.
package struct P256PublicKey: Sendable, Hashable {
    /// The coordinates, in Montgomery form.
    let x: UInt256
    let y: UInt256
    /// The coordinates as given: 32 big-endian bytes each (JWK `x` and `y`, RFC 7518 §6.2.1.2).
    package let xBytes: [UInt8]
    package let yBytes: [UInt8]

    /// The key at (`x`, `y`), big-endian, 32 bytes each.
    /// - Throws: `ECKeyError` naming the first check that failed.
    package init(x: some Collection<UInt8>, y: some Collection<UInt8>) throws(ECKeyError) {
        guard let xValue = UInt256(bigEndian: x), let yValue = UInt256(bigEndian: y) else {
            throw .coordinateLength(x: x.count, y: y.count)
        }
        let f = ECDSAP256.field
        guard xValue < f.modulus, yValue < f.modulus else { throw .coordinateOutOfRange }
        let xm = f.enter(xValue)
        let ym = f.enter(yValue)
        // y² = x³ - 3x + b
        let rhs = f.add(f.subtract(f.multiply(f.square(xm), xm), f.add(f.add(xm, xm), xm)), ECDSAP256.b)
        guard f.square(ym) == rhs else { throw .notOnCurve }
        self.x = xm
        self.y = ym
        xBytes = Array(x)
        yBytes = Array(y)
    }
}

/// Why bytes were refused as an elliptic-curve public key (P-256 or Ed25519).
package enum ECKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A P-256 coordinate is not exactly 32 bytes.
    case coordinateLength(x: Int, y: Int)
    /// A P-256 coordinate is not below the field prime.
    case coordinateOutOfRange
    /// The P-256 point is not on the curve.
    case notOnCurve
    /// An Ed25519 key is not exactly 32 bytes.
    case ed25519Length(Int)
    /// The 32 bytes are not the canonical encoding of a point of Ed25519 (RFC 8032 §5.1.3).
    case ed25519Encoding

    package var description: String {
        switch self {
        case .coordinateLength(let x, let y): "P-256 coordinates are \(x) and \(y) bytes; each must be 32"
        case .coordinateOutOfRange: "P-256 coordinate is not below the field prime"
        case .notOnCurve: "point is not on the P-256 curve"
        case .ed25519Length(let count): "Ed25519 key is \(count) bytes; it must be 32"
        case .ed25519Encoding: "Ed25519 key is not the encoding of a curve point"
        }
    }
}
