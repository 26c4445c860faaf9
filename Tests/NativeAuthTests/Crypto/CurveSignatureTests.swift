import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

@Suite(
    "Crypto: SHA-512, Ed25519 and P-256 by published vectors and hostile input", .hangLimit, .cpuHeavy)
struct CurveSignatureTests {
    @Test("SHA-512 gives the FIPS 180-4 / RFC 6234 example digests")
    func sha512() {
        let cases: [(message: [UInt8], digest: String)] = [
            (
                Array("abc".utf8),
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                    + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
            ),
            (
                [],
                "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
                    + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
            ),
            (
                Array(
                    ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                        + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8),
                "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
                    + "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"
            ),
            (
                [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000),
                "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                    + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"
            ),
        ]
        for (message, digest) in cases {
            #expect(SHA512.hash(message) == bytes(hex: digest), "message of \(message.count) bytes")
        }
        // Lengths around the padding boundary (111, 112 and 128 bytes) differ from each other.
        let digests = Set([111, 112, 127, 128].map { SHA512.hash([UInt8](repeating: 0, count: $0)) })
        #expect(digests.count == 4)
    }

    /// RFC 8032 §7.1, tests 1 to 3: public key, message, signature.
    static let rfc8032: [(key: String, message: String, signature: String)] = [
        (
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
        (
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
        (
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
        ),
    ]

    @Test("RFC 8032 §7.1 Ed25519 vectors verify, and fail with a changed message or signature")
    func rfc8032Vectors() throws {
        for vector in Self.rfc8032 {
            let key = try Ed25519PublicKey(bytes(hex: vector.key))
            let message = bytes(hex: vector.message)
            let signature = bytes(hex: vector.signature)
            #expect(Ed25519.isValidSignature(signature, of: message, key: key))
            #expect(!Ed25519.isValidSignature(signature, of: message + [0], key: key))
            var flipped = signature
            flipped[40] ^= 0x01
            #expect(!Ed25519.isValidSignature(flipped, of: message, key: key))
            #expect(!Ed25519.isValidSignature(signature.dropLast(), of: message, key: key))
            #expect(!Ed25519.isValidSignature(signature + [0], of: message, key: key))
        }
    }

    @Test("Ed25519 keys: wrong lengths, y not below p and points off the curve are refused")
    func ed25519Keys() {
        #expect(throws: ECKeyError.ed25519Length(31)) { try Ed25519PublicKey([UInt8](repeating: 0, count: 31)) }
        #expect(throws: ECKeyError.ed25519Length(33)) { try Ed25519PublicKey([UInt8](repeating: 0, count: 33)) }
        // y = p (non-canonical encoding of y = 0) and y = 2^255 - 1.
        var yIsP = [UInt8](repeating: 0xff, count: 32)
        yIsP[0] = 0xed
        yIsP[31] = 0x7f
        #expect(throws: ECKeyError.ed25519Encoding) { try Ed25519PublicKey(yIsP) }
        #expect(throws: ECKeyError.ed25519Encoding) {
            try Ed25519PublicKey([UInt8](repeating: 0xff, count: 31) + [0x7f])
        }
        // y = 2: (y² - 1) / (d·y² + 1) has no square root.
        #expect(throws: ECKeyError.ed25519Encoding) { try Ed25519PublicKey([2] + [UInt8](repeating: 0, count: 31)) }
        // y = 1 is the identity, x = 0: with the sign bit set it is not an encoding.
        #expect(throws: ECKeyError.ed25519Encoding) {
            try Ed25519PublicKey([1] + [UInt8](repeating: 0, count: 30) + [0x80])
        }
        #expect(throws: Never.self) { try Ed25519PublicKey([1] + [UInt8](repeating: 0, count: 31)) }
    }

