/// An RSA public key accepted for signature verification: a modulus of 2048 to 8192 bits that is
/// odd, and an odd public exponent of at least 3 and below 2^256 (the upper bound of FIPS 186-5
/// §5.4: a larger exponent only makes each check slower, up to seconds for one key). FIPS's lower
/// bound (e > 2^16) is not enforced: e = 3 keys verify soundly with the full-encoding comparison of
/// `RSASignature`, and some issuers still publish them.
///
/// The Montgomery form of the modulus is prepared once here, so keep keys (as a parsed key set
/// does) rather than rebuilding them for each token.
package struct RSAPublicKey: Sendable, Hashable {
    /// The smallest modulus accepted, in bits (RFC 7518 §3.3 requires 2048 for RS256).
    package static let minimumModulusBits = 2048
    /// The largest modulus accepted, in bits; larger keys only cost time.
    package static let maximumModulusBits = 8192
    /// The largest exponent accepted, in bits: e < 2^256.
    package static let maximumExponentBits = 256

    /// The modulus n, prepared for Montgomery multiplication.
    package let modulus: MontgomeryModulus
    /// The public exponent e.
    package let exponent: BigUInt

    /// The key from big-endian `modulus` and `exponent` bytes (leading zero bytes allowed).
    /// - Throws: `RSAKeyError` naming the first check that failed.
    package init(modulus: some Collection<UInt8>, exponent: some Collection<UInt8>) throws(RSAKeyError) {
        try Self.check(modulus: modulus, exponent: exponent)
        guard let prepared = MontgomeryModulus(BigUInt(bigEndian: modulus)) else { throw .evenModulus }
        self.modulus = prepared
        self.exponent = BigUInt(bigEndian: exponent)
    }

    /// Checks the sizes and parities of `modulus` and `exponent` (big-endian bytes) without any
    /// arithmetic: cheap enough to run on every key of a key set before preparing any.
    /// - Throws: `RSAKeyError` naming the first check that failed.
    package static func check(modulus: some Collection<UInt8>, exponent: some Collection<UInt8>) throws(RSAKeyError) {
        let bits = bitWidth(of: modulus)
        guard bits >= minimumModulusBits else { throw .modulusTooSmall(bits: bits) }
        guard bits <= maximumModulusBits else { throw .modulusTooLarge(bits: bits) }
        guard let last = modulus.reversed().first, last & 1 == 1 else { throw .evenModulus }
        let exponentBits = bitWidth(of: exponent)
        guard exponentBits <= maximumExponentBits else { throw .exponentTooLarge(bits: exponentBits) }
        guard exponentBits >= 2, let low = exponent.reversed().first, low & 1 == 1 else { throw .invalidExponent }
    }

    /// The number of significant bits of a big-endian number.
    private static func bitWidth(of bytes: some Collection<UInt8>) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        let significant = bytes.distance(from: first, to: bytes.endIndex)
        return (significant - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }

    /// The size of the modulus in bits.
    package var modulusBitWidth: Int { modulus.modulus.bitWidth }

    /// k in RFC 8017: the modulus length in bytes, which is also every signature's length.
    package var modulusByteCount: Int { (modulusBitWidth + 7) / 8 }

    /// n as big-endian bytes without leading zeros: JWK's `n` before base64url (RFC 7518 §6.3.1.1).
    package var modulusBytes: [UInt8] { modulus.modulus.bigEndianBytes }

    /// e as big-endian bytes without leading zeros: JWK's `e` before base64url (RFC 7518 §6.3.1.2).
    package var exponentBytes: [UInt8] { exponent.bigEndianBytes }

    /// The key as a DER PKCS #1 `RSAPublicKey` (RFC 8017 appendix A.1.1): SEQUENCE { n INTEGER, e INTEGER }.
    package var pkcs1DER: [UInt8] {
        DER.sequence(DER.unsignedInteger(modulus.modulus.bigEndianBytes) + DER.unsignedInteger(exponent.bigEndianBytes))
    }
}

/// Why bytes were refused as an RSA public key.
package enum RSAKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The modulus is shorter than 2048 bits.
    case modulusTooSmall(bits: Int)
    /// The modulus is longer than 8192 bits.
    case modulusTooLarge(bits: Int)
    /// The modulus is even, so it cannot be an RSA modulus.
    case evenModulus
    /// The exponent is even, or below 3.
    case invalidExponent
    /// The exponent is 2^256 or more.
    case exponentTooLarge(bits: Int)

    package var description: String {
        switch self {
        case .modulusTooSmall(let bits): "RSA modulus of \(bits) bits is below the 2048-bit minimum"
        case .modulusTooLarge(let bits): "RSA modulus of \(bits) bits is above the 8192-bit maximum"
        case .evenModulus: "RSA modulus is even"
        case .invalidExponent: "RSA public exponent is even or below 3"
        case .exponentTooLarge(let bits): "RSA public exponent of \(bits) bits is not below 2^256 (FIPS 186-5)"
        }
    }
}

/// The few DER encodings a PKCS #1 public key needs.
package enum DER {
    /// A definite length: short form below 128, long form otherwise.
    package static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var remaining = count
        while remaining > 0 {
            bytes.insert(UInt8(truncatingIfNeeded: remaining), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// An INTEGER holding the non-negative big-endian `magnitude`: minimal, with a zero byte
    /// in front when the top bit is set so it does not read as negative.
    package static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.isEmpty || content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return [0x02] + length(content.count) + content
    }

    /// A SEQUENCE of the already encoded `content`.
    package static func sequence(_ content: [UInt8]) -> [UInt8] {
        [0x30] + length(content.count) + content
    }
}
