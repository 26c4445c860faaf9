import AuthCrypto
import Foundation
import NativeAuth

/// The key an ``EmulatedTenant`` signs its browser sign-in ID tokens with (RS256): a fixed
/// 2048-bit RSA key pair, the same for every tenant and every run.
///
/// **This is a published test key, not a secret.** Its private half is written below, in the open,
/// so anyone can make tokens it verifies: trust it in tests only, never in a real app. It exists so
/// that the ID tokens of a browser sign-in carry a real signature that a client checks against the
/// tenant's JWK Set (`discovery/v2.0/keys`), exactly as with a real tenant. Made once with
/// `openssl genrsa 2048`; a key per tenant would need prime generation, which the emulator does not do.
///
/// Signing is RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 §8.2.1), with the Chinese remainder theorem
/// (two 1024-bit exponentiations instead of one 2048-bit one), and every signature is checked with
/// the public key before it is used. The arithmetic is variable-time, which is fine for a key
/// everyone knows.
struct EmulatorSigningKey: Sendable {
    /// The key every tenant uses.
    static let test = EmulatorSigningKey(
        modulus: [
            "cc27309c1a5d6e4311391630b33754ae4a9e413cce2279b972a907b493a455452a959873c3732693989f056b74e7e1b7",
            "f8dc66b3e4f48342eb4847c24ac8b7dbcaac557e2a2e9e22f38df163501da2749e718ae41c323891c06b277a6b4d893c",
            "1b7f78b828fc9e610d8ca52dfcbf4aeb1bbd99f1e380558ac11f2c7894ae1981ec90ce160e82ea7cd99c948c43a5c770",
            "a7164e83d3900b7da377ed84d70caf3b329f7c927cb1932ce709e7224450529b4c37b64290f17252a8f576b8cd590146",
            "edac38dbdfa94b0c63ec05cbc34b9da4481c31a217610996df01c600eb8f343b9cc50d2d5e964f11581915e526a9f787",
            "d15663c964a96bb1172176bae89b1e3d",
        ],
        p: [
            "fbc89dea5a0201badb4e44578ef9ff446b39135f1da3684ce617abcea9952202cb5837079ee2c3d1720a308830ba38dc",
            "9edf27fd0f93e956953939af526e6bb9ae29b823ea5efe4d510c0799426598a8f9db629a365cd48986eec15b230de740",
            "29d30127bf8341d599dd8a8795c9546a0d0a019e110b5a4b3f1b196485921d01",
        ],
        q: [
            "cf92621f434b605e0a7f7d3cbdba31381874f28f08f74c672282ba414d55ac8e24b7fc871421ffd3b649412c8d29f69e",
            "d68d32d4916ff69400b8df405f19507d29e01f4413f3fc061ecd8ff7d10aaca84455fcfccc96608ab2e1d9d48b36391f",
            "45e22d888898d2f72c396ccb6ebebbd85ddd0ef8cc2e14bc4d7fc6b40fc9353d",
        ],
        dp: [
            "4cf5c54f1cb400535d354f2e7445760133c4fe66d4685e39231b9928522d8377d72fdfa234ae9bac296f73e62cfebee2",
            "b0ad054c14b6e15bd5c0e820eed1519c2fe010a8e9ba9f8082856acd2dbe602b463408af9a6e4588c3f5b6a464d29b1c",
            "c1abfd6e68db76041443e3540e34bbd8aea3a05af05ac7feb80b5077a95c4001",
        ],
        dq: [
            "3495f62bcb659e2d54e58579cceb0dab136f15402d5a514dd38d60d8485a4b13dbb38cd33fc379474e67f28df1d94eb4",
            "60d076af29853ee7b1e32413efc3bf03668774045035c084606b5d6cbfd5bf760591ef3cb02bec9b56c426e654ba50f0",
            "5e48f596205cef1d5563daef12c8595870371fa2e23f4e5b821abbe1441a8a55",
        ],
        qInverse: [
            "87bf399f265ccdc8df7157cf2477ce7b6c8fd2dee2f4172d4466b59e9797320d48f9682276fbb12d1d6caab2ade8f069",
            "4ccc70e9e67bca54f68ba59015ffb2039c80b7b5c7bec1860da9a47e53578f1beff9c7a385605a73e3da1787f5b117bb",
            "ae7da6b1713846215df064e2c5460d100b0ce4394c10e1b4041b92b9f024e2e4",
        ])

