import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

/// A modular exponentiation computed independently (Python's `pow`) at test-writing time.
struct ModPowVector: Sendable, CustomTestStringConvertible {
    let modulus: String
    let base: String
    let exponent: String
    let result: String

    var testDescription: String { "\(modulus.count * 4)-bit modulus, exponent 0x\(exponent.prefix(8))" }
}

/// Hexadecimal (no prefix) to a `BigUInt`, for test values.
func big(_ hex: String) -> BigUInt {
    var text = hex
    if text.count % 2 == 1 { text = "0" + text }
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return BigUInt(bigEndian: bytes)
}

/// Schoolbook modular arithmetic on limb arrays: slow, obviously correct, independent of Montgomery.
enum NaiveModular {
    /// (a + b) mod n for a, b < n.
    static func add(_ a: [UInt64], _ b: [UInt64], _ n: [UInt64]) -> [UInt64] {
        var sum = [UInt64](repeating: 0, count: n.count)
        var carry = false
        for index in 0..<n.count {
            let (partial, overflow1) = a[index].addingReportingOverflow(b[index])
            let (total, overflow2) = partial.addingReportingOverflow(carry ? 1 : 0)
            sum[index] = total
            carry = overflow1 || overflow2
        }
        if carry || BigUInt.compare(sum, n) >= 0 {
            var borrow = false
            for index in 0..<n.count {
                let (partial, borrow1) = sum[index].subtractingReportingOverflow(n[index])
                let (difference, borrow2) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
                sum[index] = difference
                borrow = borrow1 || borrow2
            }
        }
        return sum
    }

    /// a · b mod n for a, b < n, by doubling and adding.
    static func multiply(_ a: [UInt64], _ b: BigUInt, _ n: [UInt64]) -> [UInt64] {
        var result = [UInt64](repeating: 0, count: n.count)
        for bit in stride(from: b.bitWidth - 1, through: 0, by: -1) {
            result = add(result, result, n)
            if b.bit(bit) { result = add(result, a, n) }
        }
        return result
    }

    /// base ^ exponent mod n for base < n.
    static func power(_ base: BigUInt, _ exponent: BigUInt, _ n: BigUInt) -> BigUInt {
        var result = [UInt64](repeating: 0, count: n.limbs.count)
        result[0] = 1
        for bit in stride(from: exponent.bitWidth - 1, through: 0, by: -1) {
            result = multiply(result, BigUInt(limbs: result), n.limbs)
            if exponent.bit(bit) { result = multiply(result, base, n.limbs) }
        }
        return BigUInt(limbs: result)
    }
}

@Suite("Crypto: big unsigned integers and Montgomery exponentiation", .hangLimit, .cpuHeavy)
struct BigUIntTests {
    @Test("Bytes round-trip: leading zeros dropped, fixed-width output padded, too-small width refused")
    func bytes() {
        #expect(BigUInt(bigEndian: [0, 0, 1, 2]) == BigUInt(0x102))
        #expect(BigUInt(bigEndian: [UInt8]()) == .zero)
        #expect(BigUInt(bigEndian: [0, 0]).isZero)
        #expect(BigUInt(0x102).bigEndianBytes(count: 4) == [0, 0, 1, 2])
        #expect(BigUInt(0x102).bigEndianBytes(count: 1) == nil)
        #expect(BigUInt.zero.bigEndianBytes(count: 0) == [])
        #expect(BigUInt.zero.bigEndianBytes == [0])
        let bytes: [UInt8] = (1...40).map { UInt8($0) }
        let value = BigUInt(bigEndian: bytes)
        #expect(value.limbs.count == 5)
        #expect(value.bigEndianBytes == bytes)
        #expect(value.bigEndianBytes(count: 42) == [0, 0] + bytes)
        #expect(value.bitWidth == 39 * 8 + 1)
        #expect(BigUInt(1).bitWidth == 1)
        #expect(BigUInt.zero.bitWidth == 0)
        #expect(BigUInt(limbs: [1, 0xabc]).description == "abc0000000000000001")
        #expect(BigUInt.zero.description == "0")
    }

