import AuthCrypto
package import Foundation

/// A DPoP proof JWT (RFC 9449 §4.2), built and signed. Package access, so the benchmark harness
/// can time whole proofs.
package struct DPoPProof: Sendable {
    /// The compact JWS, for the `DPoP` header.
    package let jwt: String

    /// Builds and signs the proof of a request.
    ///
    /// - Parameters:
    ///   - method: the request's method (`htm`).
    ///   - url: the request's URL; `htu` is it without query and fragment (§4.2).
    ///   - accessToken: for a request to a resource, the access token it carries: `ath` is the
    ///     base64url SHA-256 of its ASCII bytes (§4.2).
    ///   - nonce: the server's latest `DPoP-Nonce`, when it gave one (§8, §9).
    ///   - issuedAt: `iat`, in the server's time when the SDK knows its clock skew.
    ///   - jti: a unique identifier; 16 random bytes by default.
    @inline(never)
    package static func make(
        key: any DPoPKey, method: String, url: URL, accessToken: String? = nil, nonce: String? = nil,
        issuedAt: Date, jti: String = DPoPProof.randomIdentifier()
    ) async throws(DPoPProofError) -> DPoPProof {
        guard let htu = targetURI(of: url) else { throw .invalidURL }
        let header: [String: JSONValue] = [
            "typ": .string("dpop+jwt"), "alg": .string(key.algorithm),
            "jwk": .object(key.publicJWK.mapValues(JSONValue.string)),
        ]
        var payload: [String: JSONValue] = [
            "jti": .string(jti), "htm": .string(method.uppercased()), "htu": .string(htu),
            "iat": .number(issuedAt.timeIntervalSince1970.rounded(.down)),
        ]
        if let accessToken { payload["ath"] = .string(accessTokenHash(accessToken)) }
        if let nonce { payload["nonce"] = .string(nonce) }
        let input =
            Base64URL.encode(Array(JSONValue.object(header).description.utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(payload).description.utf8))
        let signature: Data
        do {
            signature = try await key.sign(Data(input.utf8))
        } catch {
            throw .signingFailed(error)
        }
        guard !signature.isEmpty else { throw .signingFailed(nil) }
        return DPoPProof(jwt: input + "." + Base64URL.encode(signature))
    }

    /// `htu`: the URL without its query and fragment (RFC 9449 §4.2, §4.3 step 9); `nil` for a
    /// URL without scheme or host.
    static func targetURI(of url: URL) -> String? {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false), parts.scheme != nil,
            parts.host != nil
        else { return nil }
        parts.query = nil
        parts.fragment = nil
        return parts.string
    }

    /// `ath`: base64url(SHA-256(ASCII(access token))) (RFC 9449 §4.2).
    static func accessTokenHash(_ token: String) -> String {
        Base64URL.encode(SHA256.hash(Array(token.utf8)))
    }

    /// The JWK SHA-256 thumbprint of a public key (RFC 7638 §3): the required members in
    /// lexicographic order, no white space, hashed; base64url. The `jkt` a server binds tokens to
    /// (RFC 9449 §6.1), and the `dpop_jkt` of an authorization request (§10).
    static func thumbprint(of jwk: [String: String]) -> String? {
        let required: [String]
        switch jwk["kty"] {
        case "RSA": required = ["e", "kty", "n"]
        case "EC": required = ["crv", "kty", "x", "y"]
        case "OKP": required = ["crv", "kty", "x"]
        default: return nil
        }
        var members: [String: JSONValue] = [:]
        for name in required {
            guard let value = jwk[name] else { return nil }
            members[name] = .string(value)
        }
        return Base64URL.encode(SHA256.hash(Array(JSONValue.object(members).description.utf8)))
    }

    /// 16 random bytes, base64url: 128 bits, so two proofs never share a `jti` (§4.2 asks for
    /// enough entropy that a collision is negligible).
    package static func randomIdentifier() -> String {
        var generator = SecureRandomGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

/// Why no proof could be made.
package enum DPoPProofError: Error, Sendable {
    /// The request's URL has no scheme or host.
    case invalidURL
    /// The key did not sign (its own error, when it gave one).
    case signingFailed((any Error)?)
}