    @Test("Ed25519 signatures with S not below L are refused (RFC 8032 §5.1.7 step 1)")
    func ed25519ScalarRange() throws {
        let vector = Self.rfc8032[0]
        let key = try Ed25519PublicKey(bytes(hex: vector.key))
        let signature = bytes(hex: vector.signature)
        // S + L: the same point, a non-canonical scalar.
        let order = bytes(hex: "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        var carry = 0
        var raised = signature
        for index in 0..<32 {
            let sum = Int(signature[32 + index]) + Int(order[index]) + carry
            raised[32 + index] = UInt8(sum & 0xff)
            carry = sum >> 8
        }
        #expect(!Ed25519.isValidSignature(raised, of: [], key: key))
        #expect(!Ed25519.isValidSignature([UInt8](repeating: 0xff, count: 64), of: [], key: key))
    }

    @Test("P-256 keys: wrong lengths, coordinates not below p and points off the curve are refused")
    func p256Keys() throws {
        let x = try #require(Base64URL.decode(AlgorithmFixtures.rfc7515ES256X)).map { $0 }
        let y = try #require(Base64URL.decode(AlgorithmFixtures.rfc7515ES256Y)).map { $0 }
        #expect(throws: Never.self) { try P256PublicKey(x: x, y: y) }
        #expect(throws: ECKeyError.coordinateLength(x: 31, y: 32)) { try P256PublicKey(x: x.dropFirst(), y: y) }
        #expect(throws: ECKeyError.coordinateLength(x: 32, y: 33)) { try P256PublicKey(x: x, y: [0] + y) }
        var offCurve = y
        offCurve[31] ^= 1
        #expect(throws: ECKeyError.notOnCurve) { try P256PublicKey(x: x, y: offCurve) }
        let p = bytes(hex: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
        #expect(throws: ECKeyError.coordinateOutOfRange) { try P256PublicKey(x: p, y: y) }
        #expect(throws: ECKeyError.coordinateOutOfRange) {
            try P256PublicKey(x: x, y: [UInt8](repeating: 0xff, count: 32))
        }
        // (0, 0) is not on the curve (b ≠ 0); there is no encoding of infinity.
        #expect(throws: ECKeyError.notOnCurve) {
            try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("ES256 signatures: r or s zero, at or above n, or of the wrong length are refused")
    func p256SignatureRanges() throws {
        let x = try #require(Base64URL.decode(AlgorithmFixtures.rfc7515ES256X)).map { $0 }
        let y = try #require(Base64URL.decode(AlgorithmFixtures.rfc7515ES256Y)).map { $0 }
        let key = try P256PublicKey(x: x, y: y)
        let signed = SignedText(AlgorithmFixtures.rfc7515ES256Token)
        #expect(ECDSAP256.isValidSignature(signed.signature, of: signed.signingInput, key: key))
        let n = bytes(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
        let r = Array(signed.signature.prefix(32))
        let s = Array(signed.signature.suffix(32))
        let zero = [UInt8](repeating: 0, count: 32)
        for bad in [zero + s, r + zero, n + s, r + n, [UInt8](repeating: 0xff, count: 64), r, r + s + [0], []] {
            #expect(!ECDSAP256.isValidSignature(bad, of: signed.signingInput, key: key))
        }
        // s and n - s both verify in ECDSA; JOSE does not forbid the high form, and neither does this.
        let highS = UInt256.subtracting(UInt256(bigEndian: n)!, UInt256(bigEndian: s)!).difference.bigEndianBytes
        #expect(ECDSAP256.isValidSignature(r + highS, of: signed.signingInput, key: key))
    }

    @Test("PS256: MGF1-SHA-256 gives RFC 8017's counter construction; wrong encodings are refused")
    func pss() throws {
        // MGF1 output is SHA-256(seed ‖ counter) blocks, cut to length.
        let seed: [UInt8] = [1, 2, 3]
        let mask = RSAPSSSignature.mgf1SHA256(seed: seed, length: 40)
        #expect(mask.count == 40)
        #expect(Array(mask.prefix(32)) == SHA256.hash(seed + [0, 0, 0, 0]))
        #expect(Array(mask.suffix(8)) == Array(SHA256.hash(seed + [0, 0, 0, 1]).prefix(8)))
        let key = try rsaKey(n: AlgorithmFixtures.opensslPS256Modulus)
        let signed = SignedText(AlgorithmFixtures.opensslPS256Token)
        #expect(throws: Never.self) {
            try RSAPSSSignature.verifySHA256(signature: signed.signature, message: signed.signingInput, key: key)
        }
        #expect(throws: RSASignatureError.lengthMismatch(expected: 256, actual: 255)) {
            try RSAPSSSignature.verifySHA256(
                signature: Array(signed.signature.dropFirst()), message: signed.signingInput, key: key)
        }
        #expect(throws: RSASignatureError.representativeOutOfRange) {
            try RSAPSSSignature.verifySHA256(
                signature: [UInt8](repeating: 0xff, count: 256), message: signed.signingInput, key: key)
        }
        #expect(throws: RSASignatureError.encodingMismatch) {
            try RSAPSSSignature.verifySHA256(signature: signed.signature, message: signed.signingInput + [0], key: key)
        }
        // The same signature is not a PKCS #1 v1.5 one, and an RS256 signature is not a PSS one.
        #expect(throws: RSASignatureError.encodingMismatch) {
            try RSASignature.verifySHA256(signature: signed.signature, message: signed.signingInput, key: key)
        }
        let rs256 = SignedText(SignatureFixtures.opensslToken)
        let rs256Key = try rsaKey(n: SignatureFixtures.opensslModulus)
        #expect(throws: RSASignatureError.encodingMismatch) {
            try RSAPSSSignature.verifySHA256(signature: rs256.signature, message: rs256.signingInput, key: rs256Key)
        }
    }
}

