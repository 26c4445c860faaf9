import Foundation

/// A package-internal hook so the benchmark harness can time ID token signature checks while the
/// verifier's types stay internal.
package enum IDTokenSignatureBenchmark {
    /// Parses `jwks` (a JWK Set document) once and returns a check of `token` against it, which is
    /// `true` when the signature verifies.
    /// - Throws: when `jwks` is not a JWK Set.
    package static func makeCheck(token: String, jwks: [UInt8]) throws -> @Sendable () -> Bool {
        let keys = try JSONWebKeySet(json: Data(jwks))
        return { (try? IDTokenSignature.verify(token, keys: keys)) != nil }
    }

    /// Parses `jwks` and returns how many usable keys it holds (each key's Montgomery constants are
    /// computed here, so this times the one-off cost per key set).
    /// - Throws: when `jwks` is not a JWK Set.
    package static func parseKeySet(_ jwks: [UInt8]) throws -> Int {
        try JSONWebKeySet(json: Data(jwks)).keys.count
    }
}
