import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

/// Base64url text to bytes, for test values.
private func decoded(_ text: String) throws -> [UInt8] {
    [UInt8](try #require(Base64URL.decode(text)))
}

/// The RFC 7515 A.2 key, from its JWK members.
func rfc7515PrivateKey() throws -> RSAPrivateKey {
    try RSAPrivateKey(
        modulus: decoded(SignatureFixtures.rfc7515Modulus), publicExponent: [1, 0, 1],
        privateExponent: decoded(PrivateKeyFixtures.rfc7515PrivateExponent),
        prime1: decoded(PrivateKeyFixtures.rfc7515Prime1), prime2: decoded(PrivateKeyFixtures.rfc7515Prime2),
        exponent1: decoded(PrivateKeyFixtures.rfc7515Exponent1),
        exponent2: decoded(PrivateKeyFixtures.rfc7515Exponent2),
        coefficient: decoded(PrivateKeyFixtures.rfc7515Coefficient))
}

@Suite("Crypto: RSA private keys, RS256 signing", .hangLimit, .cpuHeavy)
struct RSAPrivateKeyTests {
    @Test("RFC 7515 A.2: signing the example's input gives the published signature, byte for byte")
    func rfc7515KnownAnswer() throws {
        let key = try rfc7515PrivateKey()
        let signed = SignedText(SignatureFixtures.rfc7515Token)
        var random = SplitMix64(seed: 7515)
        #expect(try key.signSHA256(signed.signingInput, using: &random) == signed.signature)
        // The blinding changes nothing in the result, whatever the randomness.
        #expect(try key.signSHA256(signed.signingInput) == signed.signature)
        #expect(key.publicKey.modulusBytes == (try decoded(SignatureFixtures.rfc7515Modulus)))
        #expect(key.publicKey.exponentBytes == [1, 0, 1])
    }

    @Test("An OpenSSL-made key parses from DER and reproduces OpenSSL's signature")
    func opensslKnownAnswer() throws {
        let key = try RSAPrivateKey(pkcs1DER: bytes(hex: PrivateKeyFixtures.opensslPKCS1DER))
        let message = Array(PrivateKeyFixtures.opensslMessage.utf8)
        var random = SplitMix64(seed: 3)
        #expect(try key.signSHA256(message, using: &random) == bytes(hex: PrivateKeyFixtures.opensslSignature))
        #expect(key.pkcs1DER == bytes(hex: PrivateKeyFixtures.opensslPKCS1DER))
    }

    @Test("Signatures verify with every RS256 verifier; a changed message, signature or key does not")
    func signThenVerify() throws {
        let key = try rfc7515PrivateKey()
        let other = try RSAPrivateKey(pkcs1DER: bytes(hex: PrivateKeyFixtures.opensslPKCS1DER))
        var random = SplitMix64(seed: 11)
        for length in [0, 1, 55, 56, 64, 1000] {
            let message = random.bytes(length)
            let signature = try key.signSHA256(message, using: &random)
            #expect(signature.count == 256)
            try RSASignature.verifySHA256(signature: signature, message: message, key: key.publicKey)
            for verifier in rs256Verifiers {
                #expect(verifier.isValidSignature(signature, of: message, key: key.publicKey))
                #expect(!verifier.isValidSignature(signature, of: message + [0], key: key.publicKey))
                #expect(!verifier.isValidSignature(signature, of: message, key: other.publicKey))
                var tampered = signature
                tampered[random.below(tampered.count)] ^= 1 << UInt8(random.below(8))
                #expect(!verifier.isValidSignature(tampered, of: message, key: key.publicKey))
            }
        }
    }

    @Test("The blinded CRT operation equals plain m^d mod n, at the edges and for random m")
    func crtMatchesPlainExponentiation() throws {
        let key = try rfc7515PrivateKey()
        let n = key.publicKey.modulus.modulus
        var random = SplitMix64(seed: 12)
        var values = [BigUInt.zero, BigUInt(1), BigUInt(2), n - BigUInt(1), key.prime1.modulus, key.prime2.modulus]
        values += (0..<4).map { _ in BigUInt.random(below: n, using: &random) }
        for value in values {
            let expected = try #require(value.power(key.privateExponent, modulus: n))
            #expect(key.privateOperation(value, using: &random) == expected)
        }
        #expect(key.privateOperation(n, using: &random) == nil)
    }

    @Test("A seeded 2048-bit key: every invariant holds, it signs, and the same seed gives the same key")
    func generation() throws {
        var random = SplitMix64(seed: 2048)
        let key = try RSAPrivateKey.generate(bits: 2048, using: &random)
        let (n, e, d) = (key.publicKey.modulus.modulus, key.publicKey.exponent, key.privateExponent)
        let (p, q) = (key.prime1.modulus, key.prime2.modulus)
        #expect(n.bitWidth == 2048 && e == BigUInt(65537))
        #expect(p.bitWidth == 1024 && q.bitWidth == 1024 && p.bit(1022) && q.bit(1022))
        #expect(p * q == n && p > q)
        #expect(p - q > BigUInt(1) << (1024 - 100))
        let (pMinusOne, qMinusOne) = (p - BigUInt(1), q - BigUInt(1))
        #expect(BigUInt.gcd(e, pMinusOne) == BigUInt(1) && BigUInt.gcd(e, qMinusOne) == BigUInt(1))
        let lambda = pMinusOne * qMinusOne / BigUInt.gcd(pMinusOne, qMinusOne)
        #expect(e * d % lambda == BigUInt(1) && d < lambda && d > BigUInt(1) << 1024)
        #expect(key.exponent1 == d % pMinusOne && key.exponent2 == d % qMinusOne)
        #expect(key.coefficient * q % p == BigUInt(1))
        var check = SplitMix64(seed: 1)
        #expect(Primality.isProbablePrime(p, rounds: 5, using: &check))
        #expect(Primality.isProbablePrime(q, rounds: 5, using: &check))
        let message = Array("generated".utf8)
        let signature = try key.signSHA256(message, using: &random)
        #expect(PortableRS256Verifier().isValidSignature(signature, of: message, key: key.publicKey))
        #expect(try RSAPrivateKey(pkcs1DER: key.pkcs1DER).pkcs1DER == key.pkcs1DER)
        var again = SplitMix64(seed: 2048)
        #expect(try RSAPrivateKey.generate(bits: 2048, using: &again).pkcs1DER == key.pkcs1DER)
    }

    @Test("Generation refuses sizes outside 2048 to 4096 bits, and odd sizes", arguments: [0, 1024, 2047, 4098, 8192])
    func generationRefusesSizes(_ bits: Int) {
        var random = SplitMix64(seed: 1)
        #expect(throws: RSAPrivateKeyError.unsupportedSize(bits: bits)) {
            try RSAPrivateKey.generate(bits: bits, using: &random)
        }
    }

    @Test(
        "A generator that repeats itself: generation throws instead of searching forever, signing still signs right",
        arguments: [0, UInt64.max])
    func stuckGenerator(_ value: UInt64) throws {
        var stuck = StuckGenerator(value: value)
        #expect(throws: RSAPrivateKeyError.randomSourceFailed) { try RSAPrivateKey.generate(bits: 2048, using: &stuck) }
        let signed = SignedText(SignatureFixtures.rfc7515Token)
        #expect(try rfc7515PrivateKey().signSHA256(signed.signingInput, using: &stuck) == signed.signature)
    }

    @Test("DER: the RFC 7515 key encodes as OpenSSL writes it, and parses back")
    func derRoundTrip() throws {
        let key = try rfc7515PrivateKey()
        #expect(key.pkcs1DER == bytes(hex: PrivateKeyFixtures.rfc7515PKCS1DER))
        let parsed = try RSAPrivateKey(pkcs1DER: key.pkcs1DER)
        #expect(parsed.pkcs1DER == key.pkcs1DER)
        #expect(parsed.publicKey == key.publicKey)
    }

    @Test("Members that do not belong together are refused with the check that failed")
    func inconsistentMembers() throws {
        let valid = try PrivateKeyMembers.rfc7515()
        var swapped = valid
        (swapped.p, swapped.q, swapped.dP, swapped.dQ) = (valid.q, valid.p, valid.dQ, valid.dP)  // qInv no longer fits
        var wrongD = valid
        wrongD.d = valid.d + BigUInt(2)
        var wrongDP = valid
        wrongDP.dP = valid.dP - BigUInt(1)
        var sameP = valid
        sameP.q = valid.p
        var notProduct = valid
        notProduct.q = valid.q + BigUInt(2)
        var zeroD = valid
        zeroD.d = .zero
        var wrongCoefficient = valid
        wrongCoefficient.qInv = valid.qInv + BigUInt(1)
        var hugeCoefficient = valid
        hugeCoefficient.qInv = BigUInt(1) << 20000
        let cases: [(PrivateKeyMembers, RSAPrivateKeyError)] = [
            (swapped, .inconsistent(.coefficient)), (wrongD, .inconsistent(.crtExponents)),
            (wrongDP, .inconsistent(.crtExponents)), (sameP, .inconsistent(.primes)),
            (notProduct, .inconsistent(.primes)), (zeroD, .inconsistent(.privateExponent)),
            (wrongCoefficient, .inconsistent(.coefficient)), (hugeCoefficient, .inconsistent(.coefficient)),
        ]
        for (members, error) in cases {
            #expect(throws: error) { try members.key() }
        }
        var smallModulus = valid
        smallModulus.n = BigUInt(15)
        #expect(throws: RSAPrivateKeyError.publicKey(.modulusTooSmall(bits: 4))) { try smallModulus.key() }
        var evenExponent = valid
        evenExponent.e = BigUInt(65536)
        #expect(throws: RSAPrivateKeyError.publicKey(.invalidExponent)) { try evenExponent.key() }
    }

    @Test("Composite 'primes' with consistent CRT members fail the pairwise consistency check")
    func compositePrimes() throws {
        // p = 3 · 5 · P and q = 7 · Q for 1024-bit primes P, Q: n = p · q is odd and 2048+ bits;
        // members computed as if p and q were prime pass the congruences, not the test signature.
        var random = SplitMix64(seed: 21)
        let bigP = try #require(Primality.randomPrime(bits: 1020, exponent: 65537, rounds: 8, using: &random))
        let bigQ = try #require(Primality.randomPrime(bits: 1024, exponent: 65537, rounds: 8, using: &random))
        let p = BigUInt(15) * bigP
        let q = BigUInt(7) * bigQ
        let e = BigUInt(65537)
        let (pMinusOne, qMinusOne) = (p - BigUInt(1), q - BigUInt(1))
        let lambda = pMinusOne * qMinusOne / BigUInt.gcd(pMinusOne, qMinusOne)
        let d = try #require(e.inverse(modulo: lambda))
        let members = PrivateKeyMembers(
            n: p * q, e: e, d: d, p: p, q: q, dP: d % pMinusOne, dQ: d % qMinusOne,
            qInv: try #require(q.inverse(modulo: p)))
        #expect(throws: RSAPrivateKeyError.inconsistent(.pairwiseConsistency)) { try members.key() }
    }

    @Test("No private number shows in description, debugDescription, a mirror or dump")
    func redaction() throws {
        let key = try rfc7515PrivateKey()
        var dumped = ""
        dump(key, to: &dumped)
        let texts = [String(describing: key), String(reflecting: key), "\(key)", dumped, String(describing: [key])]
        let secrets = [
            key.privateExponent, key.prime1.modulus, key.prime2.modulus, key.exponent1, key.exponent2, key.coefficient,
        ]
        for text in texts {
            #expect(text.contains("redacted"), "\(text)")
            for secret in secrets {
                let hex = secret.description
                #expect(!text.contains(hex.prefix(12)), "\(text) shows a private member")
                #expect(!text.lowercased().contains(String(hex.suffix(12))), "\(text) shows a private member")
            }
            for member in [PrivateKeyFixtures.rfc7515PrivateExponent, PrivateKeyFixtures.rfc7515Prime1] {
                #expect(!text.contains(member.prefix(12)))
            }
        }
        #expect(Mirror(reflecting: key).children.map(\.label) == ["modulusBitWidth", "privateMembers"])
        #expect(String(describing: key) == "RSAPrivateKey(2048 bits, e = 0x10001, private members redacted)")
    }
}

/// The eight members of a key as numbers, to break one at a time.
struct PrivateKeyMembers {
    var n, e, d, p, q, dP, dQ, qInv: BigUInt

    static func rfc7515() throws -> PrivateKeyMembers {
        let key = try rfc7515PrivateKey()
        return PrivateKeyMembers(
            n: key.publicKey.modulus.modulus, e: key.publicKey.exponent, d: key.privateExponent,
            p: key.prime1.modulus, q: key.prime2.modulus, dP: key.exponent1, dQ: key.exponent2,
            qInv: key.coefficient)
    }

    func key() throws(RSAPrivateKeyError) -> RSAPrivateKey {
        try RSAPrivateKey(
            modulus: n.bigEndianBytes, publicExponent: e.bigEndianBytes, privateExponent: d.bigEndianBytes,
            prime1: p.bigEndianBytes, prime2: q.bigEndianBytes, exponent1: dP.bigEndianBytes,
            exponent2: dQ.bigEndianBytes, coefficient: qInv.bigEndianBytes)
    }
}

/// A broken random generator: the same value every time.
struct StuckGenerator: RandomNumberGenerator {
    let value: UInt64

    mutating func next() -> UInt64 { value }
}
