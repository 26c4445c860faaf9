import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

/// `dpop_jkt` (RFC 9449 §10): an authorization code bound to a key at the authorization endpoint.
@Suite("DPoP: codes bound with dpop_jkt", .hangLimit)
struct DPoPAuthorizationCodeTests {
    @Test("a code asked for with dpop_jkt is redeemed with a proof of that key only")
    func boundCode() async throws {
        let harness = DPoPHarness()
        let code = try #require(try await harness.web.signIn(["dpop_jkt": ProofKey.a.thumbprint])["code"])
        let noProof = try await harness.redeem(code, proof: nil)
        #expect(noProof.status == 400)
        #expect(noProof.error == "invalid_dpop_proof")
        #expect(noProof["error_description"].contains("dpop_jkt"))
        let otherKey = try await harness.redeem(code, proof: harness.tokenProof(key: .b).jwt)
        #expect(otherKey.error == "invalid_grant")
        #expect(
            otherKey["error_description"]
                == "The authorization code is bound to another DPoP key (dpop_jkt) than the proof's.")
        // Neither refusal spent the code.
        let redeemed = try await harness.redeem(code, proof: harness.tokenProof().jwt)
        #expect(redeemed.status == 200, "\(redeemed.text)")
        #expect(redeemed.boundKey == ProofKey.a.thumbprint)
    }

    @Test("a dpop_jkt that is not a SHA-256 thumbprint goes back to the app as invalid_request")
    func malformed() async throws {
        let harness = DPoPHarness()
        let response = try await harness.web.get(harness.web.authorizeURL(["dpop_jkt": "not-a-thumbprint"]))
        let callback = try harness.web.callback(response)
        #expect(callback["error"] == "invalid_request")
        #expect(callback["error_description"]?.contains("dpop_jkt") == true)
        #expect(callback["state"] == "state-1")
    }

    @Test("a pushed request's dpop_jkt binds the code too")
    func pushed() async throws {
        let harness = DPoPHarness { $0.pushedAuthorizationRequests = .required }
        let web = harness.web
        let push = try await web.push(web.pushedForm(["dpop_jkt": ProofKey.a.thumbprint]))
        #expect(push.status == 201, "\(push.text)")
        let page = try await web.get(web.pushedAuthorizeURL(push["request_uri"]))
        let code = try #require(
            try web.callback(try await web.submit(page, [("password", Fixture.adaPassword), ("action", "signin")]))[
                "code"])
        #expect(try await harness.redeem(code, proof: harness.tokenProof(key: .b).jwt).error == "invalid_grant")
        #expect(try await harness.redeem(code, proof: harness.tokenProof().jwt).status == 200)
    }

    @Test("off: dpop_jkt is ignored like any parameter the tenant does not know")
    func off() async throws {
        let harness = DPoPHarness(.off)
        let code = try #require(try await harness.web.signIn(["dpop_jkt": "not-a-thumbprint"])["code"])
        let redeemed = try await harness.redeem(code, proof: nil)
        #expect(redeemed.status == 200)
        #expect(redeemed["token_type"] == "Bearer")
    }
}
