extension RSAPrivateKey {
    /// The PS256 signature of `message`: RSASSA-PSS (RFC 8017 §8.1.1) with SHA-256, MGF1-SHA-256
    /// and a 32-byte salt drawn from `generator` (RFC 7518 §3.5), as many bytes as the modulus.
    /// `generator` also feeds the blinding; with a secure generator each signature is new.
    /// - Throws: ``RSASigningError/faultDetected`` when the result does not verify with the public
    ///   key (a computation fault); nothing of it is returned.
    package func signPSSSHA256(
        _ message: some Collection<UInt8>, using generator: inout some RandomNumberGenerator
    ) throws(RSASigningError) -> [UInt8] {
        let length = publicKey.modulusByteCount
        var salt: [UInt8] = []
        while salt.count < RSAPSSSignature.saltLength {
            withUnsafeBytes(of: generator.next()) { salt += $0 }
        }
        salt.removeLast(salt.count - RSAPSSSignature.saltLength)
        guard
            let encoded = Self.pssEncoding(
                messageHash: SHA256.hash(message), salt: salt, emBits: publicKey.modulusBitWidth - 1),
            let signature = privateOperation(BigUInt(bigEndian: encoded), using: &generator),
            let bytes = signature.bigEndianBytes(count: length)
        else { throw .faultDetected }
        do {
            try RSAPSSSignature.verifySHA256(signature: bytes, message: message, key: publicKey)
        } catch {
            throw .faultDetected
        }
        return bytes
    }

    /// The PS256 signature of `message`, its salt and blinding from the system's secure random
    /// generator.
    /// - Throws: ``RSASigningError/faultDetected`` when the result does not verify.
    package func signPSSSHA256(_ message: some Collection<UInt8>) throws(RSASigningError) -> [UInt8] {
        var generator = SecureRandomGenerator()
        return try signPSSSHA256(message, using: &generator)
    }

    /// EMSA-PSS-ENCODE (RFC 8017 §9.1.1) of a SHA-256 `messageHash` with `salt`, for an encoded
    /// message of `emBits` bits; `nil` when it does not fit.
    package static func pssEncoding(messageHash: [UInt8], salt: [UInt8], emBits: Int) -> [UInt8]? {
        let hashLength = 32
        let emLength = (emBits + 7) / 8
        // Step 3.
        guard messageHash.count == hashLength, emLength >= hashLength + salt.count + 2 else { return nil }
        // Steps 5 and 6: H = SHA-256(00 × 8 ‖ mHash ‖ salt).
        let h = SHA256.hash([UInt8](repeating: 0, count: 8) + messageHash + salt)
        // Steps 7 to 10: DB = PS ‖ 01 ‖ salt, masked with MGF1(H).
        let dbLength = emLength - hashLength - 1
        let db = [UInt8](repeating: 0, count: dbLength - salt.count - 1) + [0x01] + salt
        var maskedDB = zip(db, RSAPSSSignature.mgf1SHA256(seed: h, length: dbLength)).map { $0 ^ $1 }
        // Step 11: the leftmost 8·emLen - emBits bits are zero.
        let unusedBits = 8 * emLength - emBits
        maskedDB[0] &= unusedBits >= 8 ? 0 : 0xff >> UInt8(unusedBits)
        // Step 12.
        return maskedDB + h + [0xbc]
    }
}
