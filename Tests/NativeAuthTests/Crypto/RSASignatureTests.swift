import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

/// A compact JWS split for RSA-level tests: the signed ASCII text and the signature bytes.
struct SignedText: Sendable {
    let signingInput: [UInt8]
    let signature: [UInt8]

    init(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        signingInput = Array(parts.prefix(2).joined(separator: ".").utf8)
        signature = [UInt8](Base64URL.decode(String(parts.last ?? "")) ?? Data())
    }
}

/// A key from base64url `n` and `e`, for tests.
func rsaKey(n: String, e: String = "AQAB") throws -> RSAPublicKey {
    let modulus = try #require(Base64URL.decode(n))
    let exponent = try #require(Base64URL.decode(e))
    return try RSAPublicKey(modulus: modulus, exponent: exponent)
}

/// Hex text to bytes, for tests.
func bytes(hex: String) -> [UInt8] {
    var result: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
        result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
        index = next
    }
    return result
}

/// A published or independently produced RS256 signature and its key.
struct RS256Vector: Sendable, CustomTestStringConvertible {
    let name: String
    let modulus: String
    let exponent: String
    let token: String

    var testDescription: String { name }

    static let all: [RS256Vector] = [
        RS256Vector(
            name: "RFC 7515 A.2", modulus: SignatureFixtures.rfc7515Modulus, exponent: "AQAB",
            token: SignatureFixtures.rfc7515Token),
        RS256Vector(
            name: "RFC 7520 4.1", modulus: SignatureFixtures.rfc7520Modulus, exponent: "AQAB",
            token: SignatureFixtures.rfc7520Token),
        RS256Vector(
            name: "OpenSSL 2048-bit", modulus: SignatureFixtures.opensslModulus, exponent: "AQAB",
            token: SignatureFixtures.opensslToken),
        RS256Vector(
            name: "OpenSSL 4096-bit, e = 3", modulus: SignatureFixtures.opensslE3Modulus, exponent: "Aw",
            token: SignatureFixtures.opensslE3Token),
    ]
}

/// The verifiers to run every vector through: the portable one, and Security's where it exists.
let rs256Verifiers: [any RS256Verifier] = {
    var verifiers: [any RS256Verifier] = [PortableRS256Verifier()]
    #if canImport(Security)
        verifiers.append(SecurityRS256Verifier())
    #endif
    return verifiers
}()

@Suite("Crypto: RSASSA-PKCS1-v1_5 SHA-256 verification", .hangLimit)
struct RSASignatureTests {
    @Test("Published and OpenSSL-made signatures verify", arguments: RS256Vector.all)
    func vectorsVerify(_ vector: RS256Vector) throws {
        let key = try rsaKey(n: vector.modulus, e: vector.exponent)
        let signed = SignedText(vector.token)
        try RSASignature.verifySHA256(signature: signed.signature, message: signed.signingInput, key: key)
        for verifier in rs256Verifiers {
            #expect(verifier.isValidSignature(signed.signature, of: signed.signingInput, key: key))
        }
    }

