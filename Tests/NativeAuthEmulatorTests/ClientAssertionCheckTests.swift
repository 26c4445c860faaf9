import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth
@testable import NativeAuthEmulator

/// Client assertions made by hand (not by the SDK), signed with the published test key.
struct AssertionMaker {
    static let key = try? RSAPrivateKey(pkcs1DER: WebTestSigner.pkcs1DER)
    static let publicJWK = [
        "kty": "RSA", "n": Encoding.base64URL(Data(WebTestSigner.modulus)), "e": "AQAB",
    ]

    let web: WebHarness
    var now: TimeInterval { web.clock.now().timeIntervalSince1970.rounded(.down) }

    /// The claims a good assertion has, for the PAR endpoint (its `aud` the issuer).
    func claims(jti: String = UUID().uuidString) -> [String: Any] {
        [
            "iss": web.tenant.clientId, "sub": web.tenant.clientId, "aud": web.tenant.issuerIdentifier,
            "jti": jti, "iat": now, "exp": now + 60,
        ]
    }

    /// A compact JWS of `claims` under `header`, PS256-signed unless `signature` says otherwise.
    func jws(
        _ claims: [String: Any], header: [String: Any] = ["alg": "PS256", "typ": "JWT"],
        signature: ((String) throws -> [UInt8])? = nil
    ) throws -> String {
        func part(_ object: [String: Any]) throws -> String {
            Encoding.base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let input = try part(header) + "." + part(claims)
        let key = try #require(Self.key)
        let bytes: [UInt8]
        if let signature {
            bytes = try signature(input)
        } else {
            bytes = try key.signPSSSHA256(Array(input.utf8))
        }
        return input + "." + Encoding.base64URL(Data(bytes))
    }

    /// Pushes the standard authorization request with `assertion` (and the JWT assertion type
    /// unless `type` says otherwise).
    func push(_ assertion: String?, type: String? = TenantState.clientAssertionType) async throws -> Reply {
        var form = web.pushedForm()
        if let type { form += "&" + formEncode([("client_assertion_type", type)]) }
        if let assertion { form += "&" + formEncode([("client_assertion", assertion)]) }
        return try await web.push(form)
    }
}

@Suite("private_key_jwt at the tenant: the checks of RFC 7523 §3", .hangLimit, .cpuHeavy, .serialized)
struct ClientAssertionCheckTests {
    let maker = AssertionMaker(
        web: WebHarness {
            $0.pushedAuthorizationRequests = .offered
            $0.clientAssertionKey = AssertionMaker.publicJWK
        })

    func refused(_ reply: Reply, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 401, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.error == "invalid_client", sourceLocation: sourceLocation)
        #expect(reply["error_description"].contains(reason), "\(reply.text)", sourceLocation: sourceLocation)
    }

    @Test func aGoodAssertionIsTakenOnceAndItsDescriptionNeverRepeatsIt() async throws {
        let assertion = try maker.jws(maker.claims(jti: "once"))
        #expect(try await maker.push(assertion).status == 201)
        let again = try await maker.push(assertion)
        refused(again, "jti was used before")
        for part in assertion.split(separator: ".") { #expect(!again.text.contains(part)) }
        // A new jti is taken; so is the old one once its exp has passed.
        #expect(try await maker.push(try maker.jws(maker.claims())).status == 201)
        maker.web.clock.advance(by: 120)
        #expect(try await maker.push(try maker.jws(maker.claims(jti: "once"))).status == 201)
    }

    @Test func theAudienceMayBeTheIssuerTheTokenEndpointOrThisEndpointAsAStringOrInAnArray() async throws {
        let base = "https://contoso.ciamlogin.com/\(maker.web.tenant.tenantId)/oauth2/v2.0/"
        for audience: Any in [
            maker.web.tenant.issuerIdentifier, base + "token", base + "par",
            ["https://elsewhere.example.com", maker.web.tenant.issuerIdentifier],
        ] {
            var claims = maker.claims()
            claims["aud"] = audience
            #expect(try await maker.push(try maker.jws(claims)).status == 201, "\(audience)")
        }
        for audience: Any in ["https://elsewhere.example.com", base + "authorize", [String](), 7] {
            var claims = maker.claims()
            claims["aud"] = audience
            refused(try await maker.push(try maker.jws(claims)), "aud")
        }
    }

    @Test func theClaimsAreChecked() async throws {
        let now = maker.now
        let cases: [(String, Any?, String)] = [
            ("iss", "someone-else", "iss and sub"), ("sub", nil, "iss and sub"),
            ("exp", now - 10, "expired"), ("exp", now + 7_200, "more than 3600 seconds away"), ("exp", "soon", "exp"),
            ("iat", now + 60, "iat is not a time in the past"), ("nbf", now + 60, "nbf is not a time in the past"),
            ("jti", nil, "no jti"), ("jti", "", "no jti"),
        ]
        for (claim, value, reason) in cases {
            var claims = maker.claims()
            claims[claim] = value
            refused(try await maker.push(try maker.jws(claims)), reason)
        }
    }

    @Test func theSignatureAndTheAlgorithmAreChecked() async throws {
        let claims = maker.claims()
        refused(try await maker.push(try maker.jws(claims, header: ["alg": "none"]) { _ in [] }), "not a signed JWT")
        refused(
            try await maker.push(
                try maker.jws(claims, header: ["alg": "HS256"]) { _ in Array(repeating: 1, count: 32) }),
            "alg is not one the tenant verifies")
        refused(
            try await maker.push(
                try maker.jws(claims, header: ["alg": "ES256"]) { _ in Array(repeating: 1, count: 64) }),
            "registered key is not a key")
        refused(
            try await maker.push(try maker.jws(claims, header: ["alg": "PS256", "crit": ["exp"]])), "crit header")
        let key = try #require(AssertionMaker.key)
        let rs256 = try maker.jws(claims, header: ["alg": "RS256"]) { try key.signSHA256(Array($0.utf8)) }
        #expect(try await maker.push(rs256).status == 201, "RS256 with the same key")
        let other = try maker.jws(maker.claims(), header: ["alg": "RS256"]) { try key.signPSSSHA256(Array($0.utf8)) }
        refused(try await maker.push(other), "signature does not verify")
    }

    @Test func aRequestWithoutAnAssertionOrWithAHostileOneIsRefused() async throws {
        refused(try await maker.push(nil, type: nil), "private_key_jwt")
        refused(try await maker.push(try maker.jws(maker.claims()), type: "urn:other"), "private_key_jwt")
        refused(try await maker.push(nil), "no client_assertion")
        refused(try await maker.push(String(repeating: "a", count: 100_000)), "longer than")
        refused(try await maker.push("a.b"), "not a signed JWT")
        refused(try await maker.push("!!.??.**"), "not a signed JWT")
    }

    @Test func withoutTheSettingNothingIsChecked() async throws {
        let open = AssertionMaker(web: WebHarness { $0.pushedAuthorizationRequests = .offered })
        #expect(try await open.push(nil, type: nil).status == 201)
        #expect(try await open.push("garbage").status == 201)
    }
}
