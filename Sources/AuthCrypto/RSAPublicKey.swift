/// An RSA public key accepted for signature verification: a modulus of 2048 to 8192 bits that is
/// odd, and a public exponent that is odd, at least 3 and below the modulus.
///
/// The Montgomery form of the modulus is prepared once here, so keep keys (as a parsed key set
/// does) rather than rebuilding them for each token.
package struct RSAPublicKey: Sendable, Hashable {
    /// The smallest modulus accepted, in bits (RFC 7518 §3.3 requires 2048 for RS256).
    package static let minimumModulusBits = 2048
    /// The largest modulus accepted, in bits; larger keys only cost time.
    package static let maximumModulusBits = 8192

    /// The modulus n, prepared for Montgomery multiplication.
    package let modulus: MontgomeryModulus
    /// The public exponent e.
    package let exponent: BigUInt

    /// The key from big-endian `modulus` and `exponent` bytes (leading zero bytes allowed).
    /// - Throws: `RSAKeyError` naming the first check that failed.
    package init(modulus: some Collection<UInt8>, exponent: some Collection<UInt8>) throws(RSAKeyError) {
        let modulusValue = BigUInt(bigEndian: modulus)
        let bits = modulusValue.bitWidth
        guard bits >= Self.minimumModulusBits else { throw .modulusTooSmall(bits: bits) }
        guard bits <= Self.maximumModulusBits else { throw .modulusTooLarge(bits: bits) }
        guard let prepared = MontgomeryModulus(modulusValue) else { throw .evenModulus }
        let exponentValue = BigUInt(bigEndian: exponent)
        guard exponentValue.isOdd, exponentValue >= BigUInt(3), exponentValue < modulusValue else {
            throw .invalidExponent
        }
        self.modulus = prepared
        self.exponent = exponentValue
    }

    /// The size of the modulus in bits.
    package var modulusBitWidth: Int { modulus.modulus.bitWidth }

    /// k in RFC 8017: the modulus length in bytes, which is also every signature's length.
    package var modulusByteCount: Int { (modulusBitWidth + 7) / 8 }

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
    /// The exponent is even, below 3, or not below the modulus.
    case invalidExponent

    package var description: String {
        switch self {
        case .modulusTooSmall(let bits): "RSA modulus of \(bits) bits is below the 2048-bit minimum"
        case .modulusTooLarge(let bits): "RSA modulus of \(bits) bits is above the 8192-bit maximum"
        case .evenModulus: "RSA modulus is even"
        case .invalidExponent: "RSA public exponent is even, below 3, or not below the modulus"
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