@Suite("Crypto: PS256 signing", .hangLimit, .cpuHeavy)
struct PSSSigningTests {
    @Test("EMSA-PSS encoding opens back to its salt and hash; signatures verify and differ by salt")
    func pssSigning() throws {
        // The encoding alone: verification of an encoding made here accepts it, and no other hash.
        let hash = SHA256.hash(Array("message".utf8))
        let salt = [UInt8](repeating: 7, count: 32)
        let encoded = try #require(RSAPrivateKey.pssEncoding(messageHash: hash, salt: salt, emBits: 2047))
        #expect(encoded.count == 256)
        #expect(encoded.last == 0xbc)
        #expect(RSAPSSSignature.isConsistent(encoded: encoded, emBits: 2047, messageHash: hash))
        #expect(!RSAPSSSignature.isConsistent(encoded: encoded, emBits: 2047, messageHash: SHA256.hash([1])))
        #expect(RSAPrivateKey.pssEncoding(messageHash: hash, salt: salt, emBits: 8 * 65) == nil)
        // Signing with the OpenSSL fixture key and a seeded generator: PSS, not PKCS #1 v1.5.
        let key = try RSAPrivateKey(pkcs1DER: bytes(hex: PrivateKeyFixtures.opensslPKCS1DER))
        var generator = SplitMix64(seed: 7)
        let message = Array("DPoP proof signing input".utf8)
        let first = try key.signPSSSHA256(message, using: &generator)
        let second = try key.signPSSSHA256(message, using: &generator)
        #expect(first != second)
        for signature in [first, second] {
            #expect(throws: Never.self) {
                try RSAPSSSignature.verifySHA256(signature: signature, message: message, key: key.publicKey)
            }
            #expect(
                PortableSignatureVerifier().isValidSignature(
                    signature, of: message, algorithm: .ps256, key: .rsa(key.publicKey)))
            #expect(
                !PortableSignatureVerifier().isValidSignature(
                    signature, of: message, algorithm: .rs256, key: .rsa(key.publicKey)))
        }
    }
}
