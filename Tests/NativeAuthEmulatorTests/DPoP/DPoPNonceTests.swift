import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

/// Server nonces (RFC 9449 §8 at the token endpoint, §9 at the resource): the challenge, the retry,
/// and the schedule on the tenant's manual clock.
@Suite("DPoP: server nonces", .hangLimit)
struct DPoPNonceTests {
    /// `1*NQCHAR` (§8.1).
    static func isNonce(_ value: String?) -> Bool {
        guard let value, !value.isEmpty else { return false }
        return value.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    @Test("token endpoint: a proof without the nonce gets 400 use_dpop_nonce and DPoP-Nonce; the retry succeeds")
    func tokenChallengeAndRetry() async throws {
        let harness = DPoPHarness { $0.dpopNonces = true }
        let code = try await harness.code()
        let challenged = try await harness.redeem(code, proof: harness.tokenProof().jwt)
        #expect(challenged.status == 400)
        #expect(challenged.error == "use_dpop_nonce")
        #expect(challenged["error_description"] == "Authorization server requires nonce in DPoP proof.")
        let nonce = try #require(challenged.response.header("DPoP-Nonce"))
        #expect(Self.isNonce(nonce))
        let retried = try await harness.redeem(code, proof: harness.tokenProof(nonce: nonce).jwt)
        #expect(retried.status == 200, "\(retried.text)")
        #expect(retried["token_type"] == "DPoP")
        // §8.2: the answer to an accepted proof carries the nonce too.
        #expect(retried.response.header("DPoP-Nonce") == nonce)
    }

    @Test("token endpoint: a wrong nonce is use_dpop_nonce too")
    func wrongNonce() async throws {
        let harness = DPoPHarness { $0.dpopNonces = true }
        let refused = try await harness.redeem(try await harness.code(), proof: harness.tokenProof(nonce: "guess").jwt)
        #expect(refused.error == "use_dpop_nonce")
        #expect(Self.isNonce(refused.response.header("DPoP-Nonce")))
    }

    @Test("a request without a proof is not challenged for a nonce (offered: Bearer tokens)")
    func noProofNoNonce() async throws {
        let harness = DPoPHarness { $0.dpopNonces = true }
        let reply = try await harness.redeem(try await harness.code(), proof: nil)
        #expect(reply["token_type"] == "Bearer")
        #expect(reply.response.header("DPoP-Nonce") == nil)
    }

    @Test("nonces rotate on the tenant's clock; the previous one is accepted for one more period")
    func rotation() async throws {
        let harness = DPoPHarness {
            $0.dpopNonces = true
            $0.dpopNonceLifetime = 100
        }
        let first = try #require(
            try await harness.redeem(try await harness.code(), proof: harness.tokenProof().jwt)
                .response.header("DPoP-Nonce"))
        harness.clock.advance(by: 50)
        let same = try await harness.redeem(try await harness.code(), proof: harness.tokenProof(nonce: first).jwt)
        #expect(same.status == 200)
        #expect(same.response.header("DPoP-Nonce") == first)

        harness.clock.advance(by: 100)  // the next period: a new nonce, the first still accepted
        let previous = try await harness.redeem(try await harness.code(), proof: harness.tokenProof(nonce: first).jwt)
        #expect(previous.status == 200, "\(previous.text)")
        let second = try #require(previous.response.header("DPoP-Nonce"))
        #expect(second != first)

        harness.clock.advance(by: 100)  // two periods on: the first is refused, the second accepted
        let stale = try await harness.redeem(try await harness.code(), proof: harness.tokenProof(nonce: first).jwt)
        #expect(stale.error == "use_dpop_nonce")
        let third = try #require(stale.response.header("DPoP-Nonce"))
        #expect(third != second)
        let accepted = try await harness.redeem(try await harness.code(), proof: harness.tokenProof(nonce: second).jwt)
        #expect(accepted.status == 200)
    }

    @Test("a clock that jumps further than a period leaves only the new nonce")
    func jump() async throws {
        let harness = DPoPHarness { $0.dpopNonces = true }
        let first = try #require(
            try await harness.redeem(try await harness.code(), proof: harness.tokenProof().jwt)
                .response.header("DPoP-Nonce"))
        harness.clock.advance(by: 3 * 300)
        let refused = try await harness.redeem(try await harness.code(), proof: harness.tokenProof(nonce: first).jwt)
        #expect(refused.error == "use_dpop_nonce")
    }

    @Test("resource: a proof without the nonce gets 401 WWW-Authenticate DPoP error=use_dpop_nonce; the retry succeeds")
    func resourceChallengeAndRetry() async throws {
        let harness = DPoPHarness { $0.dpopNonces = true }
        let code = try await harness.code()
        let nonce = try #require(
            try await harness.redeem(code, proof: harness.tokenProof().jwt).response.header("DPoP-Nonce"))
        let tokens = try await harness.redeem(code, proof: harness.tokenProof(nonce: nonce).jwt)
        let token = tokens["access_token"]
        harness.clock.advance(by: 300)  // a new nonce
        let challenged = try await harness.me(dpop: token, proof: harness.resourceProof(token, nonce: nonce).jwt)
        #expect(challenged.status == 200, "the previous nonce is still accepted: \(challenged.text)")
        let fresh = try #require(challenged.response.header("DPoP-Nonce"))
        let withoutNonce = try await harness.me(dpop: token, proof: harness.resourceProof(token).jwt)
        #expect(withoutNonce.status == 401)
        #expect(withoutNonce.error == "use_dpop_nonce")
        #expect(withoutNonce.challenge.hasPrefix(#"DPoP error="use_dpop_nonce", error_description="#))
        #expect(withoutNonce.response.header("DPoP-Nonce") == fresh)
        let retried = try await harness.me(dpop: token, proof: harness.resourceProof(token, nonce: fresh).jwt)
        #expect(retried.status == 200)
        #expect(retried["username"] == Fixture.ada)
    }

    @Test("nonces are not demanded while DPoP is off")
    func offDemandsNone() async throws {
        let harness = DPoPHarness(.off) { $0.dpopNonces = true }
        let document = try Reply(try await harness.web.get(harness.tenant.url(for: .openIDConfiguration)))
        #expect(document.json["dpop_signing_alg_values_supported"] == nil)
        let reply = try await harness.redeem(try await harness.code(), proof: harness.tokenProof().jwt)
        #expect(reply.status == 200)
        #expect(reply.response.header("DPoP-Nonce") == nil)
    }
}