    @Test("One flipped bit anywhere in the signature or the signed text fails", arguments: RS256Vector.all)
    func bitFlipsFail(_ vector: RS256Vector) throws {
        let key = try rsaKey(n: vector.modulus, e: vector.exponent)
        let signed = SignedText(vector.token)
        for index in [0, 1, signed.signature.count / 2, signed.signature.count - 1] {
            for bit in [0, 7] {
                var signature = signed.signature
                signature[index] ^= UInt8(1) << UInt8(bit)
                #expect(throws: RSASignatureError.self) {
                    try RSASignature.verifySHA256(signature: signature, message: signed.signingInput, key: key)
                }
                for verifier in rs256Verifiers {
                    #expect(!verifier.isValidSignature(signature, of: signed.signingInput, key: key))
                }
            }
        }
        for index in [0, signed.signingInput.count / 2, signed.signingInput.count - 1] {
            var message = signed.signingInput
            message[index] ^= 1
            #expect(throws: RSASignatureError.encodingMismatch) {
                try RSASignature.verifySHA256(signature: signed.signature, message: message, key: key)
            }
        }
    }

    @Test("A signature longer or shorter than the modulus is refused before any arithmetic")
    func lengthMismatch() throws {
        let key = try rsaKey(n: SignatureFixtures.rfc7515Modulus)
        let signed = SignedText(SignatureFixtures.rfc7515Token)
        #expect(throws: RSASignatureError.lengthMismatch(expected: 256, actual: 257)) {
            try RSASignature.verifySHA256(signature: [0] + signed.signature, message: signed.signingInput, key: key)
        }
        #expect(throws: RSASignatureError.lengthMismatch(expected: 256, actual: 255)) {
            try RSASignature.verifySHA256(
                signature: Array(signed.signature.dropFirst()), message: signed.signingInput, key: key)
        }
        #expect(throws: RSASignatureError.lengthMismatch(expected: 256, actual: 0)) {
            try RSASignature.verifySHA256(signature: [], message: signed.signingInput, key: key)
        }
    }

    @Test("A signature value at or above the modulus is refused")
    func representativeOutOfRange() throws {
        let modulus = [UInt8](try #require(Base64URL.decode(SignatureFixtures.rfc7515Modulus)))
        let key = try RSAPublicKey(modulus: modulus, exponent: [1, 0, 1])
        let message = Array("header.payload".utf8)
        for signature in [modulus, [UInt8](repeating: 0xff, count: modulus.count)] {
            #expect(throws: RSASignatureError.representativeOutOfRange) {
                try RSASignature.verifySHA256(signature: signature, message: message, key: key)
            }
        }
        var plusOne = modulus
        plusOne[plusOne.count - 1] &+= 1  // n is odd, so the last byte does not wrap
        #expect(throws: RSASignatureError.representativeOutOfRange) {
            try RSASignature.verifySHA256(signature: plusOne, message: message, key: key)
        }
    }

    @Test("A Bleichenbacher e = 3 forgery with trailing garbage is refused")
    func forgeryRefused() throws {
        let key = try rsaKey(n: SignatureFixtures.opensslE3Modulus, e: "Aw")
        let forged = SignedText(SignatureFixtures.forgedE3Token)
        // The forgery is well formed enough to fool a parsing verifier: s³ starts with the right prefix.
        let opened = try #require(
            key.modulus.power(BigUInt(bigEndian: forged.signature), key.exponent)?.bigEndianBytes(count: 512))
        let prefix = [0x00, 0x01] + [UInt8](repeating: 0xff, count: 8) + [0x00] + RSASignature.sha256DigestInfoPrefix
        #expect(Array(opened.prefix(prefix.count + 32)) == prefix + SHA256.hash(forged.signingInput))
        #expect(throws: RSASignatureError.encodingMismatch) {
            try RSASignature.verifySHA256(signature: forged.signature, message: forged.signingInput, key: key)
        }
        for verifier in rs256Verifiers {
            #expect(!verifier.isValidSignature(forged.signature, of: forged.signingInput, key: key))
        }
    }

    @Test("The expected encoding is 00 01 FF..FF 00, the SHA-256 DigestInfo, then the hash")
    func expectedEncodingLayout() throws {
        let digest = SHA256.hash(Array("abc".utf8))
        let encoded = try #require(RSASignature.expectedEncoding(digest: digest, length: 256))
        #expect(encoded.count == 256)
        #expect(encoded.prefix(2) == [0x00, 0x01])
        #expect(encoded[2..<204].allSatisfy { $0 == 0xff })
        #expect(encoded[204] == 0x00)
        #expect(Array(encoded[205..<224]) == bytes(hex: "3031300d060960864801650304020105000420"))
        #expect(Array(encoded.suffix(32)) == digest)
        #expect(RSASignature.expectedEncoding(digest: digest, length: 61) == nil)
        #expect(RSASignature.expectedEncoding(digest: [1, 2, 3], length: 256) == nil)
    }

    @Test("Constant-time comparison is still a comparison")
    func constantTimeEqual() {
        #expect(RSASignature.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!RSASignature.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!RSASignature.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(RSASignature.constantTimeEqual([], []))
    }
}

