/// The storage form of a private key: DER PKCS #1 `RSAPrivateKey` (RFC 8017 appendix A.1.2),
/// version 0 (two primes):
///
///     RSAPrivateKey ::= SEQUENCE { version INTEGER, modulus INTEGER, publicExponent INTEGER,
///         privateExponent INTEGER, prime1 INTEGER, prime2 INTEGER, exponent1 INTEGER,
///         exponent2 INTEGER, coefficient INTEGER }
extension RSAPrivateKey {
    /// The key as DER PKCS #1 `RSAPrivateKey`: what `openssl rsa -traditional -outform DER` writes.
    /// Secret: store it as a credential.
    package var pkcs1DER: [UInt8] {
        let members = [
            publicKey.modulus.modulus, publicKey.exponent, privateExponent, prime1.modulus, prime2.modulus,
            exponent1, exponent2, coefficient,
        ]
        return DER.sequence(
            DER.unsignedInteger([0]) + members.flatMap { DER.unsignedInteger($0.bigEndianBytes) })
    }

    /// The key from DER PKCS #1 `RSAPrivateKey` bytes. Strict DER: definite minimal lengths,
    /// minimal non-negative INTEGERs, nothing after the SEQUENCE; then every check of
    /// ``init(modulus:publicExponent:privateExponent:prime1:prime2:exponent1:exponent2:coefficient:)``.
    /// - Throws: ``RSAPrivateKeyError`` naming what was wrong.
    package init(pkcs1DER bytes: some Collection<UInt8>) throws(RSAPrivateKeyError) {
        var outer = DER.Reader(Array(bytes))
        var reader = DER.Reader(try outer.read(tag: 0x30))
        guard outer.isAtEnd else { throw .malformedEncoding("bytes after the SEQUENCE") }
        let version = try reader.readUnsignedInteger()
        guard version == [0] else { throw .unsupportedVersion }
        var members: [[UInt8]] = []
        for _ in 0..<8 { members.append(try reader.readUnsignedInteger()) }
        guard reader.isAtEnd else {
            throw .malformedEncoding("more than the nine INTEGERs of a two-prime key")
        }
        try self.init(
            modulus: members[0], publicExponent: members[1], privateExponent: members[2], prime1: members[3],
            prime2: members[4], exponent1: members[5], exponent2: members[6], coefficient: members[7])
    }
}

extension DER {
    /// Reads DER elements from the front of some bytes; every malformation is a thrown
    /// ``RSAPrivateKeyError/malformedEncoding(_:)``, never a trap.
    struct Reader {
        private let bytes: [UInt8]
        private var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        /// `true` when every byte has been read.
        var isAtEnd: Bool { index == bytes.count }

        /// The content of the next element, which must have tag `tag` and a definite minimal length.
        mutating func read(tag: UInt8) throws(RSAPrivateKeyError) -> [UInt8] {
            guard index < bytes.count else { throw .malformedEncoding("truncated before a tag") }
            guard bytes[index] == tag else {
                throw .malformedEncoding("tag \(bytes[index]) where \(tag) belongs")
            }
            index += 1
            let length = try readLength()
            guard length <= bytes.count - index else { throw .malformedEncoding("length past the end") }
            defer { index += length }
            return Array(bytes[index..<index + length])
        }

        /// The magnitude of the next INTEGER, which must be minimal and not negative: big-endian, with
        /// the sign byte dropped (zero is `[0]`).
        mutating func readUnsignedInteger() throws(RSAPrivateKeyError) -> [UInt8] {
            let content = try read(tag: 0x02)
            guard let first = content.first else { throw .malformedEncoding("empty INTEGER") }
            guard first & 0x80 == 0 else { throw .malformedEncoding("negative INTEGER") }
            if content.count > 1, first == 0 {
                guard content[1] & 0x80 != 0 else { throw .malformedEncoding("INTEGER not minimal") }
                return Array(content.dropFirst())
            }
            return content
        }

        /// A definite length: short form, or long form in at most 3 bytes (16 MB, beyond any key;
        /// and no overflow where `Int` has 32 bits), minimal either way.
        private mutating func readLength() throws(RSAPrivateKeyError) -> Int {
            guard index < bytes.count else { throw .malformedEncoding("truncated before a length") }
            let first = bytes[index]
            index += 1
            guard first & 0x80 != 0 else { return Int(first) }
            let count = Int(first & 0x7f)
            guard count >= 1 else { throw .malformedEncoding("indefinite length") }
            guard count <= 3 else { throw .malformedEncoding("length of \(count) bytes") }
            guard count <= bytes.count - index else { throw .malformedEncoding("truncated length") }
            guard bytes[index] != 0 else { throw .malformedEncoding("length not minimal") }
            var length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
            guard length >= 0x80 else { throw .malformedEncoding("length not minimal") }
            return length
        }
    }
}
