import Foundation

/// The provider's signing keys (its JWK Set at `jwks_uri`), fetched once and kept; fetched again
/// once when a token names a key the set does not have (the provider rotated its keys), never
/// more than once per token.
actor JWKSCache {
    private let url: URL
    private let transport: any HTTPTransport
    private var keys: JSONWebKeySet?

    init(url: URL, transport: any HTTPTransport) {
        self.url = url
        self.transport = transport
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
        let request = HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"])
        let response: HTTPResponse
        do {
            response = try await RequestEndpoint.$current.withValue(.jwks) { try await transport.send(request) }
        } catch {
            var failure = WebSignInError(
                .invalidIDToken(.signature), note: "The provider's keys could not be fetched.", underlyingError: error)
            failure.endpoint = .jwks
            throw failure
        }
        guard (200...299).contains(response.statusCode), response.body.count <= 1 << 20,
            let parsed = try? JSONWebKeySet(json: response.body)
        else {
            throw WebSignInError(.invalidIDToken(.signature), note: "The provider's keys are not a usable JWK Set.")
        }
        keys = parsed
        return parsed
    }
}