@Suite("Crypto: RSA public keys", .hangLimit)
struct RSAPublicKeyTests {
    @Test("Modulus below 2048 bits, above 8192 bits, or even is refused")
    func modulusRefusals() throws {
        let small = try #require(Base64URL.decode(SignatureFixtures.modulus1024))
        #expect(throws: RSAKeyError.modulusTooSmall(bits: 1024)) {
            try RSAPublicKey(modulus: small, exponent: [1, 0, 1])
        }
        // 2047 bits: one short.
        let short = [0x7f] + [UInt8](repeating: 0xff, count: 255)
        #expect(throws: RSAKeyError.modulusTooSmall(bits: 2047)) {
            try RSAPublicKey(modulus: short, exponent: [1, 0, 1])
        }
        let huge = [0x01] + [UInt8](repeating: 0xff, count: 1024)
        #expect(throws: RSAKeyError.modulusTooLarge(bits: 8193)) {
            try RSAPublicKey(modulus: huge, exponent: [1, 0, 1])
        }
        var even = [UInt8](try #require(Base64URL.decode(SignatureFixtures.rfc7515Modulus)))
        even[even.count - 1] &-= 1
        #expect(throws: RSAKeyError.evenModulus) { try RSAPublicKey(modulus: even, exponent: [1, 0, 1]) }
        #expect(throws: RSAKeyError.modulusTooSmall(bits: 0)) { try RSAPublicKey(modulus: [], exponent: [3]) }
    }

    @Test("Exponent 1, even exponents and exponents of 2^256 or more are refused; 3 and 2^256 - 1 are accepted")
    func exponentRefusals() throws {
        let modulus = [UInt8](try #require(Base64URL.decode(SignatureFixtures.rfc7515Modulus)))
        for exponent: [UInt8] in [[], [0], [1], [2], [1, 0, 0], [0, 0, 1, 0]] {
            #expect(throws: RSAKeyError.invalidExponent) { try RSAPublicKey(modulus: modulus, exponent: exponent) }
        }
        // FIPS 186-5 §5.4: e < 2^256. Larger exponents, up to the modulus, cost seconds per key.
        let twoTo256 = [UInt8(1)] + [UInt8](repeating: 0, count: 32)
        #expect(throws: RSAKeyError.exponentTooLarge(bits: 257)) {
            try RSAPublicKey(modulus: modulus, exponent: twoTo256.dropLast() + [1])
        }
        #expect(throws: RSAKeyError.exponentTooLarge(bits: 2048)) {
            try RSAPublicKey(modulus: modulus, exponent: modulus)
        }
        #expect(throws: Never.self) { try RSAPublicKey(modulus: modulus, exponent: [3]) }
        #expect(throws: Never.self) {
            try RSAPublicKey(modulus: modulus, exponent: [0] + [UInt8](repeating: 0xff, count: 32))
        }
    }

    @Test("Leading zero bytes in n and e are accepted; 2048 and 8192 bits are the inclusive bounds")
    func boundsAndLeadingZeros() throws {
        let modulus = [UInt8](try #require(Base64URL.decode(SignatureFixtures.rfc7515Modulus)))
        let padded = try RSAPublicKey(modulus: [0, 0] + modulus, exponent: [0, 1, 0, 1])
        #expect(padded == (try RSAPublicKey(modulus: modulus, exponent: [1, 0, 1])))
        #expect(padded.modulusBitWidth == 2048)
        #expect(padded.modulusByteCount == 256)
        let largest = try RSAPublicKey(modulus: [UInt8](repeating: 0xff, count: 1024), exponent: [1, 0, 1])
        #expect(largest.modulusBitWidth == 8192)
    }

    @Test("PKCS #1 DER matches OpenSSL's for the fixture keys")
    func pkcs1DER() throws {
        #expect(
            try rsaKey(n: SignatureFixtures.opensslModulus).pkcs1DER == bytes(hex: SignatureFixtures.opensslPKCS1DER))
        #expect(
            try rsaKey(n: SignatureFixtures.opensslE3Modulus, e: "Aw").pkcs1DER
                == bytes(hex: SignatureFixtures.opensslE3PKCS1DER))
    }

    @Test("DER lengths and integers are minimal")
    func derEncoding() {
        #expect(DER.length(0) == [0])
        #expect(DER.length(127) == [127])
        #expect(DER.length(128) == [0x81, 0x80])
        #expect(DER.length(256) == [0x82, 0x01, 0x00])
        #expect(DER.unsignedInteger([0, 0, 0x7f]) == [0x02, 0x01, 0x7f])
        #expect(DER.unsignedInteger([0x80]) == [0x02, 0x02, 0x00, 0x80])
        #expect(DER.unsignedInteger([]) == [0x02, 0x01, 0x00])
    }
}
