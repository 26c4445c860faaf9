import AuthCrypto
import Foundation
import NativeAuth

/// The portable RSA private key: generating a 2048-bit key (as a DPoP client does once, where the
/// platform has no signing) and signing with it (once per DPoP proof).
///
///     swift run -c release nativeauth-benchmarks --rsa [--runs N]
///
/// Key generation's time varies with how far the primes are from the random starting points, so it
/// is measured over N keys (default 21), each from its own seed; signing over 200 signatures of a
/// DPoP-sized signing input. Each signature is checked with the public key inside the signing call,
/// so that check is part of the time.
enum RSAKeys {
    static func run(keys: Int) async throws {
        let clock = ContinuousClock()
        var generation: [Double] = []
        var key: RSAPrivateKey?
        for seed in 1...UInt64(max(1, keys)) {
            var generator = SeededGenerator(seed: seed)
            let start = clock.now
            let made = try RSAPrivateKey.generate(bits: 2048, using: &generator)
            generation.append(nanoseconds(clock.now - start))
            key = key ?? made
        }
        guard let key else { throw BenchmarkFailure.setup("no key") }
        let message = Array(String(repeating: "x", count: 600).utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 { _ = try key.signSHA256(message, using: &generator) }
        var signing: [Double] = []
        for _ in 0..<200 {
            let start = clock.now
            _ = try key.signSHA256(message, using: &generator)
            signing.append(nanoseconds(clock.now - start))
        }
        print("RSA, portable (AuthCrypto), median / p90 / min / max in ms:")
        print(line("2048-bit key generation, \(generation.count) seeds", generation))
        print(line("RS256 signature, 2048-bit key, blinded CRT + check, 200 runs", signing))
        // A whole DPoP proof of a resource request: claims with `ath` and a nonce, JSON, base64url, the signature.
        let prove = try await prover(key: key)
        for _ in 0..<20 { _ = try await prove() }
        var proofs: [Double] = []
        for _ in 0..<200 {
            let start = clock.now
            _ = try await prove()
            proofs.append(nanoseconds(clock.now - start))
        }
        print(line("DPoP proof (RS256), resource request with ath and nonce, 200 runs", proofs))
    }

    /// A maker of proofs with `key`, through the SDK's own RS256 keys: each call builds and signs the
    /// proof of one resource request (with `ath` and a nonce), as `UserAccountResult.send` does, and
    /// returns its length.
    private static func prover(key: RSAPrivateKey) async throws -> @Sendable () async throws -> Int {
        let signer = try await SoftwareDPoPKeyProvider().restoreKey(from: Data(key.pkcs1DER))
        guard let url = URL(string: "https://api.example.com/orders?page=2") else {
            throw BenchmarkFailure.setup("URL")
        }
        let token = String(repeating: "a", count: 1200)
        return {
            try await DPoPProof.make(
                key: signer, method: "GET", url: url, accessToken: token, nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v",
                issuedAt: Date()
            ).jwt.utf8.count
        }
    }

    private static func line(_ name: String, _ samples: [Double]) -> String {
        let sorted = samples.sorted()
        func ms(_ ns: Double) -> String { String(format: "%.2f", ns / 1e6) }
        let median = sorted[sorted.count / 2]
        let p90 = sorted[min(sorted.count - 1, sorted.count * 9 / 10)]
        return "  \(name): \(ms(median)) / \(ms(p90)) / \(ms(sorted.first ?? 0)) / \(ms(sorted.last ?? 0))"
    }
}

/// SplitMix64, so each key generation run is reproducible from its seed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
