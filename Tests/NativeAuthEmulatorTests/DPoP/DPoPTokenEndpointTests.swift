import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuthEmulator

#if canImport(CryptoKit)
    import CryptoKit
#endif

/// DPoP at the token endpoint (RFC 9449 §5): bound tokens with a proof, Bearer tokens without,
/// discovery, the three modes, and refresh tokens bound to the key.
@Suite("DPoP: the token endpoint", .hangLimit, .cpuHeavy)
struct DPoPTokenEndpointTests {
    @Test("discovery lists dpop_signing_alg_values_supported only when DPoP is on")
    func discovery() async throws {
        for mode in EmulatorSettings.DPoPMode.allCases {
            let harness = DPoPHarness(mode)
            let document = try Reply(try await harness.web.get(harness.tenant.url(for: .openIDConfiguration)))
            let algorithms = document.json["dpop_signing_alg_values_supported"] as? [String]
            if mode == .off {
                #expect(algorithms == nil)
            } else {
                #expect(algorithms == ["RS256", "PS256", "ES256", "EdDSA"])
            }
        }
    }

    @Test("a code redeemed with a valid proof gets DPoP tokens bound to the proof's key (cnf.jkt)")
    func boundTokens() async throws {
        let harness = DPoPHarness()
        let reply = try await harness.boundTokens()
        #expect(reply["token_type"] == "DPoP")
        #expect(reply.boundKey == ProofKey.a.thumbprint)
        #expect(reply.has("refresh_token") && reply.has("id_token"))
        let other = try await harness.boundTokens(key: .b)
        #expect(other.boundKey == ProofKey.b.thumbprint)
        #expect(ProofKey.a.thumbprint != ProofKey.b.thumbprint)
    }

    @Test("offered: a code redeemed without a proof gets Bearer tokens, as before")
    func bearerWithoutProof() async throws {
        let harness = DPoPHarness(.offered)
        let reply = try await harness.redeem(try await harness.code(), proof: nil)
        #expect(reply.status == 200)
        #expect(reply["token_type"] == "Bearer")
        #expect(reply.boundKey == nil)
        let me = try await harness.me(authorization: "Bearer \(reply["access_token"])")
        #expect(me.status == 200)
    }

    @Test("required: a code redeemed without a proof is refused with invalid_dpop_proof, and stays usable")
    func requiredRefusesNoProof() async throws {
        let harness = DPoPHarness(.required)
        let code = try await harness.code()
        let refused = try await harness.redeem(code, proof: nil)
        #expect(refused.status == 400)
        #expect(refused.error == "invalid_dpop_proof")
        #expect(refused["error_description"] == "The tenant requires a DPoP proof with every token request.")
        let redeemed = try await harness.redeem(code, proof: harness.tokenProof().jwt)
        #expect(redeemed.status == 200)
        #expect(redeemed["token_type"] == "DPoP")
    }