    @Test("Comparison looks at the value, across limb counts")
    func comparison() {
        #expect(BigUInt(1) < BigUInt(2))
        #expect(!(BigUInt(2) < BigUInt(2)))
        #expect(BigUInt(UInt64.max) < BigUInt(limbs: [0, 1]))
        #expect(BigUInt(limbs: [5, 1]) < BigUInt(limbs: [0, 2]))
        #expect(BigUInt(limbs: [7, 0, 0]) == BigUInt(7))
        #expect(BigUInt.zero < BigUInt(1))
    }

    @Test("Small known powers, and the edge exponents 0 and 1")
    func smallPowers() {
        #expect(BigUInt(4).power(BigUInt(13), modulus: BigUInt(497)) == BigUInt(445))
        #expect(BigUInt(2).power(BigUInt(10), modulus: BigUInt(1001)) == BigUInt(23))
        #expect(BigUInt(3).power(.zero, modulus: BigUInt(7)) == BigUInt(1))
        #expect(BigUInt(5).power(BigUInt(1), modulus: BigUInt(7)) == BigUInt(5))
        #expect(BigUInt.zero.power(BigUInt(5), modulus: BigUInt(7)) == .zero)
        #expect(BigUInt(6).power(BigUInt(2), modulus: BigUInt(7)) == BigUInt(1))
        // A base at or above the modulus but within its limb count is reduced.
        #expect(BigUInt(10).power(BigUInt(1), modulus: BigUInt(7)) == BigUInt(3))
        // (2^64 + 1) ^ (2^64 + 3) mod (2^127 - 1), from Python's pow.
        let mersenne = BigUInt(limbs: [UInt64.max, UInt64.max >> 1])
        #expect(
            BigUInt(limbs: [1, 1]).power(BigUInt(limbs: [3, 1]), modulus: mersenne)
                == big("4c26f9107788af01328d6ceaa5cf7607"))
    }

    @Test("Even moduli, 1 and 0 are refused, as is a base wider than the modulus")
    func refusals() {
        #expect(BigUInt(3).power(BigUInt(3), modulus: BigUInt(10)) == nil)
        #expect(BigUInt(3).power(BigUInt(3), modulus: BigUInt(1)) == nil)
        #expect(BigUInt(3).power(BigUInt(3), modulus: .zero) == nil)
        #expect(BigUInt(limbs: [1, 1]).power(BigUInt(3), modulus: BigUInt(7)) == nil)
        #expect(MontgomeryModulus(BigUInt(limbs: [0, 1])) == nil)
    }

    @Test("Known large powers computed with Python", arguments: modPowVectors)
    func knownVectors(_ vector: ModPowVector) {
        let result = big(vector.base).power(big(vector.exponent), modulus: big(vector.modulus))
        #expect(result == big(vector.result))
    }

    @Test("Random odd moduli of 1 to 4 limbs agree with schoolbook arithmetic")
    func agreesWithNaive() {
        var random = PropertyRandom(seed: 0x5EED_B16)
        for _ in 0..<200 {
            let limbCount = random.inRange(1...4)
            var modulusLimbs = (0..<limbCount).map { _ in random.next() }
            // Vary the top limb's size, including tiny ones, and force the modulus odd and above 1.
            modulusLimbs[limbCount - 1] >>= UInt64(random.below(64))
            modulusLimbs[0] |= 1
            if limbCount == 1 { modulusLimbs[0] |= 2 }
            let modulus = BigUInt(limbs: modulusLimbs)
            guard modulus.bitWidth >= 2 else { continue }
            let baseLimbs = (0..<modulus.limbs.count).map { _ in random.next() }
            let base = reduce(BigUInt(limbs: baseLimbs), below: modulus)
            let exponent: BigUInt =
                switch random.below(4) {
                case 0: BigUInt(UInt64(random.below(4)))
                case 1: BigUInt(65537)
                default: BigUInt(limbs: (0..<random.inRange(1...3)).map { _ in random.next() })
                }
            let expected = NaiveModular.power(base, exponent, modulus)
            let actual = base.power(exponent, modulus: modulus)
            #expect(actual == expected, "base \(base) exponent \(exponent) modulus \(modulus)")
        }
    }

    @Test("Moduli with all-ones limbs and base n - 1 (carry paths)")
    func carryPaths() {
        for limbCount in 1...5 {
            let modulus = BigUInt(limbs: [UInt64](repeating: .max, count: limbCount))
            let minusOne = BigUInt(limbs: [UInt64.max - 1] + [UInt64](repeating: .max, count: limbCount - 1))
            // (n - 1)^2 = 1 and (n - 1)^3 = n - 1 (mod n).
            #expect(minusOne.power(BigUInt(2), modulus: modulus) == BigUInt(1))
            #expect(minusOne.power(BigUInt(3), modulus: modulus) == minusOne)
            #expect(
                minusOne.power(BigUInt(65537), modulus: modulus)
                    == NaiveModular.power(minusOne, BigUInt(65537), modulus))
        }
    }

    /// `value` mod `modulus` by repeated halving of a shifted modulus (test helper, small values).
    private func reduce(_ value: BigUInt, below modulus: BigUInt) -> BigUInt {
        // Clear bits from the top until the value is below the modulus: not a true reduction, but it
        // yields a value below the modulus, which is all the property needs.
        var limbs = value.limbs
        var bit = value.bitWidth - 1
        while BigUInt(limbs: limbs) >= modulus, bit >= 0 {
            if bit / 64 < limbs.count { limbs[bit / 64] &= ~(UInt64(1) << UInt64(bit % 64)) }
            bit -= 1
        }
        return BigUInt(limbs: limbs)
    }
}

