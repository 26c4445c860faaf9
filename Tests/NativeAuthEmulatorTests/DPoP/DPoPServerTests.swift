import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// DPoP over loopback HTTP: proofs name the server's URLs (`http://127.0.0.1:PORT/…`), which is
/// what the tenant compares `htu` with, and the nonce headers cross the wire.
@Suite("DPoP: over HTTP with EmulatorServer", .hangLimit)
struct DPoPServerTests {
    @Test("nonce challenge, retry, bound tokens and the resource over HTTP; /info shows the settings")
    func overHTTP() async throws {
        let served = try ServedTenant {
            $0.dpop = .required
            $0.dpopNonces = true
        }
        let web = WebHarness(harness: served.harness)
        let harness = DPoPHarness(
            web: web, origin: "http://127.0.0.1:\(served.port)", transport: served.transport)

        let info = try await served.control("GET", "/info")
        let settings = try #require(info["settings"] as? [String: Any])
        #expect(settings["dpop"] as? String == "required")
        #expect(settings["dpopNonces"] as? Bool == true)
        #expect(settings["dpopProofLifetime"] as? Double == 60)
        #expect(settings["dpopNonceLifetime"] as? Double == 300)

        let code = try await harness.code()  // the sign-in page in process: the same tenant
        let challenged = try await harness.redeem(code, proof: harness.tokenProof().jwt)
        #expect(challenged.status == 400, "\(challenged.text)")
        #expect(challenged.error == "use_dpop_nonce")
        let nonce = try #require(challenged.response.header("DPoP-Nonce"))

        // A proof for the tenant's own origin is not one for the server's.
        var elsewhere = harness.tokenProof(nonce: nonce)
        elsewhere.claims["htu"] = "https://contoso.ciamlogin.com/\(served.tenant.tenantId)/oauth2/v2.0/token"
        let refused = try await harness.redeem(code, proof: elsewhere.jwt)
        #expect(refused.error == "invalid_dpop_proof")
        #expect(refused["error_description"].contains("http://127.0.0.1:\(served.port)/"))

        let tokens = try await harness.redeem(code, proof: harness.tokenProof(nonce: nonce).jwt)
        #expect(tokens.status == 200, "\(tokens.text)")
        #expect(tokens["token_type"] == "DPoP")
        #expect(tokens.boundKey == ProofKey.a.thumbprint)

        let token = tokens["access_token"]
        let me = try await harness.me(dpop: token, proof: harness.resourceProof(token, nonce: nonce).jwt)
        #expect(me.status == 200, "\(me.text)")
        #expect(me["username"] == Fixture.ada)
        let asBearer = try await harness.me(authorization: "Bearer \(token)")
        #expect(asBearer.status == 401)
        #expect(asBearer.challenge.hasPrefix(#"DPoP error="invalid_token""#))

        let refreshed = try await harness.refresh(tokens["refresh_token"], proof: harness.tokenProof(nonce: nonce).jwt)
        #expect(refreshed.status == 200, "\(refreshed.text)")
        #expect(refreshed.boundKey == ProofKey.a.thumbprint)
        await served.server.stop()
    }
}
