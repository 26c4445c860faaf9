/// An RSA private key, made and used by this package: RS256 signatures (RSASSA-PKCS1-v1_5 with
/// SHA-256, RFC 8017 §8.2.1) where the platform offers no signing, as DPoP proofs on Linux need.
///
/// What is and is not constant-time:
/// - The private exponentiations (modulo p and modulo q) use
///   ``MontgomeryModulus/power(_:secretExponent:bits:)``: a fixed window, masked table reads and a
///   branch-free Montgomery multiplication, so their sequence of operations depends only on the
///   sizes of p and q. The machine code has not been checked for branches the compiler may add.
/// - Everything else is variable-time: the reductions modulo p and q and Garner's recombination
///   use long division, the blinding factor's inverse uses the binary Euclidean algorithm, and key
///   generation's sieve, gcd and inverse work directly on secret values.
/// - Signing therefore blinds: the base with a random r (m · r^e, unblinded with r⁻¹, so the
///   values the variable-time steps see are unrelated to the message), and each CRT exponent with a
///   random multiple of p - 1 or q - 1 (so no two signatures run the same exponent). The inverse of
///   r is itself blinded: (r · b)⁻¹ · b for another random b.
/// - Every signature is checked with the public key before it is returned: a fault in one CRT half
///   would otherwise give away a prime factor (Boneh, DeMillo and Lipton, 1997).
///
/// The private members never appear in `description`, `debugDescription` or a mirror. They, and
/// the intermediate values of signing, are held in Swift arrays, which the language gives no way
/// to wipe; only the exponentiation's workspace is zeroed after use.
package struct RSAPrivateKey: Sendable {
    /// The sizes ``generate(bits:using:)`` accepts, in bits (even).
    package static let generationBits = 2048...4096
    /// The public exponent of generated keys, e = 2^16 + 1 (FIPS 186-5 asks for 2^16 < e < 2^256).
    package static let generatedPublicExponent: UInt64 = 65537

    /// The public half: n and e.
    package let publicKey: RSAPublicKey
    /// d.
    let privateExponent: BigUInt
    /// p, prepared for Montgomery multiplication.
    let prime1: MontgomeryModulus
    /// q, prepared for Montgomery multiplication.
    let prime2: MontgomeryModulus
    /// dP = d mod (p - 1).
    let exponent1: BigUInt
    /// dQ = d mod (q - 1).
    let exponent2: BigUInt
    /// qInv = q⁻¹ mod p.
    let coefficient: BigUInt

    /// A new key of `bits` bits (2048 by default) with e = 65537, from `generator`'s randomness
    /// (give production code ``SecureRandomGenerator``, the default of ``generate(bits:)``;
    /// tests a seeded generator, which makes the key reproducible).
    ///
    /// Follows FIPS 186-4 Appendix B.3.3 (Appendix A.1.3 in FIPS 186-5), with probable primes found
    /// as ``Primality`` describes: p and q of `bits`/2 bits each, top two bits set (so n has exactly
    /// `bits` bits), p - 1 and q - 1 prime to e, |p - q| > 2^(`bits`/2 - 100),
    /// d = e⁻¹ mod lcm(p - 1, q - 1) above 2^(`bits`/2), and a pairwise consistency test before the
    /// key is returned. The same seed gives the same key.
    /// - Throws: ``RSAPrivateKeyError/unsupportedSize(bits:)`` for a size outside ``generationBits``
    ///   or odd; ``RSAPrivateKeyError/randomSourceFailed`` when `generator` repeats itself so that
    ///   no key comes of it (never with a working generator).
    package static func generate(
        bits: Int = 2048, using generator: inout some RandomNumberGenerator
    ) throws(RSAPrivateKeyError) -> RSAPrivateKey {
        guard generationBits.contains(bits), bits % 2 == 0 else { throw .unsupportedSize(bits: bits) }
        let half = bits / 2
        let rounds = Primality.rounds(forBits: half)
        let e = BigUInt(generatedPublicExponent)
        let minimumDistance = BigUInt(1) << (half - 100)
        // A working generator needs two prime searches, more only when |p - q| or d falls short
        // (probability below 2^-90); the budget only stops a broken one, repeating itself, from
        // searching forever.
        var searches = 0
        func nextPrime(_ generator: inout some RandomNumberGenerator) throws(RSAPrivateKeyError) -> BigUInt {
            searches += 1
            guard searches <= maximumPrimeSearches,
                let prime = Primality.randomPrime(
                    bits: half, exponent: generatedPublicExponent, rounds: rounds, using: &generator)
            else { throw .randomSourceFailed }
            return prime
        }
        while true {
            let first = try nextPrime(&generator)
            var second = try nextPrime(&generator)
            while (first > second ? first - second : second - first) <= minimumDistance {
                second = try nextPrime(&generator)
            }
            let (p, q) = first > second ? (first, second) : (second, first)
            let pMinusOne = p - BigUInt(1)
            let qMinusOne = q - BigUInt(1)
            let lambda = pMinusOne * qMinusOne / BigUInt.gcd(pMinusOne, qMinusOne)
            // d must exceed 2^(nlen/2) (FIPS 186-4 B.3.1); a smaller one (vanishingly rare) means new primes.
            guard let d = e.inverse(modulo: lambda), d > BigUInt(1) << half,
                let prime1 = MontgomeryModulus(p),
                // q⁻¹ mod p by Fermat (q^(p-2)), with the exponentiation meant for secrets.
                let coefficient = prime1.power(q, secretExponent: p - BigUInt(2), bits: p.bitWidth)
            else { continue }
            do {
                return try RSAPrivateKey(
                    n: p * q, e: e, d: d, p: p, q: q, dP: d % pMinusOne, dQ: d % qMinusOne, qInv: coefficient)
            } catch {
                continue  // not reached with primes; the checks are the pairwise consistency test
            }
        }
    }

    /// The most prime searches one generation makes before it blames the random generator.
    static let maximumPrimeSearches = 4

    /// A new key of `bits` bits (2048 by default) from the system's secure random generator.
    /// - Throws: ``RSAPrivateKeyError/unsupportedSize(bits:)`` for a size outside ``generationBits``
    ///   or odd.
    package static func generate(bits: Int = 2048) throws(RSAPrivateKeyError) -> RSAPrivateKey {
        var generator = SecureRandomGenerator()
        return try generate(bits: bits, using: &generator)
    }

    /// The key from its members as big-endian bytes (leading zeros allowed), named as RFC 8017
    /// appendix A.1.2 names them and as JWK's `n`, `e`, `d`, `p`, `q`, `dp`, `dq`, `qi` carry them
    /// (RFC 7518 §6.3).
    /// - Throws: ``RSAPrivateKeyError`` naming the first check that failed.
    package init(
        modulus: [UInt8], publicExponent: [UInt8], privateExponent: [UInt8], prime1: [UInt8], prime2: [UInt8],
        exponent1: [UInt8], exponent2: [UInt8], coefficient: [UInt8]
    ) throws(RSAPrivateKeyError) {
        try self.init(
            n: BigUInt(bigEndian: modulus), e: BigUInt(bigEndian: publicExponent),
            d: BigUInt(bigEndian: privateExponent), p: BigUInt(bigEndian: prime1), q: BigUInt(bigEndian: prime2),
            dP: BigUInt(bigEndian: exponent1), dQ: BigUInt(bigEndian: exponent2),
            qInv: BigUInt(bigEndian: coefficient))
    }

    /// The key from its members, after checking that they belong together: the public key is one
    /// `RSAPublicKey` accepts, p and q are odd, distinct and multiply to n, d < n, dP = d mod (p - 1)
    /// and dQ = d mod (q - 1) are inverses of e (so e · d ≡ 1 mod λ(n)), qInv · q ≡ 1 (mod p), and
    /// a test signature made with the CRT members opens with e. Sizes are checked before any
    /// arithmetic, so no member can make the checks slow.
    init(
        n: BigUInt, e: BigUInt, d: BigUInt, p: BigUInt, q: BigUInt, dP: BigUInt, dQ: BigUInt, qInv: BigUInt
    ) throws(RSAPrivateKeyError) {
        let publicKey: RSAPublicKey
        do {
            publicKey = try RSAPublicKey(modulus: n.bigEndianBytes, exponent: e.bigEndianBytes)
        } catch {
            throw .publicKey(error)
        }
        guard p.isOdd, q.isOdd, p.bitWidth >= 2, q.bitWidth >= 2, p.bitWidth + q.bitWidth <= n.bitWidth + 1 else {
            throw .inconsistent(.primes)
        }
        guard p != q, p * q == n else { throw .inconsistent(.primes) }
        guard !d.isZero, d < n else { throw .inconsistent(.privateExponent) }
        let pMinusOne = p - BigUInt(1)
        let qMinusOne = q - BigUInt(1)
        guard dP == d % pMinusOne, dQ == d % qMinusOne, (e * dP) % pMinusOne == BigUInt(1),
            (e * dQ) % qMinusOne == BigUInt(1)
        else { throw .inconsistent(.crtExponents) }
        guard qInv < p, (qInv * q) % p == BigUInt(1) else { throw .inconsistent(.coefficient) }
        guard let prime1 = MontgomeryModulus(p), let prime2 = MontgomeryModulus(q) else {
            throw .inconsistent(.primes)
        }
        self.publicKey = publicKey
        self.privateExponent = d
        self.prime1 = prime1
        self.prime2 = prime2
        self.exponent1 = dP
        self.exponent2 = dQ
        self.coefficient = qInv
        // Pairwise consistency (what FIPS 140 asks of every new key pair; here of every key): 2^d by
        // the CRT, raised to e, gives 2 back only when p and q behave as primes with these exponents.
        let two = BigUInt(2)
        guard let signed = crt(two, blindingExponents: nil), publicKey.modulus.power(signed, e) == two else {
            throw .inconsistent(.pairwiseConsistency)
        }
    }

    // MARK: Signing

    /// The RS256 signature of `message`: RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 §8.2.1), as many
    /// bytes as the modulus. The signature is deterministic; `generator` only feeds the blinding.
    /// - Throws: ``RSASigningError/faultDetected`` when the result does not verify with the public
    ///   key (a computation fault); nothing of it is returned.
    package func signSHA256(
        _ message: some Collection<UInt8>, using generator: inout some RandomNumberGenerator
    ) throws(RSASigningError) -> [UInt8] {
        let length = publicKey.modulusByteCount
        guard let encoded = RSASignature.expectedEncoding(digest: SHA256.hash(message), length: length),
            let signature = privateOperation(BigUInt(bigEndian: encoded), using: &generator),
            let bytes = signature.bigEndianBytes(count: length)
        else { throw .faultDetected }
        do {
            try RSASignature.verifySHA256(signature: bytes, message: message, key: publicKey)
        } catch {
            throw .faultDetected
        }
        return bytes
    }

    /// The RS256 signature of `message`, blinded with the system's secure random generator.
    /// - Throws: ``RSASigningError/faultDetected`` when the result does not verify.
    package func signSHA256(_ message: some Collection<UInt8>) throws(RSASigningError) -> [UInt8] {
        var generator = SecureRandomGenerator()
        return try signSHA256(message, using: &generator)
    }

    /// `value`^d mod n (RSASP1, RFC 8017 §5.2.1) by the CRT, with base and exponent blinding; `nil`
    /// when `value` is not below n, or no invertible blinding factor turned up in 8 draws (for a
    /// real key, the chance is below 2^-8000).
    func privateOperation(_ value: BigUInt, using generator: inout some RandomNumberGenerator) -> BigUInt? {
        let n = publicKey.modulus.modulus
        guard value < n else { return nil }
        let nMinusOne = n - BigUInt(1)
        for _ in 0..<8 {
            let r = BigUInt.random(below: nMinusOne, using: &generator) + BigUInt(1)
            let b = BigUInt.random(below: nMinusOne, using: &generator) + BigUInt(1)
            guard let inverseOfProduct = (r * b % n).inverse(modulo: n),
                let rToTheE = publicKey.modulus.power(r, publicKey.exponent)
            else { continue }
            let rInverse = inverseOfProduct * b % n
            let blinding = (generator.next(), generator.next())
            guard let signed = crt(value * rToTheE % n, blindingExponents: blinding) else { return nil }
            return signed * rInverse % n
        }
        return nil
    }

    /// `value`^d mod n for `value` below n, by the CRT with Garner's recombination; with
    /// `blindingExponents` (k1, k2), the exponents used are dP + k1 · (p - 1) and dQ + k2 · (q - 1).
    private func crt(_ value: BigUInt, blindingExponents: (UInt64, UInt64)?) -> BigUInt? {
        let p = prime1.modulus
        let q = prime2.modulus
        let (k1, k2) = blindingExponents ?? (0, 0)
        let extraBits = blindingExponents == nil ? 0 : 64
        guard
            let mP = prime1.power(
                value % p, secretExponent: exponent1 + BigUInt(k1) * (p - BigUInt(1)), bits: p.bitWidth + extraBits),
            let mQ = prime2.power(
                value % q, secretExponent: exponent2 + BigUInt(k2) * (q - BigUInt(1)), bits: q.bitWidth + extraBits)
        else { return nil }
        // h = qInv · (mP - mQ) mod p, kept non-negative by adding p first; s = mQ + q · h.
        let h = coefficient * ((mP + p - mQ % p) % p) % p
        return mQ + q * h
    }
}

