import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

/// One way of getting a proof wrong, and the refusal it earns.
struct ProofRefusal: Sendable, CustomTestStringConvertible {
    let name: String
    /// The request's headers, made from a valid proof of the token request.
    let headers: @Sendable (DPoPHarness) -> [String: String]
    /// What the `error_description` says.
    let says: String
    var testDescription: String { name }

    /// A case whose header is the valid proof after `change`.
    static func proof(_ name: String, says: String, _ change: @escaping @Sendable (inout Proof) -> Void)
        -> ProofRefusal
    {
        ProofRefusal(
            name: name,
            headers: { harness in
                var proof = harness.tokenProof()
                change(&proof)
                return ["DPoP": proof.jwt]
            }, says: says)
    }

    /// A case whose header is `value(validProof)`.
    static func header(_ name: String, says: String, _ value: @escaping @Sendable (String) -> String) -> ProofRefusal {
        ProofRefusal(name: name, headers: { ["DPoP": value($0.tokenProof().jwt)] }, says: says)
    }
}

/// Every check of RFC 9449 §4.3 at the token endpoint, each with a proof that fails it alone:
/// `400 invalid_dpop_proof`, and the code is not spent.
@Suite("DPoP: each check of a proof (RFC 9449 §4.3)", .hangLimit, .cpuHeavy)
struct DPoPProofCheckTests {
    static var ec: [String: Any] { ["kty": "EC", "crv": "P-256", "x": String(repeating: "A", count: 43), "y": "AA"] }

