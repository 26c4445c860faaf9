/// RSASSA-PKCS1-v1_5 signature verification (RFC 8017 §8.2.2) with SHA-256, as JWS "RS256" uses it.
///
/// The check recomputes the whole expected encoding `00 01 FF…FF 00 ‖ DigestInfo ‖ hash` and
/// compares it with `s^e mod n`; it never parses the DigestInfo out of the signature, which is what
/// lets forged signatures through in parsing verifiers.
package enum RSASignature {
    /// The DER DigestInfo prefix for SHA-256 (RFC 8017 §9.2, note 1).
    package static let sha256DigestInfoPrefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04,
        0x20,
    ]

    /// Verifies `signature` over `message` with `key`, for SHA-256.
    /// - Throws: `RSASignatureError` naming the first check that failed.
    package static func verifySHA256(
        signature: [UInt8], message: some Collection<UInt8>, key: RSAPublicKey
    ) throws(RSASignatureError) {
        let length = key.modulusByteCount
        // §8.2.2 step 1: the signature is exactly k bytes.
        guard signature.count == length else {
            throw .lengthMismatch(expected: length, actual: signature.count)
        }
        // §5.2.2 step 1: the representative is below n.
        let representative = BigUInt(bigEndian: signature)
        guard representative < key.modulus.modulus else { throw .representativeOutOfRange }
        guard let recovered = key.modulus.power(representative, key.exponent),
            let encoded = recovered.bigEndianBytes(count: length),
            let expected = expectedEncoding(digest: SHA256.hash(message), length: length)
        else { throw .encodingMismatch }
        guard constantTimeEqual(encoded, expected) else { throw .encodingMismatch }
    }

    /// EMSA-PKCS1-v1_5 (RFC 8017 §9.2) of a SHA-256 `digest` for a `length`-byte modulus; `nil` when
    /// it does not fit (at least 11 bytes of framing and 8 of padding are needed).
    package static func expectedEncoding(digest: [UInt8], length: Int) -> [UInt8]? {
        let digestInfo = sha256DigestInfoPrefix + digest
        guard digest.count == 32, length >= digestInfo.count + 11 else { return nil }
        return [0x00, 0x01] + [UInt8](repeating: 0xff, count: length - digestInfo.count - 3) + [0x00] + digestInfo
    }

    /// `true` when `lhs` and `rhs` are equal, in time that depends only on their lengths.
    package static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

/// Which RSASSA-PKCS1-v1_5 check a signature failed.
package enum RSASignatureError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The signature is not exactly as long as the modulus.
    case lengthMismatch(expected: Int, actual: Int)
    /// The signature, read as a number, is not below the modulus.
    case representativeOutOfRange
    /// The signature does not open to the expected encoding of the message's hash.
    case encodingMismatch

    package var description: String {
        switch self {
        case .lengthMismatch(let expected, let actual): "signature is \(actual) bytes; the key needs \(expected)"
        case .representativeOutOfRange: "signature value is not below the modulus"
        case .encodingMismatch: "signature does not match the message"
        }
    }
}