extension RSAPrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The size and public exponent only: never a private member.
    package var description: String {
        "RSAPrivateKey(\(publicKey.modulusBitWidth) bits, e = 0x\(publicKey.exponent), private members redacted)"
    }

    package var debugDescription: String { description }

    /// A mirror without the private members, so `dump` and debuggers show none.
    package var customMirror: Mirror {
        Mirror(
            self, children: ["modulusBitWidth": publicKey.modulusBitWidth, "privateMembers": "redacted"],
            displayStyle: .struct)
    }
}

/// Why RSA private key material was refused, or a key could not be made.
package enum RSAPrivateKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Generation was asked for a size outside ``RSAPrivateKey/generationBits``, or an odd one.
    case unsupportedSize(bits: Int)
    /// The public half is not a key `RSAPublicKey` accepts.
    case publicKey(RSAKeyError)
    /// The encoding is not a DER PKCS #1 `RSAPrivateKey`; the text says where it broke.
    case malformedEncoding(String)
    /// A DER `RSAPrivateKey` of another version than 0 (two-prime): multi-prime keys are not supported.
    case unsupportedVersion
    /// The members do not belong together.
    case inconsistent(Check)
    /// Key generation's random generator gave the same or unusable numbers over and over (a stuck
    /// or broken generator); a working one never does.
    case randomSourceFailed

    /// Which of the consistency checks failed.
    package enum Check: String, Hashable, Sendable {
        /// p and q: odd, distinct, p · q = n.
        case primes
        /// 0 < d < n.
        case privateExponent
        /// dP = d mod (p - 1), dQ = d mod (q - 1), e · dP ≡ 1 (mod p - 1), e · dQ ≡ 1 (mod q - 1).
        case crtExponents
        /// qInv < p and qInv · q ≡ 1 (mod p).
        case coefficient
        /// A test signature with the CRT members does not open with e.
        case pairwiseConsistency
    }

    package var description: String {
        switch self {
        case .unsupportedSize(let bits): "RSA key generation supports 2048 to 4096 bits, even; not \(bits)"
        case .publicKey(let error): "RSA private key's public half refused: \(error)"
        case .malformedEncoding(let reason): "RSA private key is not DER PKCS #1: \(reason)"
        case .unsupportedVersion: "RSA private key is multi-prime or of an unknown version"
        case .inconsistent(let check): "RSA private key's members do not belong together (\(check.rawValue))"
        case .randomSourceFailed: "RSA key generation's random generator gave no usable primes"
        }
    }
}

/// Why a signature was not made.
package enum RSASigningError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The computed signature did not verify with the public key, so it was withheld.
    case faultDetected

    package var description: String {
        switch self {
        case .faultDetected: "RSA signature failed its check against the public key and was withheld"
        }
    }
}