    /// The public exponent, 65537.
    static let publicExponent: [UInt8] = [0x01, 0x00, 0x01]

    /// The modulus n as big-endian bytes (256 of them).
    let modulusBytes: [UInt8]
    /// The `kid`: the key's RFC 7638 thumbprint (base64url of the SHA-256 of its canonical JWK).
    let keyID: String
    private let modulus: MontgomeryModulus
    private let p: BigUInt
    private let q: BigUInt
    private let pModulus: MontgomeryModulus
    private let qModulus: MontgomeryModulus
    /// d mod (p − 1), d mod (q − 1) and q⁻¹ mod p.
    private let dp: BigUInt
    private let dq: BigUInt
    private let qInverse: BigUInt

    private init(
        modulus: [String], p: [String], q: [String], dp: [String], dq: [String], qInverse: [String]
    ) {
        func number(_ hex: [String]) -> BigUInt { BigUInt(bigEndian: Self.bytes(hex.joined())) }
        modulusBytes = Self.bytes(modulus.joined())
        let n = BigUInt(bigEndian: modulusBytes)
        self.p = number(p)
        self.q = number(q)
        self.dp = number(dp)
        self.dq = number(dq)
        self.qInverse = number(qInverse)
        // The key is a constant of this file: these succeed for it (every modulus is odd and above 2).
        guard let nModulus = MontgomeryModulus(n), let pModulus = MontgomeryModulus(self.p),
            let qModulus = MontgomeryModulus(self.q)
        else { preconditionFailure("The emulator's signing key is not an RSA key.") }
        self.modulus = nModulus
        self.pModulus = pModulus
        self.qModulus = qModulus
        let canonical: JSONObject = [
            "e": .string(Encoding.base64URL(Data(Self.publicExponent))), "kty": "RSA",
            "n": .string(Encoding.base64URL(Data(modulusBytes))),
        ]
        keyID = Encoding.base64URL(Data(SHA256.hash(Array(canonical.data))))
    }

    /// The public key as a JWK Set member, as Entra publishes its keys: `kty`, `use`, `kid`, `n`,
    /// `e` and the `issuer` the key signs for. Entra's keys name no `alg`, and have an X.509
    /// certificate (`x5c`, `x5t`), which this test key has not.
    func jwk(issuer: String) -> JSONObject {
        [
            "kty": "RSA", "use": "sig", "kid": .string(keyID),
            "n": .string(Encoding.base64URL(Data(modulusBytes))),
            "e": .string(Encoding.base64URL(Data(Self.publicExponent))), "issuer": .string(issuer),
        ]
    }

    /// A compact JWS (RFC 7515) of `claims` with the header `{"typ":"JWT","alg":"RS256","kid":…}`,
    /// or `nil` if the signature could not be made (it always can for this key).
    func signedJWT(_ claims: JSONObject) -> String? {
        let header: JSONObject = ["typ": "JWT", "alg": "RS256", "kid": .string(keyID)]
        let input = Encoding.base64URL(header.data) + "." + Encoding.base64URL(claims.data)
        guard let signature = sign(Array(input.utf8)) else { return nil }
        return input + "." + Encoding.base64URL(Data(signature))
    }

    /// The RSASSA-PKCS1-v1_5 SHA-256 signature of `message`, checked with the public key; `nil`
    /// when the check fails.
    func sign(_ message: [UInt8]) -> [UInt8]? {
        let length = modulusBytes.count
        guard let encoded = RSASignature.expectedEncoding(digest: SHA256.hash(message), length: length) else {
            return nil
        }
        let representative = BigUInt(bigEndian: encoded)
        // CRT (RFC 8017 §5.1.2, 2.b): m1 = c^dp mod p, m2 = c^dq mod q, h = qInv·(m1 − m2) mod p,
        // s = m2 + q·h.
        guard
            let m1 = pModulus.power(Self.remainder(representative, p), dp),
            let m2 = qModulus.power(Self.remainder(representative, q), dq)
        else { return nil }
        let m2ModP = Self.remainder(m2, p)
        let difference = m1 < m2ModP ? Self.subtract(Self.add(m1, p), m2ModP) : Self.subtract(m1, m2ModP)
        let h = Self.remainder(Self.multiply(qInverse, difference), p)
        let signature = Self.add(m2, Self.multiply(q, h))
        // A wrong signature never leaves: s^e mod n must give back the encoding.
        guard let reopened = modulus.power(signature, BigUInt(bigEndian: Self.publicExponent)),
            reopened == representative
        else { return nil }
        return signature.bigEndianBytes(count: length)
    }

