import Foundation

/// The provider's signing keys (its JWK Set at `jwks_uri`), fetched once and kept; fetched again
/// once when a token names a key the set does not have (the provider rotated its keys), never
/// more than once per token.
actor JWKSCache {
    private let url: URL
    private let pipeline: RequestPipeline
    private var keys: JSONWebKeySet?

    init(url: URL, pipeline: RequestPipeline) {
        self.url = url
        self.pipeline = pipeline
    }

    /// Verifies the token's signature with the provider's keys.
    ///
    /// - Throws: `JWSVerificationError` for a token that does not verify; ``WebSignInError`` when
    ///   the keys cannot be had.
    func verify(_ token: String) async throws -> IDTokenSignature.Verified {
        let current = try await keySet(refresh: false)
        do {
            return try IDTokenSignature.verify(token, keys: current)
        } catch .unknownKeyID {
            return try IDTokenSignature.verify(token, keys: try await keySet(refresh: true))
        }
    }

    private func keySet(refresh: Bool) async throws(WebSignInError) -> JSONWebKeySet {
        if !refresh, let keys { return keys }
        let response = try await WebHTTP.send(
            HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]), to: .jwks,
            through: pipeline, readOnly: true, correlationId: nil, failures: .keys)
        guard (200...299).contains(response.statusCode), let parsed = try? JSONWebKeySet(json: response.body) else {
            throw WebHTTP.unusableKeys
        }
        keys = parsed
        return parsed
    }
}

extension JWKSCache: CustomReflectable {
    /// Nothing: the state is the actor's to read, and a `Mirror` would read it off the actor.
    nonisolated var customMirror: Mirror { Mirror(self, children: [:]) }
}