    static let refusals: [ProofRefusal] = [
        // Step 1: one DPoP header.
        ProofRefusal(
            name: "two DPoP headers", headers: { ["DPoP": $0.tokenProof().jwt, "dpop": $0.tokenProof().jwt] },
            says: "more than one DPoP header"),
        .header("two DPoP header lines joined", says: "more than one DPoP header") { $0 + ", " + $0 },
        // Step 2: a well-formed JWT.
        .header("not a JWT", says: "not a signed JWT") { _ in "not-a-jwt" },
        .header("two parts", says: "not a signed JWT") {
            String($0.split(separator: ".").prefix(2).joined(separator: "."))
        },
        .header("an empty signature", says: "not a signed JWT") {
            String($0[..<($0.lastIndex(of: ".") ?? $0.endIndex)]) + "."
        },
        .header("base64 padding in the header", says: "header is not a base64url JSON object") { "=" + $0 },
        .header("a header that is not JSON", says: "header is not a base64url JSON object") {
            b64(Data("typ: dpop+jwt".utf8)) + $0[($0.firstIndex(of: ".") ?? $0.startIndex)...]
        },
        .header("a payload that is a JSON array", says: "payload is not a base64url JSON object") {
            let parts = $0.split(separator: ".")
            return "\(parts[0]).\(b64(Data("[1,2]".utf8))).\(parts[2])"
        },
        // Step 3: the claims of §4.2.
        .proof("no jti", says: "no jti") { $0.claims["jti"] = nil },
        .proof("an empty jti", says: "no jti") { $0.claims["jti"] = "" },
        .proof("no htm", says: "no htm") { $0.claims["htm"] = nil },
        .proof("no htu", says: "no htu") { $0.claims["htu"] = nil },
        .proof("no iat", says: "no numeric iat") { $0.claims["iat"] = nil },
        .proof("iat as a string", says: "no numeric iat") { $0.claims["iat"] = "1800000000" },
        // Step 4: typ.
        .proof("typ JWT", says: "typ is not dpop+jwt") { $0.header["typ"] = "JWT" },
        .proof("no typ", says: "typ is not dpop+jwt") { $0.header["typ"] = nil },
        // Step 5: an asymmetric algorithm the tenant verifies.
        .proof("alg none", says: "not signed (alg none)") { $0.header["alg"] = "none" },
        .proof("alg HS256", says: "alg is symmetric") { $0.header["alg"] = "HS256" },
        .proof("alg PS384", says: "alg is not supported") { $0.header["alg"] = "PS384" },
        .proof("alg PS256 on an RS256 signature", says: "does not verify") { $0.header["alg"] = "PS256" },
        .proof("no alg", says: "no alg") { $0.header["alg"] = nil },
        .proof("a crit header", says: "crit") { $0.header["crit"] = ["exp"] },
        // Step 6: the signature verifies with the jwk.
        .proof("signed by another key", says: "signature does not verify") {
            $0.header["jwk"] = ProofKey.b.jwk
        },
        .header("claims changed after signing", says: "signature does not verify") {
            let parts = $0.split(separator: ".")
            let claims = #"{"htm":"POST","htu":"x","iat":1800000000,"jti":"forged"}"#
            return "\(parts[0]).\(b64(Data(claims.utf8))).\(parts[2])"
        },
        .proof("no jwk", says: "no jwk object") { $0.header["jwk"] = nil },
        .proof("an EC jwk on an RS256 proof", says: "not a key of the proof's alg") { $0.header["jwk"] = ec },
        .proof("a modulus of 1024 bits", says: "2048 to 8192 bits") { proof in
            proof.header["jwk"] = ["kty": "RSA", "e": "AQAB", "n": b64(Data(proof.key.modulus.prefix(128)))]
        },
        .proof("an even exponent", says: "exponent") { proof in
            proof.header["jwk"] = ["kty": "RSA", "e": "AQAA", "n": proof.key.n]
        },
        // Step 7: no private key in the jwk.
        .proof("a private exponent in the jwk", says: "private key member") { proof in
            proof.header["jwk"] = ["kty": "RSA", "e": "AQAB", "n": proof.key.n, "d": "AQAB"]
        },
        .proof("a symmetric key in the jwk", says: "private key member") {
            $0.header["jwk"] = ["kty": "oct", "k": "c2VjcmV0"]
        },
        // Step 8: htm.
        .proof("htm GET on a POST", says: "htm is not this request's method, POST") { $0.claims["htm"] = "GET" },
        .proof("htm in lower case", says: "htm is not this request's method") { $0.claims["htm"] = "post" },
        // Step 9: htu.
        .proof("htu of another endpoint", says: "htu is not this request's URI") { proof in
            proof.claims["htu"] = (proof.claims["htu"] as? String ?? "").replacingOccurrences(of: "token", with: "par")
        },
        .proof("htu on another host", says: "htu is not this request's URI") { proof in
            proof.claims["htu"] = (proof.claims["htu"] as? String ?? "").replacingOccurrences(
                of: "contoso.ciamlogin", with: "fabrikam.ciamlogin")
        },
        .proof("htu over http", says: "htu is not this request's URI") { proof in
            proof.claims["htu"] = (proof.claims["htu"] as? String ?? "").replacingOccurrences(
                of: "https:", with: "http:")
        },
        .proof("htu with a query", says: "query or a fragment") {
            $0.claims["htu"] = ($0.claims["htu"] as? String ?? "") + "?a=1"
        },
        .proof("htu with a fragment", says: "query or a fragment") {
            $0.claims["htu"] = ($0.claims["htu"] as? String ?? "") + "#f"
        },
        .proof("htu not a URI", says: "htu is not this request's URI") { $0.claims["htu"] = "token" },
        // Step 11: iat within the window.
        .proof("iat 61 seconds old", says: "more than 60 seconds in the past") {
            $0.claims["iat"] = ($0.claims["iat"] as? Int ?? 0) - 61
        },
        .proof("iat 61 seconds ahead", says: "more than 60 seconds in the future") {
            $0.claims["iat"] = ($0.claims["iat"] as? Int ?? 0) + 61
        },
    ]

    @Test("a proof that fails one check is refused with invalid_dpop_proof; the code stays usable", arguments: refusals)
    func refused(_ refusal: ProofRefusal) async throws {
        let harness = DPoPHarness()
        let code = try await harness.code()
        let refused = try await harness.token(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", WebHarness.redirect),
                ("code_verifier", WebHarness.verifier),
            ], headers: refusal.headers(harness))
        #expect(refused.status == 400, "\(refused.text)")
        #expect(refused.error == "invalid_dpop_proof")
        let description = refused["error_description"]
        #expect(description.contains(refusal.says), "\(description)")
        #expect(refused.response.header("DPoP-Nonce") == nil)
        let redeemed = try await harness.redeem(code, proof: harness.tokenProof().jwt)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        #expect(redeemed["token_type"] == "DPoP")
    }
}
