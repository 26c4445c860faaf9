package import AuthCrypto
import Foundation

/// A package-internal hook so the benchmark harness can time whole DPoP proofs (claims, JSON,
/// base64url, the RS256 signature) while the proof's types stay internal.
package enum DPoPProofBenchmark {
    /// A maker of proofs with `key`: each call builds and signs the proof of one resource request
    /// (with `ath` and a nonce), as ``UserAccountResult/send(_:scopes:using:)`` does, and returns
    /// its length.
    /// - Throws: never in practice: the request's URL is a constant.
    package static func makeProver(key: RSAPrivateKey) throws -> @Sendable () async throws -> Int {
        let signer = SoftwareRSAKey(key: key)
        guard let url = URL(string: "https://api.example.com/orders?page=2") else { throw DPoPProofError.invalidURL }
        let token = String(repeating: "a", count: 1200)
        return {
            try await DPoPProof.make(
                key: signer, method: "GET", url: url, accessToken: token, nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v",
                issuedAt: Date()
            ).jwt.utf8.count
        }
    }
}
