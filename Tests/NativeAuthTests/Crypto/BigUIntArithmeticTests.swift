import NativeAuthTestSupport
import Testing

@testable import AuthCrypto

/// A random number of 0 to `maxLimbs` limbs, with a randomly shortened top limb and now and then
/// all-ones or all-zeros limbs (the carry and borrow paths).
private func randomBig(_ random: inout SplitMix64, maxLimbs: Int) -> BigUInt {
    let count = random.int(0...maxLimbs)
    var limbs = (0..<count).map { _ -> UInt64 in
        switch random.below(6) {
        case 0: .max
        case 1: 0
        default: random.next()
        }
    }
    if count > 0 { limbs[count - 1] >>= UInt64(random.below(64)) }
    return BigUInt(limbs: limbs)
}

@Suite("Crypto: big integer arithmetic for RSA keys", .hangLimit)
struct BigUIntArithmeticTests {
    @Test("Small sums, differences, products, quotients and shifts")
    func small() {
        #expect(BigUInt(2) + BigUInt(3) == BigUInt(5))
        #expect(BigUInt(UInt64.max) + BigUInt(1) == BigUInt(limbs: [0, 1]))
        #expect(BigUInt(limbs: [0, 1]) - BigUInt(1) == BigUInt(UInt64.max))
        #expect(BigUInt(7) - BigUInt(7) == .zero)
        #expect(BigUInt(UInt64.max) * BigUInt(UInt64.max) == BigUInt(limbs: [1, UInt64.max - 1]))
        #expect(BigUInt(5) * .zero == .zero)
        #expect(BigUInt(100) / BigUInt(7) == BigUInt(14))
        #expect(BigUInt(100) % BigUInt(7) == BigUInt(2))
        #expect(BigUInt(3) / BigUInt(7) == .zero)
        #expect(BigUInt(1) << 64 == BigUInt(limbs: [0, 1]))
        #expect(BigUInt(limbs: [0, 1]) >> 64 == BigUInt(1))
        #expect(BigUInt(limbs: [0, 1]) >> 1 == BigUInt(1 << 63))
        #expect(BigUInt(5) >> 200 == .zero)
        #expect(BigUInt.zero << 10 == .zero)
        #expect(BigUInt(limbs: [0, 8]).trailingZeroBitCount == 67)
        #expect(BigUInt(1000).quotientAndRemainder(dividingBy: UInt64(7)) == (BigUInt(142), 6))
        #expect(BigUInt(limbs: [5, 1]).remainder(dividingBy: 3) == 0)  // 2^64 + 5 = 3 · 6148914691236517207
        #expect(BigUInt(limbs: [5, 1]).remainder(dividingBy: 7) == 0)  // 2^64 + 5 = 7 · 2635249153387078803
    }