let modPowVectors: [ModPowVector] = [
    // 2048-bit modulus
    ModPowVector(
        modulus: [
            "c22acab59248b974bf416c30f1f0742a0e46c215b5fa5b0cdb18bd763f20134cfdfb462fd6fad8dbf82d5644ef7d9967",
            "699f071a5fd8e665a9dfdec6baecde5baf5d8bb09f2e9ea4765890e0f94855d0d178403035c9a8c4668dc8f46a423cf9",
            "d330a5494d14cf1a4cc346363c23403800d9f4ad53a2f2b633f5f28807f0cbd41ff135342e825ce1158d003d9a0b2361",
            "aed09b824ca87fc2bfb637dd5bae2d26683447c10cc8af11dd4eabbd1fcfb9809823beb1e6ba3ad74de45321ad915a36",
            "b37523a53b4a3ee20463513755ac0ecd5e6a0a2edd70e34dc1d77cffb7decc0c5d96cf7f265beda9cf0c26ef4243ed52",
            "566bf9d7c55a45f8d1a6e55e9b9b1325",
        ].joined(),
        base: [
            "3cc89b41f339a6840473b8248ac03649d6442260559d7e7902c89680e98c5884857ce06bf9a21be1355cca5db3c7b88e",
            "535f2002b9f7f89ec689c846b6b81ec64a66b263ab8474ccf768f221a91b4e9dcc31d7b90ff191f0fed5ce26af1ac6da",
            "2e0126319a72180d908a3e291dd257d50f4bf777e1030fe1ca1ab21554c6c4b370faf36fb78eda4fea394aba6a42ed19",
            "aa5bf36518677db75c80f9be67fd4c1e84d0c3f0b2e73ae0eee45145f585675fd17737815438a5b507bda21c604af42a",
            "da0aea0eaa72870bdd63d2a5d17644600e0bc896afbec9a66dbb8cb8ef65ed7826ad41ef88c279d937c990fad57dcafd",
            "3a7cfb366088155f476354b65ed08d6b",
        ].joined(),
        exponent: "10001",
        result: [
            "49b802dfae44368e8016eea81ef96beea9016486a286c2dbc7137660b243b09ea0e03543ba3b71dc6dd29de602e03294",
            "4cfbfd781b28dc364e8919cab163c70754f6a639c843207e7a8ed8abb866825ffe1775e11cb07d556b48407414e0c2e8",
            "b1221d0b3e4d43ded77091509b82c0000e2ee10643c7b40c7725b4df5a40fdd7648f52daeb21f0dc09a14a253d141677",
            "7a9c8ddee315169b8b45f46966181e505099819dcddb4a88e16cffe4506ba12a51e00b66067858658a43738f5588cc56",
            "81fe6cfdd412d002887deefc763cb72bb36536183fd59677bd5697ab38b9723168de715e93e8d0599ada04245657bd23",
            "47eab0aab785d919695e31576778933f",
        ].joined()),
    // 1031-bit modulus
    ModPowVector(
        modulus: [
            "68f2e25394dbda118b3d0d125a162d85c62293d03e9e6024cdf6bd8eca9f374cd643e94334742de49bbbb458d39fd583",
            "eb0286ecec43432c6bc8fd442ec56309d2d31f0231deef435140ba6f09be38fcbb133945bae4114d10ed20eb98ea70df",
            "2d25609be3c444a62e8d1eac030bab1534b2a57e606d09cf94d2e06b36b9ea43d5",
        ].joined(),
        base: [
            "66c1e6c246cca243377202aed9b49fe4dd0d2671eff4116bb4f69ceaf6e655f6aa8e18a60ed2e83592e220532fbdef9f",
            "4b0ecb476f9f61d62f48f8f1642f2a44422f862cec6965c425b110d30a9d411e83fb7eca2fe6160abb7e3b9a592875a2",
            "d038ccde1e498e0b0d13f8bb730c67a2cb603c161677a22873705bdd1259227301",
        ].joined(),
        exponent: "3",
        result: [
            "cca0635d40a157bb24699c51be83c31466b9ed7a123c5bc2696e92c23e73e4a3e5cce55796108d71ede79cbb85e2bd1b",
            "d0d27cc7a7e58312264139aca8f317e1d176b125116d5a0a2ae9b1d235668ab4dfd00551f9bd0a17495e4496147940f3",
            "6b957b9a152b569c7fcdd2fbf0860d30bd162f77388f7762921868405ec5369d1",
        ].joined()),
    // 4096-bit modulus
    ModPowVector(
        modulus: [
            "af0f168048e468c472ffbd06ad77d09fb253be39b972dbea0045a9a2c9608b2033a07f4e48c8b756a7ac12766b748647",
            "d39cea090dd7b1fe477bbd87851be906ed6463180803b5b6070b98489c8bea5a2f5ddb2d707019361b86236bdb153e2b",
            "8c43766ac88007a09dd397a8d0b884f1b81bdf65cf94926d0fbc218a9faa700105a7a94b86cf6aba6d33cb78f009528b",
            "743c8bf486e6994b3cc17d11b7fd3194ee8bfa0c5810acfc998b61a250e2e001224f4790924cfa31c961c2115d0a2a43",
            "fa69b704d6ebf52a1b227b5101f752bc3f108ac506adf2a1be6f3d77765b1f48d33cc8deaa68268ccaf9a1f46c738235",
            "ffaf06a5c67977f531643087af6f5ad05f20c770621477ba6f7fa45fba52fff42c5747ba38c9127883ab0c1e4dbf539f",
            "de83bc134dccef77e19cfa0816c60a7fec073ffed92a28292996b98c8ae407f6b44ac6556a435a0e3ecce515c900bbc0",
            "4c7dae9d4c7497b8b849a411a377cf5a8a356a49798bf36c92a74c3169e005990a8e9f78fecdeeb79f3c55481454929e",
            "46978debe82ce7ffcad8f6bd6ceebb95517f1efe987474ab58c0d341131d9da7dad51d4e98dc6d62bea75defe8cbb19d",
            "c55cd6e0683d063fe345c182ead5c02a25c8e40952a69ac037848b772ac954c33173f9f7b59ecf105c6cf0c200ae623f",
            "49a7a58cb216749af1ab87be190afbe86a2a4face3cfe64c5f17603f600fb75f",
        ].joined(),
        base: [
            "137829d60c624aee73e8360dd8d3fd031f29f538b1fea7c207ff0e992a22f697173f00ca4c02debab4a06d78452ab326",
            "88073ecefe58a2fe2de794a99d923d60676e8937ff99c8894d3c0254ecf910bcd7d56afcec0cfbf8fad0fde2efd3b688",
            "022c66a6aee6e11a6b6dfdee8c7c8ae3fda71c3cb1280dce01f54b1cd641b93f2b529e0e00fb7addef5e4cb2dde39ed2",
            "123245bc1eb1f373911191a9a5735623d2aca29f0297efbb4f43b8ae9c45c1a0b3402c21a34202d88db1cec0d7a245ab",
            "52f072825bddde76eb921de6c9976515d21b7c0794f46d08764fa2d97bc36d30d4270c0d88ce4a0077e847e02aaefe55",
            "4887592d4a2b60cdd30a2b04ea3394d743a1fbf9e0e3d7926ee5a69abb1a5fe466e278ffc3f08539a5f153703e68342b",
            "f84cdb1cb53d472cae83f5d911f2d84de59c396b667db890514e4445f00f32dad85bc7877b89cd3502bf0cdde3dcc494",
            "44ad66329d498bbf283df607affe167359855cf792d0de61f7d20afa646caacbee8b0ef72382008137c77e795f95074c",
            "40d54a37c79af857582b6309b5d57d975edd84717f356ed0f069472d53af6946c344b264d1b7b3838f2d28381afde707",
            "492bca68261c861855b4c0a7f0611ec6d6b5b8cec30d2a4001cd8d9219659889f30658609e6aca3c2a4fe771a101eada",
            "ce2f307a0ac92aa66161642dcce67426dde3aa614163e669cc3452832ef936ae",
        ].joined(),
        exponent: "10001",
        result: [
            "1bdf55aece3d72b59dc8cd174eaec3799060a884ca13ec350ffbfd42531020139e98e938d86ae620cdda17d4aa7cb275",
            "4243db33abec5c876addbe3b4efa3263d72a4253650a60b4b9e3192b248c1c2edd0a70680d9d8941833f866b0e9a9efa",
            "c4725dc0e8a4d5d3a545374cb7d9b3cfa4bfa19d259015653d622eb276388e46f182909e40ee3111f20cdb8198a361e3",
            "a49d34ec59bb6a60dd338d168876873158bb9cafdc2ea37a12fb34871f12fe07aa599cabf65f2cb7401808693a7a234d",
            "da6963989927ea5dd5c0a486d713da9e4504bee784e3a94e03f04d83064d01b312d6c83b5c60d5a7043e6ac67492fe31",
            "1480e6b0dee4f4a6b838aa35edb5e793c4efdf9299eb1e3be8950bedcbfd6ef7cb7d6048bb3b3deddd8d697836a0ea0c",
            "24e19cb063d8334a02b0e001b5853cdc0ffc15a0e25b14e6a0773b71aef8ab649e75e255ea083448a086c715c6c57e94",
            "94ec33d343f1dba82e8627e0a908c0a9203f1e3fc1e7a8caad029cb6270b836c2207606711ff5ee5a7de86b6a71794a7",
            "86499202e1fb7c4779a36dce70b19d2f0f9e8f47aed27e2bd2cfcebdfdc62fe5bd0c4105d08f0c466b7d08f57d1a71ed",
            "8519ad55988514c187e690856be9bc206b1088d22c41e59aa80fac26f0aa8e3106beba3a7528f6f2df94f7749c9ae32e",
            "d8248ebdeb630441716a3c1ce671c1a3762aebed8488cbd7c4a2bcf887e57197",
        ].joined()),
    // 192-bit modulus
    ModPowVector(
        modulus: [
            "a41daf7198a62bdcc9e95021bba3333c51e19600796fa12f"
        ].joined(),
        base: [
            "a052c1db2662cb1fa2ad606c32ed6a1c122785f2bc6cd3e"
        ].joined(),
        exponent: "2d6a0ffbc90cdc4d7211b58e67d22dabcc99d6891aff8d8e",
        result: [
            "ffa201b0a8a794cdaae66d510059eb4b4211a1ced45fa37"
        ].joined()),
]
