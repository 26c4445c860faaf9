import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A discovery document for `issuer`, with members replaced or removed (`nil`) by `changes`.
func discoveryDocument(issuer: String, base: String? = nil, _ changes: [String: String?] = [:]) -> String {
    let root = base ?? issuer
    var members: [String: String] = [
        "issuer": "\"\(issuer)\"",
        "authorization_endpoint": "\"\(root)/authorize\"",
        "token_endpoint": "\"\(root)/token\"",
        "jwks_uri": "\"\(root)/keys\"",
        "end_session_endpoint": "\"\(root)/logout\"",
        "code_challenge_methods_supported": "[\"S256\"]",
        "grant_types_supported": "[\"authorization_code\",\"refresh_token\"]",
        "id_token_signing_alg_values_supported": "[\"RS256\"]",
    ]
    for (key, value) in changes { members[key] = value }
    return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
}

func url(_ text: String) -> URL {
    guard let url = URL(string: text) else {
        Issue.record("bad test URL \(text)")
        return URL(fileURLWithPath: "/")
    }
    return url
}

@Suite("Provider discovery: fetching, issuer checks, endpoint security, malformed documents", .hangLimit)
struct ProviderDiscoveryTests {
    let issuer = "https://idp.example.com/tenant"

    func discover(_ transport: ScriptedTransport, issuer: String? = nil) async throws(WebSignInError)
        -> ProviderMetadata
    {
        let discovery = try ProviderDiscovery(issuer: url(issuer ?? self.issuer), transport: transport)
        return try await discovery.metadata()
    }

