import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

/// DPoP at the protected resource `GET emulator/me` (RFC 9449 §7): a bound token with its proof, a
/// bound token as a Bearer token, another key's proof, `ath`, and Bearer tokens as before.
@Suite("DPoP: the protected resource", .hangLimit)
struct DPoPResourceTests {
    @Test("a bound token with the DPoP scheme and a valid proof (with ath) is accepted")
    func boundTokenWithProof() async throws {
        let harness = DPoPHarness()
        let token = try await harness.boundTokens()["access_token"]
        let me = try await harness.me(dpop: token, proof: harness.resourceProof(token).jwt)
        #expect(me.status == 200, "\(me.text)")
        #expect(me["username"] == Fixture.ada)
        // The scheme's name is case-insensitive (RFC 9110 §11.1).
        let lower = try await harness.me(
            authorization: "dpop \(token)", headers: ["DPoP": harness.resourceProof(token).jwt])
        #expect(lower.status == 200)
    }

    @Test("a bound token presented as a Bearer token is refused (RFC 9449 §7.2)")
    func boundTokenAsBearer() async throws {
        let harness = DPoPHarness()
        let token = try await harness.boundTokens()["access_token"]
        let me = try await harness.me(authorization: "Bearer \(token)")
        #expect(me.status == 401)
        #expect(me.error == "invalid_token")
        #expect(me.challenge.hasPrefix(#"DPoP error="invalid_token", error_description="The access token is bound"#))
        #expect(me.challenge.hasSuffix(#"algs="RS256 PS256 ES256 EdDSA""#))
        // With a proof alongside, still refused: the scheme is what counts.
        let withProof = try await harness.me(
            authorization: "Bearer \(token)", headers: ["DPoP": harness.resourceProof(token).jwt])
        #expect(withProof.status == 401)
    }

    @Test("a proof of another key than the token's is refused: invalid_token, the binding")
    func otherKey() async throws {
        let harness = DPoPHarness()
        let token = try await harness.boundTokens()["access_token"]
        let me = try await harness.me(dpop: token, proof: harness.resourceProof(token, key: .b).jwt)
        #expect(me.status == 401)
        #expect(me.error == "invalid_token")
        #expect(me.challenge.contains("Invalid DPoP key binding"))
    }

    @Test("ath must be the hash of the token presented")
    func athMismatch() async throws {
        let harness = DPoPHarness()
        let token = try await harness.boundTokens()["access_token"]
        let other = try await harness.boundTokens()["access_token"]
        let wrong = try await harness.me(dpop: token, proof: harness.resourceProof(other).jwt)
        #expect(wrong.status == 401)
        #expect(wrong.error == "invalid_dpop_proof")
        #expect(wrong.challenge.hasPrefix(#"DPoP error="invalid_dpop_proof""#))
        #expect(wrong["error_description"] == "The proof's ath is not the hash of the access token it came with.")
        var proof = harness.resourceProof(token)
        proof.claims["ath"] = nil
        let missing = try await harness.me(dpop: token, proof: proof.jwt)
        #expect(missing["error_description"] == "The proof has no ath.")
    }

    @Test("the DPoP scheme without a proof, or with a proof of the wrong method or URI, is refused")
    func proofRefusals() async throws {
        let harness = DPoPHarness()
        let token = try await harness.boundTokens()["access_token"]
        let none = try await harness.me(dpop: token, proof: nil)
        #expect(none.status == 401)
        #expect(none.error == "invalid_dpop_proof")
        #expect(none["error_description"] == "The request has no DPoP proof")
        var post = harness.resourceProof(token)
        post.claims["htm"] = "POST"
        #expect(try await harness.me(dpop: token, proof: post.jwt)["error_description"].contains("htm"))
        var elsewhere = harness.resourceProof(token)
        elsewhere.claims["htu"] = harness.tokenURL
        #expect(try await harness.me(dpop: token, proof: elsewhere.jwt)["error_description"].contains("htu"))
        let proof = harness.resourceProof(token).jwt
        #expect(try await harness.me(dpop: token, proof: proof).status == 200)
        let replayed = try await harness.me(dpop: token, proof: proof)
        #expect(replayed["error_description"].contains("jti was used before"))
    }

    @Test("an unbound token under the DPoP scheme is refused; as a Bearer token it works, proof or not")
    func unboundToken() async throws {
        let harness = DPoPHarness()
        let token = try await harness.redeem(try await harness.code(), proof: nil)["access_token"]
        let dpop = try await harness.me(dpop: token, proof: harness.resourceProof(token).jwt)
        #expect(dpop.status == 401)
        #expect(dpop.error == "invalid_token")
        #expect(dpop["error_description"].contains("not bound to a DPoP key"))
        #expect(try await harness.me(authorization: "Bearer \(token)").status == 200)
        let ignored = try await harness.me(authorization: "Bearer \(token)", headers: ["DPoP": "not-a-jwt"])
        #expect(ignored.status == 200)
    }

    @Test("an expired bound token is refused as expired")
    func expired() async throws {
        let harness = DPoPHarness()
        let token = try await harness.boundTokens()["access_token"]
        harness.clock.advance(by: 3601)
        let me = try await harness.me(dpop: token, proof: harness.resourceProof(token).jwt)
        #expect(me.status == 401)
        #expect(me["error_description"] == "The access token is expired")
        #expect(me.challenge.hasPrefix(#"DPoP error="invalid_token""#))
    }

    @Test("with DPoP on, a request without a token is challenged for both schemes")
    func challengeNamesBothSchemes() async throws {
        let harness = DPoPHarness()
        let me = try await harness.me(authorization: nil)
        #expect(me.status == 401)
        #expect(me.error == "invalid_request")
        #expect(me.challenge.hasPrefix(#"Bearer error="invalid_request", DPoP algs="RS256"#))
    }

    @Test("off: the DPoP scheme is unknown (invalid_request, a Bearer challenge); Bearer tokens as before")
    func off() async throws {
        let harness = DPoPHarness(.off)
        let token = try await harness.redeem(try await harness.code(), proof: harness.tokenProof().jwt)["access_token"]
        let dpop = try await harness.me(dpop: token, proof: harness.resourceProof(token).jwt)
        #expect(dpop.status == 401)
        #expect(dpop.error == "invalid_request")
        #expect(dpop.challenge == #"Bearer error="invalid_request""#)
        let bearer = try await harness.me(authorization: "Bearer \(token)", headers: ["DPoP": "ignored"])
        #expect(bearer.status == 200)
    }
}