    // MARK: - The arithmetic CRT needs beyond Montgomery exponentiation

    /// `lhs + rhs`.
    static func add(_ lhs: BigUInt, _ rhs: BigUInt) -> BigUInt {
        let count = max(lhs.limbs.count, rhs.limbs.count)
        var result: [UInt64] = []
        result.reserveCapacity(count + 1)
        var carry: UInt64 = 0
        for index in 0..<count {
            let left = index < lhs.limbs.count ? lhs.limbs[index] : 0
            let right = index < rhs.limbs.count ? rhs.limbs[index] : 0
            let (partial, overflow1) = left.addingReportingOverflow(right)
            let (sum, overflow2) = partial.addingReportingOverflow(carry)
            result.append(sum)
            carry = (overflow1 ? 1 : 0) + (overflow2 ? 1 : 0)
        }
        result.append(carry)
        return BigUInt(limbs: result)
    }

    /// `lhs − rhs`, for `lhs ≥ rhs`.
    static func subtract(_ lhs: BigUInt, _ rhs: BigUInt) -> BigUInt {
        var result = lhs.limbs
        var borrow = false
        for index in result.indices {
            let right = index < rhs.limbs.count ? rhs.limbs[index] : 0
            let (partial, borrow1) = result[index].subtractingReportingOverflow(right)
            let (difference, borrow2) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
            result[index] = difference
            borrow = borrow1 || borrow2
        }
        return BigUInt(limbs: result)
    }

    /// `lhs · rhs`, schoolbook.
    static func multiply(_ lhs: BigUInt, _ rhs: BigUInt) -> BigUInt {
        guard !lhs.isZero, !rhs.isZero else { return .zero }
        var result = [UInt64](repeating: 0, count: lhs.limbs.count + rhs.limbs.count)
        for (i, left) in lhs.limbs.enumerated() {
            var carry: UInt64 = 0
            for (j, right) in rhs.limbs.enumerated() {
                let (high, low) = left.multipliedFullWidth(by: right)
                let (partial, overflow1) = low.addingReportingOverflow(result[i + j])
                let (sum, overflow2) = partial.addingReportingOverflow(carry)
                result[i + j] = sum
                // high ≤ 2^64 − 2, so adding the two carries cannot overflow.
                carry = high &+ (overflow1 ? 1 : 0) &+ (overflow2 ? 1 : 0)
            }
            result[i + rhs.limbs.count] = carry
        }
        return BigUInt(limbs: result)
    }

    /// `value mod modulus` (modulus above zero), one bit at a time: shift in a bit, subtract the
    /// modulus when the running remainder reaches it.
    static func remainder(_ value: BigUInt, _ modulus: BigUInt) -> BigUInt {
        guard value >= modulus else { return value }
        let count = modulus.limbs.count + 1
        var running = [UInt64](repeating: 0, count: count)
        let subtrahend = modulus.limbs + [0]
        for index in stride(from: value.bitWidth - 1, through: 0, by: -1) {
            var carry: UInt64 = value.bit(index) ? 1 : 0
            for limb in 0..<count {
                let next = running[limb] >> 63
                running[limb] = running[limb] << 1 | carry
                carry = next
            }
            if BigUInt.compare(running, subtrahend) >= 0 {
                var borrow = false
                for limb in 0..<count {
                    let (partial, borrow1) = running[limb].subtractingReportingOverflow(subtrahend[limb])
                    let (difference, borrow2) = partial.subtractingReportingOverflow(borrow ? 1 : 0)
                    running[limb] = difference
                    borrow = borrow1 || borrow2
                }
            }
        }
        return BigUInt(limbs: running)
    }

    /// The bytes of even-length lowercase hexadecimal text.
    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var high: UInt8?
        for byte in hex.utf8 {
            guard let nibble = JSONParser.hexValue(byte) else { continue }
            if let first = high {
                result.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return result
    }
}
