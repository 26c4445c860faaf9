import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A resource's `DPoP` challenges (RFC 9449 §7.1, §9) read by the challenge grammar (RFC 9110
/// §11.6.1): `use_dpop_nonce` and `invalid_dpop_proof` only as a challenge's `error`, never as
/// text inside another parameter; and a claims challenge on the `DPoP` scheme, which a DPoP-bound
/// account's resource answers with.
@Suite("DPoP: a resource's challenges, read by the grammar", .hangLimit)
struct DPoPResourceChallengeTests {
    let harness = PARClient()
    let keys = RecordingKeyProvider()

    static func unauthorized(_ challenge: String, nonce: String? = nil) -> HTTPResponse {
        var headers = ["WWW-Authenticate": challenge]
        headers["DPoP-Nonce"] = nonce
        return HTTPResponse(statusCode: 401, headers: headers)
    }

    @Test func aNonceChallengeIsTheErrorOfAChallenge() {
        let nonce = { DPoPSigner.isResourceNonceChallenge(Self.unauthorized($0)) }
        #expect(
            nonce(#"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#))
        #expect(nonce(#"Bearer realm="api", DPoP algs="ES256", error=USE_DPOP_NONCE"#))
        #expect(
            !DPoPSigner.isResourceNonceChallenge(
                HTTPResponse(statusCode: 400, headers: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#])))
        #expect(!nonce(#"DPoP error="invalid_dpop_proof", error_description="use_dpop_nonce was expected""#))
        #expect(!nonce(#"DPoP error="insufficient_scope", error_description="error=use_dpop_nonce""#))
        #expect(!nonce(#"Bearer realm="use_dpop_nonce""#))
        #expect(!nonce(#"Basic error="use_dpop_nonce", DPoP algs="ES256""#))
    }

    @Test func aProofRefusalIsTheErrorOfAChallenge() {
        let refusal = { DPoPSigner.isResourceProofRefusal(Self.unauthorized($0)) }
        #expect(refusal(#"DPoP error="invalid_dpop_proof""#))
        #expect(refusal(#"DPoP algs="ES256 RS256", error=Invalid_DPoP_Proof, error_description="iat""#))
        #expect(!refusal(#"DPoP error="use_dpop_nonce", error_description="not an invalid_dpop_proof""#))
        #expect(!refusal(#"DPoP realm="invalid_dpop_proof""#))
        #expect(!refusal(#"Basic error="invalid_dpop_proof", DPoP algs="ES256""#))
        // glewlwyd's form, a JSON body, is read as before.
        #expect(
            DPoPSigner.isResourceProofRefusal(
                HTTPResponse(statusCode: 401, body: Data(#"{"error":"invalid_dpop_proof"}"#.utf8))))
    }

    func boundAccount() async throws -> UserAccountResult {
        let provider = DPoPClientTests.provider()
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = harness.clock
        configuration.dpop = DPoPConfiguration(keyProvider: keys)
        let client = try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: harness.store, configuration: configuration)
        return try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
    }

    static let orders = HTTPRequest(method: "GET", url: URL(string: "https://api.example.com/orders")!)

    /// A nonce named in a description is no nonce challenge: the answer comes back as it came,
    /// and the request is not sent again with the nonce.
    @Test func sendDoesNotAnswerANonceNamedInADescription() async throws {
        let account = try await boundAccount()
        let api = ScriptedTransport()
        api.then(
            "orders",
            .response(
                Self.unauthorized(
                    #"DPoP error="insufficient_scope", error_description="no use_dpop_nonce here""#, nonce: "n-1")))
        let response = try await account.send(Self.orders, using: api)
        #expect(response.statusCode == 401)
        #expect(api.requests.count == 1)
    }

    @Test func sendThrowsTheClaimsOfADPoPChallenge() async throws {
        let account = try await boundAccount()
        let claims = #"{"access_token":{"acrs":{"essential":true,"value":"c1"}}}"#
        let api = ScriptedTransport()
        api.then(
            "orders",
            .response(
                Self.unauthorized(
                    #"DPoP error="insufficient_claims", claims="\#(Data(claims.utf8).base64EncodedString())", algs="ES256""#
                )))
        let error = try await #require(throws: AuthorizedRequestError.self) {
            try await account.send(Self.orders, using: api)
        }
        #expect(error.isInteractionRequired && !error.isStepUpRequired)
        #expect(error.claims == claims)
        #expect(api.requests.count == 1, "never retried")
        #expect(api.requests.first?.header("Authorization") == "DPoP bound-access")
    }
}
