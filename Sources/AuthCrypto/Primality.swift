/// Probable primes for RSA keys: trial division by the small primes, the Miller–Rabin test, and
/// the search for a random prime of a given size that suits a public exponent.
///
/// The Miller–Rabin rounds run in ``MontgomeryModulus/power(_:secretExponent:bits:)``, whose
/// sequence of operations depends only on the candidate's size; the sieve, trial division and
/// the count of squarings after the first power (the number of trailing zero bits of n - 1) take
/// time that depends on the candidate. Key generation runs once, on the device.
package enum Primality {
    /// The odd primes below 2^16 (6,541 of them), by the sieve of Eratosthenes: dividing by them
    /// (or sieving with them) rules out about 90% of odd candidates before any exponentiation.
    package static let smallPrimes: [UInt64] = {
        let limit = 1 << 16
        var composite = [Bool](repeating: false, count: limit)
        var primes: [UInt64] = []
        for value in 3..<limit where value & 1 == 1 && !composite[value] {
            primes.append(UInt64(value))
            for multiple in stride(from: value * value, to: limit, by: 2 * value) { composite[multiple] = true }
        }
        return primes
    }()

    /// The Miller–Rabin rounds for a random candidate of `bits` bits. FIPS 186-5, Table B.1, asks
    /// for 5 rounds for 1024-bit primes and 4 for 1536-bit ones (error probability 2^-112 when
    /// generating an RSA key of 2048 or 3072 bits); this uses 8 and 6, and 40 for smaller sizes,
    /// for which the table gives nothing.
    package static func rounds(forBits bits: Int) -> Int {
        switch bits {
        case 1536...: 6
        case 1024..<1536: 8
        default: 40
        }
    }

    /// `true` when `n` is prime, or a composite that survived `rounds` Miller–Rabin rounds with
    /// random bases (for an adversarial composite each round lets it through with probability at
    /// most 1/4; for a random candidate far less). Below 2^32 the answer is exact.
    package static func isProbablePrime(
        _ n: BigUInt, rounds: Int, using generator: inout some RandomNumberGenerator
    ) -> Bool {
        if n.bitWidth <= 2 { return n == BigUInt(2) || n == BigUInt(3) }
        guard n.isOdd else { return false }
        for prime in smallPrimes {
            if n.remainder(dividingBy: prime) == 0 { return n == BigUInt(prime) }
            // Every factor of a composite n is at most √n: past it, n is prime.
            if n.bitWidth <= 64, prime * prime > n.limbs[0] { return true }
        }
        return passesMillerRabin(n, rounds: rounds, using: &generator)
    }

    /// `rounds` Miller–Rabin rounds with bases drawn uniformly from [2, n - 2], for an odd `n`
    /// above 3 with no small factor.
    static func passesMillerRabin(_ n: BigUInt, rounds: Int, using generator: inout some RandomNumberGenerator) -> Bool
    {
        guard let context = MontgomeryModulus(n), n.bitWidth > 2 else { return false }
        let nMinusThree = n - BigUInt(3)
        for _ in 0..<rounds {
            let base = BigUInt.random(below: nMinusThree, using: &generator) + BigUInt(2)
            if !isStrongProbablePrime(context, base: base) { return false }
        }
        return true
    }

    /// The strong probable-prime test of the odd modulus of `context` to `base` (2 ≤ base ≤ n - 2):
    /// with n - 1 = 2^s · d, d odd, `true` when base^d ≡ 1 or base^(2^r · d) ≡ -1 for some r < s.
    package static func isStrongProbablePrime(_ context: MontgomeryModulus, base: BigUInt) -> Bool {
        let n = context.modulus
        let nMinusOne = n - BigUInt(1)
        let s = nMinusOne.trailingZeroBitCount
        let d = nMinusOne >> s
        guard base < n, var x = context.power(base, secretExponent: d, bits: n.bitWidth) else { return false }
        if x == BigUInt(1) || x == nMinusOne { return true }
        for _ in 1..<max(s, 1) {
            guard let squared = context.power(x, BigUInt(2)) else { return false }
            x = squared
            if x == nMinusOne { return true }
            if x == BigUInt(1) { return false }
        }
        return false
    }

    /// The offsets of a sieve window: candidates start, start + 2, …, start + 2·(count - 1).
    static let sieveWindow = 4096

    /// A random probable prime of exactly `bits` bits (at least 64) with its top two bits set (so
    /// the product of two has exactly 2·`bits` bits), and p - 1 prime to the prime `exponent`.
    ///
    /// Draws a random odd start, sieves the window of odd numbers after it with the small primes
    /// (and marks those ≡ 1 mod `exponent`), and runs Miller–Rabin on the survivors in order; a
    /// window without a prime (rare) is dropped for a new start. Taking the first prime after a
    /// random start favours primes after long gaps slightly, as incremental search in common
    /// libraries does; the loss of entropy is a few bits at most (Brandt and Damgård, 1992).
    ///
    /// `nil` after ``maximumWindows`` windows without a prime: each holds one with probability above
    /// 99% at RSA sizes, so only a generator that repeats itself gets there.
    package static func randomPrime(
        bits: Int, exponent: UInt64, rounds: Int, using generator: inout some RandomNumberGenerator
    ) -> BigUInt? {
        precondition(bits >= 64 && exponent >= 3, "a prime of at least 64 bits, an odd prime exponent")
        for _ in 0..<maximumWindows {
            var limbs = BigUInt.random(bits: bits, using: &generator).limbs
            limbs += [UInt64](repeating: 0, count: (bits + 63) / 64 - limbs.count)
            for bit in [0, bits - 2, bits - 1] { limbs[bit / 64] |= 1 << UInt64(bit % 64) }
            let start = BigUInt(limbs: limbs)
            var composite = [Bool](repeating: false, count: sieveWindow)
            for prime in smallPrimes {
                mark(&composite, start: start.remainder(dividingBy: prime), modulus: prime, target: 0)
            }
            mark(&composite, start: start.remainder(dividingBy: exponent), modulus: exponent, target: 1)
            for offset in 0..<sieveWindow where !composite[offset] {
                let candidate = start + BigUInt(UInt64(2 * offset))
                guard candidate.bitWidth == bits else { break }
                if passesMillerRabin(candidate, rounds: rounds, using: &generator) { return candidate }
            }
        }
        return nil
    }

    /// The most sieve windows ``randomPrime(bits:exponent:rounds:using:)`` tries.
    static let maximumWindows = 16

    /// Marks the offsets j of `composite` for which start + 2j ≡ `target` (mod the odd `modulus`),
    /// given `start` mod `modulus`.
    private static func mark(_ composite: inout [Bool], start residue: UInt64, modulus: UInt64, target: UInt64) {
        // start + 2j ≡ target  ⇔  j ≡ (target - start) · 2⁻¹, and 2⁻¹ = (modulus + 1) / 2.
        let difference = (target + modulus - residue) % modulus
        let half = (modulus + 1) / 2
        let first = Int(difference * half % modulus)
        for offset in stride(from: first, to: composite.count, by: Int(modulus)) { composite[offset] = true }
    }
}