    @Test("Division agrees with Python, including a quotient digit Algorithm D must correct")
    func divisionVectors() {
        let dividend = big(
            "e097cab3c26740904acd7558771e91f29d1a5efd80504ed83cda7724e70cb89f83e021e39d09e4af1b21b1644d218a7ea0471a738ad1"
                + "ba277ee6fca7cf32c5466e4acafa1fe345bb95daa48c7c6dae015baf2f48777015699b4dba70508eb0ece6ea9d82d562c078fd7e"
                + "dcac30180ebf7597f7fa6b02976fe4fa1c9703f2460012b81c1aca8b76abe25")
        let divisor = big(
            "37add56258525d70f444f957ccd0681eeed0d45519db7b24590c62e7eb7541709435f4854c2f7171b3240c717e2b8b5db36e8d3a72"
                + "301c0fec49e6f07cad246b1efb1")
        let (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: divisor)
        #expect(
            quotient
                == big(
                    "408a109fcdc2cf345a32642ed43022f7b0b923bfe3d349c64f920f6e8832c9e3559ca37f067e3e820f038fed7dc5c1f1adb23"
                        + "82100fee18bdcd7f943b787ba1007eed018adfa0a6"))
        #expect(
            remainder
                == big(
                    "8d3796eeabf9d0ca7e75e3bcb928981a47f253264e51db612dbbeb7aa8af2c4dee122c5e7295d2bbabcc2e9c03a1c4067575"
                        + "3c3cfc23831786c1a1f26f39750bb15f"))
        // The divisor's top limb is all ones and the dividend's top limb equals it: the first
        // estimate is 2^64 - 1 and must be corrected.
        let wide = big(
            "ffffffffffffffffffffffffffffffff" + String(repeating: "0", count: 48) + "ffffffffffffffff")
        let (q2, r2) = wide.quotientAndRemainder(dividingBy: big("ffffffffffffffffffffffffffffffff0000000000003039"))
        #expect(q2 == big("ffffffffffffffffffffffffffffffffffffffffffffcfc6"))
        #expect(r2 == big("ffffffffffffffffffffffffffffcfc70000000009159ce9"))
    }

    @Test("Random operands: a = q·b + r with r < b, (a + b) - b = a, shifts are products by powers of two")
    func divisionProperties() {
        var random = SplitMix64(seed: 0xD1_7151_0)
        for _ in 0..<400 {
            let a = randomBig(&random, maxLimbs: 12)
            var b = randomBig(&random, maxLimbs: 7)
            if b.isZero { b = BigUInt(random.next() | 1) }
            let (q, r) = a.quotientAndRemainder(dividingBy: b)
            #expect(r < b, "a = \(a), b = \(b)")
            #expect(q * b + r == a, "a = \(a), b = \(b)")
            #expect((a + b) - b == a)
            #expect(a * b == b * a)
            let shift = random.below(200)
            #expect(a << shift == a * (BigUInt(1) << shift))
            #expect((a << shift) >> shift == a)
            #expect(a >> shift == a / (BigUInt(1) << shift))
            let small = random.next() | 1
            let (smallQuotient, smallRemainder) = a.quotientAndRemainder(dividingBy: small)
            #expect(smallQuotient * BigUInt(small) + BigUInt(smallRemainder) == a)
            #expect(a.remainder(dividingBy: small) == smallRemainder)
        }
    }

    @Test("gcd: known values, and the gcd divides both with coprime cofactors")
    func gcd() {
        #expect(BigUInt.gcd(BigUInt(48), BigUInt(180)) == BigUInt(12))
        #expect(BigUInt.gcd(.zero, BigUInt(5)) == BigUInt(5))
        #expect(BigUInt.gcd(BigUInt(5), .zero) == BigUInt(5))
        #expect(BigUInt.gcd(.zero, .zero) == .zero)
        var random = SplitMix64(seed: 0x6CD)
        for _ in 0..<100 {
            let common = randomBig(&random, maxLimbs: 2) + BigUInt(1)
            let a = (randomBig(&random, maxLimbs: 4) + BigUInt(1)) * common
            let b = (randomBig(&random, maxLimbs: 4) + BigUInt(1)) * common
            let g = BigUInt.gcd(a, b)
            #expect((a % g).isZero && (b % g).isZero)
            #expect((g % common).isZero)
            #expect(BigUInt.gcd(a / g, b / g) == BigUInt(1))
        }
    }

    @Test("Modular inverse: Python's values for odd and even moduli, and none without coprimality")
    func inverseVectors() {
        let value = big(
            "a2a5d8fddcd7e3af137ec62398d3d4b9fe63983c55d354ca184fb7794dfc5809cd875cf6c7d36048ded8066a18646664a0478f9fc"
                + "c997e0f40277e9de791eb6fac730fd50c1c932f2f3479fe914df4bf16bd19618e912baa50cf77fb5846b813baca84b75a12c1890cd"
                + "22701414e76eff7265cfc5999f2235fe89f2f3e5d26542d78300fb8ecfdc654572cc645c15fbd6781d724715839170ded7dff485b"
                + "d319b6319618e6a4b18767266f4afbbdcab7f853f8051160f7ef0197770fa89c4cb96faef01505d07e3d4b44e8c2952a6c2af9cb6"
                + "71e4f143525edad4a6688497797c480b3860f27f84ff64046a44dd2eef85e1f85801c5f83e5e9db")
        let modulus = big(
            "ca6a3ea5f12cd2f33cdf9d29ab37faeaf50cacc9f428541bc361f20a3df963175c927988a0de8329d1d9e8222865f06f1e63e0f144"
                + "8b654ecc799f5f7583d3d94d9bb9cfd80f7099da417829e20dcc694c303f0bf9ffa5a106e09eee1892ae4bf30255a537616fa7bc1"
                + "bde451ade0ca088854531133602380535a19f0351cb9dfa332c8bb6301e909444f27b0543ee17517d7836469e93c3274949a80ce0"
                + "b64bc7a581f4a7b32326ba395a5355187b05a4c3b319fb832ef492ffafcc5116a312ef4de454355e820bb63b4f9a5ca5fb5073420"
                + "43190649757369570c1613bfe0cb16fcf8bf97df407bef1cbdb7c44254fe38bb19622cc30327449c6ac37b37639")
        #expect(
            value.inverse(modulo: modulus)
                == big(
                    "b95e1b8f9c19dbabd6981fc9b3980a1916eb2055acbb51dcc6840992aefe0ad5454cf408cd8821987710799789bc7d207a06"
                        + "d06b9e6595b52d4fd22f716e0a56e0987eddba70d57c8c798dc0a6801db44761134689aa028b3dfeaaa39ced8fc4124b5cd"
                        + "ddfc37bd9b0c8c4cc9eb0b7cc38c36fb0aa15f74f5667aeaf01363b1716f8535d96ac5a997bd4b3843363daccfb4563f554f"
                        + "2ffe8c88e202889a91d9f72e501bae0ae96a97688b3572b61826a0cc67dd3cfa406588c771a3a264c05fe6cbdb23eb6c763a"
                        + "b7d4f9fe0040e1a1fd353baede547778f877770f5daa4406e77f51f424ce708efc4604408ece8fe48c6d611c9a21668fcc6d"
                        + "95852faead2d4"))
        // e⁻¹ modulo an even λ, as key generation computes d.
        let lambda = big(
            "db0fd640ba924e9dd1d79c7b6cfa9a338ba38eebcdf26385098c5b6be7e09f0bba44786c587f08fee768ea80a1215b7909663b903"
                + "8aba64ca2c6b083346257c1912eea32f2458dd5b71485837b6168b976bd80670cb156aa1c3f9a5d56786e7f584d5f86202bdfc2bd"
                + "75cf22350ad3b96a6a26d82ccb49c1874b0ac7dcd4f2e469e1f5934851866359b4ad79d3db8dbaa594d183ffc477283f091d4302a"
                + "6ba345dfc377df0b52685391c02a128619b3e5deef311794e09a18d20e068f86f18850701889d873cf2b9d306f819e07d7a872c52"
                + "f28eab64f6ff2e50f6502654d1572cb752fea5ea00826919f0604529d5269f0e4a1cfa453c7e6eb84a7452cc4186")
        #expect(
            BigUInt(65537).inverse(modulo: lambda)
                == big(
                    "5b23719e28812a581aafbb98d63444e761174124f5dffc6ba3175409c6c4fb26a3ee4cb3b6f5d34649fcaa63ada5f52a9c30"
                        + "7e63785061b5cc9b2160d4f07d563912edb91876bb95c8bfaef48ee66ded8b6b37faa79b385539bf747794bc322ca50e3bc"
                        + "9cfa4b149920d6b89edcb7d5eccd931240b2ee096b5b510dd2a1126a4c5308f3d217f598c080c5588340e4a1ef738bd1a4f"
                        + "d4eb464143877b13a54e1eef6339ab19f423fc955004000c8edf49c946dab5d0641939af3f985dd3ce54c333b0fda79c564"
                        + "d1de6a025a48e736600cafe0f902fdaa7b06f129c07a88aed35799323e27220b2e98ed48ddf5fa711d9299f86521c05a62f"
                        + "6bdd1c8cdccdc20d"))
        #expect(BigUInt(3).inverse(modulo: BigUInt(7)) == BigUInt(5))
        #expect(BigUInt(3).inverse(modulo: BigUInt(8)) == BigUInt(3))
        #expect(BigUInt(1).inverse(modulo: BigUInt(10)) == BigUInt(1))
        #expect(BigUInt(11).inverse(modulo: BigUInt(10)) == BigUInt(1))
        #expect(BigUInt(6).inverse(modulo: BigUInt(9)) == nil)
        #expect(BigUInt(4).inverse(modulo: BigUInt(10)) == nil)
        #expect(BigUInt.zero.inverse(modulo: BigUInt(7)) == nil)
        #expect(BigUInt(14).inverse(modulo: BigUInt(7)) == nil)
        #expect(BigUInt(3).inverse(modulo: BigUInt(1)) == nil)
        #expect(BigUInt(3).inverse(modulo: .zero) == nil)
    }

    @Test("Modular inverse of random values: a · a⁻¹ ≡ 1, for odd and even moduli")
    func inverseProperties() {
        var random = SplitMix64(seed: 0x1_4E5E)
        var found = 0
        for _ in 0..<300 {
            let modulus = randomBig(&random, maxLimbs: 5) + BigUInt(2)
            let value = randomBig(&random, maxLimbs: 6)
            let coprime = BigUInt.gcd(value, modulus) == BigUInt(1)
            guard let inverse = value.inverse(modulo: modulus) else {
                #expect(!coprime, "no inverse of \(value) mod \(modulus)")
                continue
            }
            found += 1
            #expect(coprime)
            #expect(inverse < modulus)
            #expect(value * inverse % modulus == BigUInt(1), "\(value)⁻¹ mod \(modulus)")
        }
        #expect(found > 100)
    }

    @Test("Random numbers: within the bit count or below the bound, and reproducible from a seed")
    func randomNumbers() {
        var random = SplitMix64(seed: 42)
        let bound = big("1000000000000000000000000000001")
        for _ in 0..<200 {
            #expect(BigUInt.random(bits: 130, using: &random).bitWidth <= 130)
            #expect(BigUInt.random(below: bound, using: &random) < bound)
            #expect(BigUInt.random(below: BigUInt(1), using: &random) == .zero)
        }
        #expect(BigUInt.random(bits: 0, using: &random) == .zero)
        var first = SplitMix64(seed: 9)
        var second = SplitMix64(seed: 9)
        #expect(BigUInt.random(bits: 1000, using: &first) == BigUInt.random(bits: 1000, using: &second))
        // The top bit is set about half the time: the mask keeps the right bits.
        let topSet = (0..<400).filter { _ in BigUInt.random(bits: 70, using: &random).bitWidth == 70 }.count
        #expect((140...260).contains(topSet))
    }

    @Test("The fixed-window exponentiation agrees with the binary one, for exponents of any length")
    func secretExponentPower() throws {
        var random = SplitMix64(seed: 0xF1_ED)
        for _ in 0..<150 {
            var modulusLimbs = (0..<random.int(1...5)).map { _ in random.next() }
            modulusLimbs[0] |= 1
            modulusLimbs[modulusLimbs.count - 1] |= 1 << 40
            let modulus = BigUInt(limbs: modulusLimbs)
            let context = try #require(MontgomeryModulus(modulus))
            let base = randomBig(&random, maxLimbs: 6) % modulus
            let exponent = randomBig(&random, maxLimbs: 4)
            let bits = max(exponent.bitWidth, 1) + random.below(70)
            #expect(context.power(base, secretExponent: exponent, bits: bits) == context.power(base, exponent))
        }
        let context = try #require(MontgomeryModulus(BigUInt(1_000_003)))
        #expect(context.power(BigUInt(2), secretExponent: BigUInt(1 << 20), bits: 20) == nil)
        #expect(context.power(BigUInt(1_000_003), secretExponent: BigUInt(3), bits: 8) == nil)
        #expect(context.power(BigUInt(2), secretExponent: .zero, bits: 0) == nil)
        #expect(context.power(BigUInt(2), secretExponent: .zero, bits: 1) == BigUInt(1))
    }
}