    @Test("off: the DPoP header is not read, even a malformed one; Bearer tokens as before")
    func offIgnoresProofs() async throws {
        let harness = DPoPHarness(.off) { $0.dpopNonces = true }
        let reply = try await harness.redeem(try await harness.code(), proof: "not-a-jwt")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply["token_type"] == "Bearer")
        #expect(reply.response.header("DPoP-Nonce") == nil)
        let valid = try await harness.redeem(try await harness.code(), proof: harness.tokenProof().jwt)
        #expect(valid["token_type"] == "Bearer")
        #expect(valid.boundKey == nil)
    }

    @Test("the same proof twice is a replay: the second is refused")
    func replayedJTI() async throws {
        let harness = DPoPHarness()
        let proof = harness.tokenProof().jwt
        #expect(try await harness.redeem(try await harness.code(), proof: proof).status == 200)
        let replayed = try await harness.redeem(try await harness.code(), proof: proof)
        #expect(replayed.error == "invalid_dpop_proof")
        #expect(replayed["error_description"].contains("jti was used before"))
    }

    @Test("a proof exactly as old as the window is taken; the window follows dpopProofLifetime")
    func proofWindow() async throws {
        let harness = DPoPHarness { $0.dpopProofLifetime = 5 }
        var proof = harness.tokenProof()
        proof.claims["iat"] = Int(harness.now.timeIntervalSince1970) - 5
        #expect(try await harness.redeem(try await harness.code(), proof: proof.jwt).status == 200)
        proof = harness.tokenProof()
        harness.clock.advance(by: 6)
        let stale = try await harness.redeem(try await harness.code(), proof: proof.jwt)
        #expect(stale["error_description"] == "The proof's iat is more than 5 seconds in the past.")
    }

    @Test("an infinite, undefined or negative proof lifetime is read as a window from 0 to ten years")
    func oddProofLifetimes() async throws {
        for (lifetime, taken) in [(TimeInterval.infinity, true), (.nan, false), (-5, false)] {
            let harness = DPoPHarness { $0.dpopProofLifetime = lifetime }
            var proof = harness.tokenProof()
            proof.claims["iat"] = Int(harness.now.timeIntervalSince1970) - 1
            let reply = try await harness.redeem(try await harness.code(), proof: proof.jwt)
            #expect((reply.status == 200) == taken, "\(lifetime): \(reply.text)")
        }
    }

    @Test(
        "htu is compared after RFC 3986 normalization: case, default port, dot segments, percent-encoding",
        arguments: [
            "HTTPS://CONTOSO.CIAMLOGIN.COM/{tid}/oauth2/v2.0/token",
            "https://contoso.ciamlogin.com:443/{tid}/oauth2/v2.0/token",
            "https://contoso.ciamlogin.com/{tid}/oauth2/./v2.0/x/../token",
            "https://contoso.ciamlogin.com/{tid}/oauth2/v2.0/%74oken",
        ])
    func normalizedTargetURI(_ htu: String) async throws {
        let harness = DPoPHarness()
        var proof = harness.tokenProof()
        proof.claims["htu"] = htu.replacingOccurrences(of: "{tid}", with: harness.tenant.tenantId)
        let reply = try await harness.redeem(try await harness.code(), proof: proof.jwt)
        #expect(reply.status == 200, "\(reply.text)")
    }

    @Test("the request's own path counts: a proof for the authority's path is taken there")
    func authorityPath() async throws {
        let harness = DPoPHarness()
        let url = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/oauth2/v2.0/token"
        let reply = try await harness.token(
            [
                ("grant_type", "authorization_code"), ("code", try await harness.code()),
                ("redirect_uri", WebHarness.redirect), ("code_verifier", WebHarness.verifier),
            ], headers: ["DPoP": Proof("POST", url, at: harness.now).jwt])
        // The harness posts to the tenant-id path, so a proof for the authority's path is refused there.
        #expect(reply.error == "invalid_dpop_proof")
        let request = HTTPRequest(
            method: "POST", url: try #require(URL(string: url)),
            headers: [
                "Content-Type": "application/x-www-form-urlencoded", "DPoP": Proof("POST", url, at: harness.now).jwt,
            ],
            body: Data(
                formEncode([
                    ("client_id", harness.tenant.clientId), ("grant_type", "authorization_code"),
                    ("code", try await harness.code()), ("redirect_uri", WebHarness.redirect),
                    ("code_verifier", WebHarness.verifier),
                ]).utf8))
        let taken = try Reply(try await harness.tenant.send(request))
        #expect(taken.status == 200, "\(taken.text)")
        #expect(taken["token_type"] == "DPoP")
    }

    #if canImport(CryptoKit)
        @Test("on Apple platforms an ES256 proof (a P-256 key, R ‖ S) binds the tokens too")
        func es256() async throws {
            let harness = DPoPHarness()
            let key = P256.Signing.PrivateKey()
            let raw = key.publicKey.rawRepresentation
            let jwk: [String: Any] = [
                "kty": "EC", "crv": "P-256", "x": b64(raw.prefix(32)), "y": b64(raw.suffix(32)),
            ]
            var proof = harness.tokenProof()
            proof.header = ["typ": "dpop+jwt", "alg": "ES256", "jwk": jwk]
            let input = b64(Data(jsonText(proof.header).utf8)) + "." + b64(Data(jsonText(proof.claims).utf8))
            let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
            let reply = try await harness.redeem(try await harness.code(), proof: input + "." + b64(signature))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["token_type"] == "DPoP")
            let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(b64(raw.prefix(32)))","y":"\#(b64(raw.suffix(32)))"}"#
            #expect(reply.boundKey == b64(Data(AuthCrypto.SHA256.hash(Array(canonical.utf8)))))
        }
    #endif

    // MARK: Refresh tokens (RFC 9449 §5)

    @Test("a bound refresh token refreshes with a proof of its key, and the new tokens stay bound")
    func refreshBound() async throws {
        let harness = DPoPHarness()
        let first = try await harness.boundTokens()
        let refreshed = try await harness.refresh(first["refresh_token"], proof: harness.tokenProof().jwt)
        #expect(refreshed.status == 200, "\(refreshed.text)")
        #expect(refreshed["token_type"] == "DPoP")
        #expect(refreshed.boundKey == ProofKey.a.thumbprint)
        let again = try await harness.refresh(refreshed["refresh_token"], proof: harness.tokenProof().jwt)
        #expect(again.status == 200)
        #expect(again.boundKey == ProofKey.a.thumbprint)
    }

    @Test("a bound refresh token with another key's proof is invalid_grant; without a proof invalid_dpop_proof")
    func refreshBoundRefusals() async throws {
        let harness = DPoPHarness()
        let refreshToken = try await harness.boundTokens()["refresh_token"]
        let otherKey = try await harness.refresh(refreshToken, proof: harness.tokenProof(key: .b).jwt)
        #expect(otherKey.status == 400)
        #expect(otherKey.error == "invalid_grant")
        #expect(otherKey["error_description"] == "The refresh token is bound to another DPoP key than the proof's.")
        let noProof = try await harness.refresh(refreshToken, proof: nil)
        #expect(noProof.error == "invalid_dpop_proof")
        #expect(noProof["error_description"].contains("bound to a DPoP key"))
        // Neither refusal spent the token: it still refreshes with its key.
        let refreshed = try await harness.refresh(refreshToken, proof: harness.tokenProof().jwt)
        #expect(refreshed.status == 200)
    }

    @Test("a bound refresh token cannot be refreshed once DPoP is off: invalid_grant")
    func refreshBoundWithDPoPOff() async throws {
        let harness = DPoPHarness()
        let refreshToken = try await harness.boundTokens()["refresh_token"]
        harness.tenant.configure { $0.dpop = .off }
        let refused = try await harness.refresh(refreshToken, proof: harness.tokenProof().jwt)
        #expect(refused.error == "invalid_grant")
        #expect(refused["error_description"].contains("takes no DPoP proofs now"))
    }

    @Test("an unbound browser refresh token refreshed with a proof gets bound tokens; required refuses none")
    func refreshUnbound() async throws {
        let harness = DPoPHarness(.offered)
        let bearer = try await harness.redeem(try await harness.code(), proof: nil)
        let bound = try await harness.refresh(bearer["refresh_token"], proof: harness.tokenProof().jwt)
        #expect(bound["token_type"] == "DPoP")
        #expect(bound.boundKey == ProofKey.a.thumbprint)
        // The new refresh token is bound: it now needs the key.
        #expect(try await harness.refresh(bound["refresh_token"], proof: nil).error == "invalid_dpop_proof")

        let other = try await harness.redeem(try await harness.code(), proof: nil)
        harness.tenant.configure { $0.dpop = .required }
        let refused = try await harness.refresh(other["refresh_token"], proof: nil)
        #expect(refused.error == "invalid_dpop_proof")
    }

    @Test("the native API's grants and refreshes never read a proof, even when DPoP is required")
    func nativeIgnoresDPoP() async throws {
        let native = Harness {
            $0.dpop = .required
            $0.dpopNonces = true
        }
        let signedIn = try await native.signIn(Fixture.ada, password: Fixture.adaPassword)
        #expect(signedIn["token_type"] == "Bearer")
        let refreshed = try await native.post(
            .token,
            ["grant_type": "refresh_token", "refresh_token": signedIn["refresh_token"], "scope": Fixture.scopes],
            headers: ["DPoP": "not-a-jwt"])
        #expect(refreshed.status == 200, "\(refreshed.text)")
        #expect(refreshed["token_type"] == "Bearer")
        #expect(refreshed.response.header("DPoP-Nonce") == nil)
    }

    @Test("a bound refresh token stays bound through a snapshot")
    func snapshotKeepsBinding() async throws {
        let harness = DPoPHarness()
        let refreshToken = try await harness.boundTokens()["refresh_token"]
        let snapshot = harness.tenant.snapshot()
        #expect(String(decoding: snapshot, as: UTF8.self).contains(#""dpopKey":"\#(ProofKey.a.thumbprint)""#))
        let restored = DPoPHarness()
        try restored.tenant.restore(from: snapshot)
        #expect(try await restored.refresh(refreshToken, proof: nil).error == "invalid_dpop_proof")
        #expect(
            try await restored.refresh(refreshToken, proof: restored.tokenProof(key: .b).jwt).error == "invalid_grant")
        #expect(try await restored.refresh(refreshToken, proof: restored.tokenProof().jwt).status == 200)
    }
}
