/// RSASSA-PSS signature verification (RFC 8017 §8.1.2, EMSA-PSS §9.1.2) with SHA-256, MGF1 with
/// SHA-256 and a 32-byte salt: JWS "PS256" (RFC 7518 §3.5).
///
/// Not constant-time, and it need not be: verification handles only public values.
package enum RSAPSSSignature {
    /// The salt length PS256 uses: the hash's length (RFC 7518 §3.5).
    package static let saltLength = 32

    /// Verifies `signature` over `message` with `key`.
    /// - Throws: `RSASignatureError` naming the first check that failed.
    package static func verifySHA256(
        signature: [UInt8], message: some Collection<UInt8>, key: RSAPublicKey
    ) throws(RSASignatureError) {
        let length = key.modulusByteCount
        // §8.1.2 step 1: the signature is exactly k bytes.
        guard signature.count == length else { throw .lengthMismatch(expected: length, actual: signature.count) }
        // §5.2.2 step 1: the representative is below n.
        let representative = BigUInt(bigEndian: signature)
        guard representative < key.modulus.modulus else { throw .representativeOutOfRange }
        // Step 2c: EM = I2OSP(m, emLen), emLen = ⌈(modBits - 1) / 8⌉; when that is k - 1 the
        // value must fit, that is, its top byte of k is zero.
        let emBits = key.modulusBitWidth - 1
        let emLength = (emBits + 7) / 8
        guard let recovered = key.modulus.power(representative, key.exponent),
            let encoded = recovered.bigEndianBytes(count: emLength)
        else { throw .encodingMismatch }
        guard isConsistent(encoded: encoded, emBits: emBits, messageHash: SHA256.hash(message)) else {
            throw .encodingMismatch
        }
    }

    /// EMSA-PSS-VERIFY (§9.1.2) of `encoded` (emLen bytes) for a message whose SHA-256 is
    /// `messageHash`.
    package static func isConsistent(encoded: [UInt8], emBits: Int, messageHash: [UInt8]) -> Bool {
        let hashLength = 32
        let emLength = encoded.count
        // Step 3, and step 4: the trailer byte 0xbc.
        guard emLength >= hashLength + saltLength + 2, encoded.last == 0xbc else { return false }
        let dbLength = emLength - hashLength - 1
        let maskedDB = encoded[0..<dbLength]
        let h = Array(encoded[dbLength..<(emLength - 1)])
        // Step 6: the leftmost 8·emLen - emBits bits of maskedDB are zero.
        let unusedBits = 8 * emLength - emBits
        let topMask: UInt8 = unusedBits >= 8 ? 0 : 0xff >> UInt8(unusedBits)
        guard maskedDB[maskedDB.startIndex] & ~topMask == 0 else { return false }
        // Steps 7 to 9: DB = maskedDB ⊕ MGF1(H), its unused top bits cleared.
        var db = zip(maskedDB, mgf1SHA256(seed: h, length: dbLength)).map { $0 ^ $1 }
        db[0] &= topMask
        // Step 10: PS (zeros), then 0x01, then the salt.
        let paddingLength = emLength - hashLength - saltLength - 2
        guard db[0..<paddingLength].allSatisfy({ $0 == 0 }), db[paddingLength] == 0x01 else { return false }
        let salt = db[(dbLength - saltLength)...]
        // Steps 12 to 14: H = SHA-256(00 × 8 ‖ mHash ‖ salt).
        let expected = SHA256.hash([UInt8](repeating: 0, count: 8) + messageHash + salt)
        return RSASignature.constantTimeEqual(expected, h)
    }

    /// MGF1 with SHA-256 (RFC 8017 appendix B.2.1): `length` bytes from `seed`.
    package static func mgf1SHA256(seed: [UInt8], length: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(length + 32)
        var counter: UInt32 = 0
        while output.count < length {
            let counterBytes = (0..<4).map { UInt8(truncatingIfNeeded: counter >> UInt32(24 - 8 * $0)) }
            output += SHA256.hash(seed + counterBytes)
            counter += 1
        }
        return Array(output.prefix(length))
    }
}
