import NativeAuthTestSupport
import Testing

@testable import AuthCrypto

/// Primes and composites for the Miller–Rabin tests, each with its source.
enum PrimalityFixtures {
    /// RFC 3526 §2: the 1536-bit MODP group's prime, 2^1536 - 2^1472 - 1 + 2^64 · (⌊2^1406 π⌋ + 741804).
    static let modp1536 = [
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD",
        "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED",
        "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F",
        "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA237327FFFFFFFFFFFFFFFF",
    ].joined()

    /// RFC 3526 §3: the 2048-bit MODP group's prime, 2^2048 - 2^1984 - 1 + 2^64 · (⌊2^1918 π⌋ + 124476).
    static let modp2048 = [
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD",
        "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED",
        "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F",
        "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B",
        "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510",
        "15728E5A8AACAA68FFFFFFFFFFFFFFFF",
    ].joined()

    /// A 580-bit Carmichael number of Chernick's form (6k + 1)(12k + 1)(18k + 1), found with Python
    /// when this test was written: its three factors are prime (checked with 20 Miller–Rabin bases
    /// each), each p - 1 divides N - 1 (Korselt's criterion), and N is also a strong pseudoprime to
    /// base 2, so a Fermat test with any coprime base and a Miller–Rabin round with base 2 both pass it.
    static let chernickFactor = "120f602a4d4159efbb3635509baa28bf709004319d1f06e0d"
    static let chernickCarmichael = [
        "8a0f724de01662e95d9fd7f5ae224c062477c8c58a3612a1bf05f97a1d4bf36dc6225f8a9b11558667478e3e0114cf232fd4a5",
        "54565fd36e3cfe18aac702cc4c74a7499650739f2f9",
    ].joined()

    /// OEIS A014233: the smallest strong pseudoprimes to all of the first 11, 12 and 13 prime bases
    /// (Jaeschke, 1993; Jiang and Deng, 2014), with their factors.
    static let strongPseudoprimes: [(value: String, factors: [UInt64], bases: Int)] = [
        ("3825123056546413051", [149_491, 747_451, 34_233_211], 11),
        ("318665857834031151167461", [399_165_290_221, 798_330_580_441], 12),
        ("3317044064679887385961981", [1_287_836_182_261, 2_575_672_364_521], 13),
    ]

    /// The first 13 primes, the bases of A014233.
    static let primeBases: [UInt64] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41]
}

/// Decimal text to a `BigUInt`, for test values.
func bigDecimal(_ text: String) -> BigUInt {
    text.reduce(BigUInt.zero) { value, digit in value * BigUInt(10) + BigUInt(UInt64(digit.wholeNumberValue ?? 0)) }
}

@Suite("Crypto: Miller–Rabin and prime search", .hangLimit, .cpuHeavy)
struct PrimalityTests {
    @Test("Small numbers: exact, by trial division")
    func small() {
        var random = SplitMix64(seed: 1)
        let primes: Set<UInt64> = [2, 3, 5, 7, 11, 13, 65_521, 65_537, 4_294_967_291]
        for value: UInt64 in [0, 1, 2, 3, 4, 9, 15, 561, 41041, 825_265, 65_521, 65_537, 4_294_967_291, 4_294_967_295] {
            #expect(Primality.isProbablePrime(BigUInt(value), rounds: 1, using: &random) == primes.contains(value))
        }
        #expect(Primality.smallPrimes.count == 6541)
        #expect(Primality.smallPrimes.first == 3 && Primality.smallPrimes.last == 65_521)
    }

    @Test("Known primes pass: Mersenne 2^61 - 1, 2^127 - 1, 2^521 - 1, RFC 3526's 1536- and 2048-bit primes")
    func knownPrimes() {
        var random = SplitMix64(seed: 2)
        let primes = [
            (BigUInt(1) << 61) - BigUInt(1), (BigUInt(1) << 127) - BigUInt(1), (BigUInt(1) << 521) - BigUInt(1),
            big(PrimalityFixtures.modp1536), big(PrimalityFixtures.modp2048),
        ]
        for prime in primes {
            #expect(Primality.isProbablePrime(prime, rounds: 6, using: &random), "\(prime.bitWidth)-bit prime")
        }
        #expect(big(PrimalityFixtures.modp1536).bitWidth == 1536)
        #expect(big(PrimalityFixtures.modp2048).bitWidth == 2048)
    }