    /// The error of discovering `body`; a document of another issuer falls back to RFC 8414,
    /// which answers 404 here.
    func discoveryError(_ body: String, status: Int = 200, issuer: String? = nil) async -> WebSignInError? {
        let transport = ScriptedTransport([(".well-known/openid-configuration", .json(status, body))])
        let fallback = ProviderDiscovery.authorizationServerURL(for: url(issuer ?? self.issuer))
        if let last = fallback?.lastPathComponent { transport.then(last, .json(404, "{}")) }
        do {
            _ = try await discover(transport, issuer: issuer)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryField() async throws {
        let body = discoveryDocument(
            issuer: issuer,
            [
                "authorization_response_iss_parameter_supported": "true",
                "revocation_endpoint": "\"\(issuer)/revoke\"", "userinfo_endpoint": "\"\(issuer)/me\"",
                "device_authorization_endpoint": "\"\(issuer)/device\"",
                "registration_endpoint": "\"\(issuer)/register\"", "x_vendor": "{\"a\":1}",
            ])
        let transport = ScriptedTransport([(".well-known/openid-configuration", .json(200, body))])
        let metadata = try await discover(transport)
        #expect(transport.requests.first?.url.absoluteString == issuer + "/.well-known/openid-configuration")
        #expect(transport.requests.first?.method == "GET")
        #expect(metadata.issuer == issuer)
        #expect(metadata.authorizationEndpoint?.absoluteString == issuer + "/authorize")
        #expect(metadata.tokenEndpoint.absoluteString == issuer + "/token")
        #expect(metadata.jwksURI?.absoluteString == issuer + "/keys")
        #expect(metadata.endSessionEndpoint?.absoluteString == issuer + "/logout")
        #expect(metadata.revocationEndpoint?.absoluteString == issuer + "/revoke")
        #expect(metadata.userinfoEndpoint?.absoluteString == issuer + "/me")
        #expect(metadata.deviceAuthorizationEndpoint?.absoluteString == issuer + "/device")
        #expect(metadata.registrationEndpoint?.absoluteString == issuer + "/register")
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.grantTypesSupported == ["authorization_code", "refresh_token"])
        #expect(metadata.idTokenSigningAlgValuesSupported == ["RS256"])
        #expect(metadata.scopesSupported == nil)
        #expect(metadata.authorizationResponseIssParameterSupported)
        #expect(metadata.document["x_vendor"]?["a"]?.intValue == 1)
    }

    @Test func configuredIssuerWithTrailingSlashMatchesOneWithout() async throws {
        let transport = ScriptedTransport([
            (".well-known/openid-configuration", .json(200, discoveryDocument(issuer: issuer)))
        ])
        let metadata = try await discover(transport, issuer: issuer + "/")
        #expect(transport.requests.first?.url.absoluteString == issuer + "/.well-known/openid-configuration")
        #expect(metadata.issuer == issuer, "the document's own value is kept")
    }

    @Test func issuerMismatchIsRefused() async {
        for found in [
            "https://evil.example.com/tenant", issuer + "/v2.0", "https://IDP.example.com/tenant", issuer + "//",
        ] {
            let error = await discoveryError(discoveryDocument(issuer: found, base: issuer))
            #expect(error?.isDiscoveryFailed == true, "\(found)")
            #expect(error?.code == .discoveryFailed(.issuerMismatch(expected: issuer, found: found)))
        }
    }

    @Test func ciamTenantIssuerIsAcceptedForCiamloginAuthoritiesOnly() async throws {
        let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
        let tenantIssuer = "https://\(tenant).ciamlogin.com/\(tenant)/v2.0"
        let authority = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com/v2.0"
        let transport = ScriptedTransport([
            (".well-known/openid-configuration", .json(200, discoveryDocument(issuer: tenantIssuer, base: authority)))
        ])
        let metadata = try await discover(transport, issuer: authority)
        #expect(metadata.issuer == tenantIssuer)

        // The same document for an authority that is not ciamlogin.com is refused.
        let other = await discoveryError(
            discoveryDocument(issuer: tenantIssuer, base: issuer), issuer: "https://login.example.com/contoso")
        #expect(other?.isDiscoveryFailed == true)

        // Only the exact tenant form: same GUID twice, v2.0, https.
        for bad in [
            "https://\(tenant).ciamlogin.com/00000000-0000-0000-0000-000000000000/v2.0",
            "https://\(tenant).ciamlogin.com/\(tenant)/v1.0", "http://\(tenant).ciamlogin.com/\(tenant)/v2.0",
            "https://contoso.ciamlogin.com/contoso/v2.0", "https://\(tenant).ciamlogin.com.evil.com/\(tenant)/v2.0",
            "https://\(tenant).ciamlogin.com/\(tenant)/v2.0?x=1",
        ] {
            let error = await discoveryError(discoveryDocument(issuer: bad, base: authority), issuer: authority)
            #expect(error?.isDiscoveryFailed == true, "\(bad)")
        }
    }

    @Test func ciamTenantIssuerIsAcceptedForLoopbackHTTPAuthorities() async throws {
        let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"
        let tenantIssuer = "https://\(tenant).ciamlogin.com/\(tenant)/v2.0"
        for authority in [
            "http://127.0.0.1:8123/contoso.onmicrosoft.com/v2.0", "http://localhost:8123/contoso/v2.0",
            "http://[::1]:8123/contoso/v2.0",
        ] {
            let transport = ScriptedTransport([
                (
                    ".well-known/openid-configuration",
                    .json(200, discoveryDocument(issuer: tenantIssuer, base: authority))
                )
            ])
            let metadata = try await discover(transport, issuer: authority)
            #expect(metadata.issuer == tenantIssuer, "\(authority)")
        }
        let loopback = "http://127.0.0.1:8123/contoso.onmicrosoft.com/v2.0"
        // Only the CIAM tenant form: any other issuer is still refused for a loopback authority.
        for bad in [
            "https://evil.example.com/tenant", "https://contoso.ciamlogin.com/contoso/v2.0",
            "http://\(tenant).ciamlogin.com/\(tenant)/v2.0", "http://127.0.0.1:9999/contoso.onmicrosoft.com/v2.0",
        ] {
            let error = await discoveryError(discoveryDocument(issuer: bad, base: loopback), issuer: loopback)
            #expect(error?.isDiscoveryFailed == true, "\(bad)")
        }
        // A non-loopback http issuer is refused before any request, and an https non-ciamlogin one
        // still refuses the tenant form.
        #expect(
            !ProviderDiscovery.issuerMatches(configured: URL(string: "http://10.0.0.1/x/v2.0")!, found: tenantIssuer))
        #expect(
            !ProviderDiscovery.issuerMatches(configured: URL(string: "https://127.0.0.1/x/v2.0")!, found: tenantIssuer))
    }

    @Test func httpIsRefusedExceptOnLoopback() async throws {
        let plain = await discoveryError(
            discoveryDocument(issuer: issuer, ["token_endpoint": "\"http://idp.example.com/token\""]))
        #expect(plain?.code == .discoveryFailed(.insecureURL("token_endpoint")))
        let optional = await discoveryError(
            discoveryDocument(issuer: issuer, ["end_session_endpoint": "\"http://idp.example.com/logout\""]))
        #expect(optional?.code == .discoveryFailed(.insecureURL("end_session_endpoint")))
        let otherScheme = await discoveryError(
            discoveryDocument(issuer: issuer, ["authorization_endpoint": "\"ftp://idp.example.com/a\""]))
        #expect(otherScheme?.code == .discoveryFailed(.insecureURL("authorization_endpoint")))
        let fragment = await discoveryError(
            discoveryDocument(issuer: issuer, ["authorization_endpoint": "\"https://idp.example.com/a#x\""]))
        #expect(fragment?.code == .discoveryFailed(.invalidURL("authorization_endpoint")))

        for loopback in ["http://127.0.0.1:4593/oidc", "http://localhost:8080/oidc", "http://[::1]:9000/oidc"] {
            let transport = ScriptedTransport([
                (".well-known/openid-configuration", .json(200, discoveryDocument(issuer: loopback)))
            ])
            let metadata = try await discover(transport, issuer: loopback)
            #expect(metadata.tokenEndpoint.absoluteString == loopback + "/token")
        }
        #expect(throws: WebSignInError.self) {
            try ProviderDiscovery(issuer: url("http://idp.example.com/tenant"), transport: ScriptedTransport())
        }
        #expect(throws: WebSignInError.self) {
            try ProviderDiscovery(issuer: url("https://idp.example.com/tenant?x=1"), transport: ScriptedTransport())
        }
    }

    @Test func fallsBackToRFC8414WhenTheOpenIDDocumentIsMissing() async throws {
        let transport = ScriptedTransport([
            (".well-known/openid-configuration", .json(404, "{}")),
            (
                ".well-known/oauth-authorization-server/tenant",
                .json(200, discoveryDocument(issuer: issuer, ["jwks_uri": nil]))
            ),
        ])
        let metadata = try await discover(transport)
        #expect(
            transport.requests.map(\.url.absoluteString) == [
                issuer + "/.well-known/openid-configuration",
                "https://idp.example.com/.well-known/oauth-authorization-server/tenant",
            ])
        #expect(metadata.jwksURI == nil, "RFC 8414 documents need no jwks_uri")
        #expect(
            ProviderDiscovery.authorizationServerURL(for: url("https://idp.example.com"))?.absoluteString
                == "https://idp.example.com/.well-known/oauth-authorization-server")
        #expect(
            ProviderDiscovery.authorizationServerURL(for: url("https://idp.example.com:8443/a/b/"))?.absoluteString
                == "https://idp.example.com:8443/.well-known/oauth-authorization-server/a/b")
    }

    @Test func anRFC8414DocumentMayLeaveOutTheAuthorizationEndpointOnlyWithAChallengeEndpoint() async throws {
        let challenge = "\"https://idp.example.com/tenant/challenge\""
        func fallback(_ changes: [String: String?]) -> ScriptedTransport {
            ScriptedTransport([
                (".well-known/openid-configuration", .json(404, "{}")),
                (
                    ".well-known/oauth-authorization-server/tenant",
                    .json(200, discoveryDocument(issuer: issuer, changes))
                ),
            ])
        }
        let firstPartyOnly = try await discover(
            fallback(["authorization_endpoint": nil, "authorization_challenge_endpoint": challenge]))
        #expect(firstPartyOnly.authorizationEndpoint == nil)
        #expect(firstPartyOnly.authorizationChallengeEndpoint?.absoluteString == issuer + "/challenge")

        let neither = try await #require(throws: WebSignInError.self) {
            try await discover(fallback(["authorization_endpoint": nil]))
        }
        #expect(neither.code == .discoveryFailed(.missingField("authorization_endpoint")))
        // OpenID Connect Discovery §3 requires it in the OpenID document, whatever else it names.
        let openID = await discoveryError(
            discoveryDocument(
                issuer: issuer, ["authorization_endpoint": nil, "authorization_challenge_endpoint": challenge]))
        #expect(openID?.code == .discoveryFailed(.missingField("authorization_endpoint")))
        let insecure = try await #require(throws: WebSignInError.self) {
            try await discover(
                fallback([
                    "authorization_endpoint": nil,
                    "authorization_challenge_endpoint": "\"http://idp.example.com/tenant/challenge\"",
                ]))
        }
        #expect(insecure.code == .discoveryFailed(.insecureURL("authorization_challenge_endpoint")))
    }

    @Test func anOpenIDDocumentOfAnotherIssuerFallsBackToRFC8414() async throws {
        let root = "https://idp.example.com"
        let other = discoveryDocument(issuer: "https://idp.example.com/other")
        let transport = ScriptedTransport([
            (".well-known/openid-configuration", .json(200, other)),
            (".well-known/oauth-authorization-server", .json(200, discoveryDocument(issuer: root, ["jwks_uri": nil]))),
        ])
        let metadata = try await discover(transport, issuer: root)
        #expect(metadata.issuer == root)
        #expect(
            transport.requests.map(\.url.absoluteString) == [
                root + "/.well-known/openid-configuration", root + "/.well-known/oauth-authorization-server",
            ])

        // No RFC 8414 document either: the mismatch is what is reported; one of another issuer too.
        for answer: ScriptedTransport.Answer in [.json(404, "{}"), .json(200, other)] {
            let missing = ScriptedTransport([
                (".well-known/openid-configuration", .json(200, other)),
                (".well-known/oauth-authorization-server", answer),
            ])
            let error = try await #require(throws: WebSignInError.self) { try await discover(missing, issuer: root) }
            #expect(
                error.code
                    == .discoveryFailed(.issuerMismatch(expected: root, found: "https://idp.example.com/other")))
        }
        // Any other fault of the OpenID document ends discovery there, as before.
        let broken = ScriptedTransport([
            (".well-known/openid-configuration", .json(200, discoveryDocument(issuer: root, ["jwks_uri": nil])))
        ])
        let error = try await #require(throws: WebSignInError.self) { try await discover(broken, issuer: root) }
        #expect(error.code == .discoveryFailed(.missingField("jwks_uri")))
        #expect(broken.requests.count == 1)
    }

    @Test func noFallbackOnServerErrorsOrNetworkFailures() async {
        let serverError = await discoveryError("oops", status: 503)
        #expect(serverError?.code == .discoveryFailed(.status(503)))
        #expect(serverError?.httpStatusCode == 503)

        let transport = ScriptedTransport([(".well-known/openid-configuration", .failure(.notConnectedToInternet))])
        do {
            _ = try await discover(transport)
            Issue.record("expected a failure")
        } catch {
            #expect(error.isDiscoveryFailed && error.isNetworkError)
            #expect((error.underlyingError as? URLError)?.code == .notConnectedToInternet)
        }

        let bothMissing = ScriptedTransport([
            (".well-known/openid-configuration", .json(404, "{}")),
            (".well-known/oauth-authorization-server/tenant", .json(404, "{}")),
        ])
        await #expect(throws: WebSignInError.self) { try await discover(bothMissing) }
    }

    @Test func malformedDocumentsAreTypedErrors() async {
        let cases: [(String, WebSignInError.DiscoveryProblem)] = [
            ("<html>not json</html>", .notJSON),
            ("", .notJSON),
            ("[1,2]", .notAnObject),
            (discoveryDocument(issuer: issuer, ["issuer": nil]), .missingField("issuer")),
            (discoveryDocument(issuer: issuer, ["issuer": "42"]), .wrongType("issuer")),
            (
                discoveryDocument(issuer: issuer, ["authorization_endpoint": nil]),
                .missingField("authorization_endpoint")
            ),
            (discoveryDocument(issuer: issuer, ["token_endpoint": "null"]), .missingField("token_endpoint")),
            (discoveryDocument(issuer: issuer, ["jwks_uri": nil]), .missingField("jwks_uri")),
            (discoveryDocument(issuer: issuer, ["token_endpoint": "[\"https://a\"]"]), .wrongType("token_endpoint")),
            (discoveryDocument(issuer: issuer, ["token_endpoint": "\"not a url\""]), .invalidURL("token_endpoint")),
            (
                discoveryDocument(issuer: issuer, ["token_endpoint": "\"/relative/token\""]),
                .invalidURL("token_endpoint")
            ),
            (
                discoveryDocument(issuer: issuer, ["grant_types_supported": "\"authorization_code\""]),
                .wrongType("grant_types_supported")
            ),
            (
                discoveryDocument(issuer: issuer, ["code_challenge_methods_supported": "[\"S256\",1]"]),
                .wrongType("code_challenge_methods_supported")
            ),
            (
                discoveryDocument(issuer: issuer, ["authorization_response_iss_parameter_supported": "\"yes\""]),
                .wrongType("authorization_response_iss_parameter_supported")
            ),
            ("{\"issuer\":" + String(repeating: "[", count: 500) + "}", .notJSON),
        ]
        for (body, problem) in cases {
            let error = await discoveryError(body)
            #expect(error?.code == .discoveryFailed(problem), "\(body.prefix(80))")
        }
        let padding = String(repeating: " ", count: RequestPipeline.maximumBodySize)
        let large = await discoveryError(discoveryDocument(issuer: issuer) + padding)
        #expect(large?.code == .discoveryFailed(.tooLarge))
    }

    @Test func metadataIsKeptAndConcurrentFirstCallsShareOneFetch() async throws {
        let scripted = ScriptedTransport([
            (".well-known/openid-configuration", .json(200, discoveryDocument(issuer: issuer)))
        ])
        let gated = GatedTransport(scripted)
        gated.close()
        let discovery = try ProviderDiscovery(issuer: url(issuer), transport: gated)
        async let first = discovery.metadata()
        async let second = discovery.metadata()
        await gated.waitUntilHeld(1)
        gated.open()
        let (a, b) = try await (first, second)
        #expect(a == b)
        let third = try await discovery.metadata()
        #expect(third == a)
        #expect(scripted.requests.count == 1)
    }

    @Test func aFailureIsNotKept() async throws {
        let transport = ScriptedTransport([
            (".well-known/openid-configuration", .failure(.timedOut)),
            (".well-known/openid-configuration", .json(200, discoveryDocument(issuer: issuer))),
        ])
        let discovery = try ProviderDiscovery(issuer: url(issuer), transport: transport)
        await #expect(throws: WebSignInError.self) { try await discovery.metadata() }
        let metadata = try await discovery.metadata()
        #expect(metadata.issuer == issuer)
    }

    @Test func explicitMetadataIsCheckedLikeDiscoveredMetadata() throws {
        let good = ProviderMetadata(
            issuer: issuer, authorizationEndpoint: url(issuer + "/authorize"), tokenEndpoint: url(issuer + "/token"))
        try good.checkEndpoints()
        let bad = ProviderMetadata(
            issuer: issuer, authorizationEndpoint: url(issuer + "/authorize"), tokenEndpoint: url(issuer + "/token"),
            revocationEndpoint: url("http://idp.example.com/revoke"))
        #expect(throws: WebSignInError.self) { try bad.checkEndpoints() }
    }
}