    @Test("Carmichael numbers fool Fermat, not Miller–Rabin: 561, 41041, 825265 and a 580-bit one")
    func carmichaelNumbers() throws {
        var random = SplitMix64(seed: 3)
        for value: UInt64 in [561, 41041, 825_265] {
            let context = try #require(MontgomeryModulus(BigUInt(value)))
            // Fermat with a coprime base passes; the strong test with bases 2 and 3 does not (561 is
            // divisible by 3, so base 5 stands in).
            #expect(context.power(BigUInt(2), BigUInt(value - 1)) == BigUInt(1))
            #expect(!Primality.isStrongProbablePrime(context, base: BigUInt(2)))
            #expect(!Primality.isStrongProbablePrime(context, base: BigUInt(value == 561 ? 5 : 3)))
            #expect(!Primality.passesMillerRabin(BigUInt(value), rounds: 10, using: &random))
        }
        let carmichael = big(PrimalityFixtures.chernickCarmichael)
        let k = (big(PrimalityFixtures.chernickFactor) - BigUInt(1)) / BigUInt(6)
        let factors = [6, 12, 18].map { BigUInt(UInt64($0)) * k + BigUInt(1) }
        #expect(factors[0] * factors[1] * factors[2] == carmichael)
        for factor in factors {
            #expect(((carmichael - BigUInt(1)) % (factor - BigUInt(1))).isZero)
            #expect(Primality.isProbablePrime(factor, rounds: 8, using: &random))
        }
        let context = try #require(MontgomeryModulus(carmichael))
        let base = BigUInt.random(below: carmichael, using: &random)
        #expect(context.power(base, carmichael - BigUInt(1)) == BigUInt(1))
        #expect(Primality.isStrongProbablePrime(context, base: BigUInt(2)))
        #expect(!Primality.isStrongProbablePrime(context, base: BigUInt(3)))
        // No small factor: only Miller–Rabin rounds with random bases can refuse it, and 20 do.
        #expect(!Primality.isProbablePrime(carmichael, rounds: 20, using: &random))
    }

    @Test("Strong pseudoprimes to many prime bases pass exactly those bases, and random bases catch them")
    func strongPseudoprimes() throws {
        var random = SplitMix64(seed: 4)
        for (text, factors, count) in PrimalityFixtures.strongPseudoprimes {
            let value = bigDecimal(text)
            #expect(factors.reduce(BigUInt(1)) { $0 * BigUInt($1) } == value)
            let context = try #require(MontgomeryModulus(value))
            for (index, base) in PrimalityFixtures.primeBases.enumerated() {
                #expect(
                    Primality.isStrongProbablePrime(context, base: BigUInt(base)) == (index < count),
                    "\(text) to base \(base)")
            }
            #expect(!Primality.isProbablePrime(value, rounds: 20, using: &random))
        }
        // 2047 = 23 · 89, the smallest strong pseudoprime to base 2.
        let context = try #require(MontgomeryModulus(BigUInt(2047)))
        #expect(Primality.isStrongProbablePrime(context, base: BigUInt(2)))
        #expect(!Primality.isStrongProbablePrime(context, base: BigUInt(3)))
    }

    @Test("Random products of two primes are refused")
    func semiprimes() throws {
        var random = SplitMix64(seed: 5)
        for _ in 0..<3 {
            let p = try #require(Primality.randomPrime(bits: 128, exponent: 65537, rounds: 20, using: &random))
            let q = try #require(Primality.randomPrime(bits: 128, exponent: 65537, rounds: 20, using: &random))
            #expect(!Primality.isProbablePrime(p * q, rounds: 8, using: &random))
        }
    }

    @Test("The prime search: exact size, top two bits set, p - 1 prime to e, reproducible from a seed")
    func randomPrimes() throws {
        for seed: UInt64 in 1...4 {
            var random = SplitMix64(seed: seed)
            let bits = [64, 100, 256, 512][Int(seed - 1)]
            let exponent: UInt64 = seed == 4 ? 3 : 65537
            let prime = try #require(Primality.randomPrime(bits: bits, exponent: exponent, rounds: 20, using: &random))
            #expect(prime.bitWidth == bits)
            #expect(prime.bit(bits - 2))
            #expect((prime - BigUInt(1)).remainder(dividingBy: exponent) != 0)
            var check = SplitMix64(seed: seed &+ 100)
            #expect(Primality.isProbablePrime(prime, rounds: 20, using: &check))
            var again = SplitMix64(seed: seed)
            #expect(Primality.randomPrime(bits: bits, exponent: exponent, rounds: 20, using: &again) == prime)
        }
    }

    @Test("Rounds follow FIPS 186-5 Table B.1, generously")
    func rounds() {
        #expect(Primality.rounds(forBits: 1024) >= 5)
        #expect(Primality.rounds(forBits: 1536) >= 4)
        #expect(Primality.rounds(forBits: 2048) >= 4)
        #expect(Primality.rounds(forBits: 512) >= 40)
    }
}
