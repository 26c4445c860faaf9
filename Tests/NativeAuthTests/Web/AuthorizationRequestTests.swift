import Foundation
import Testing

@testable import NativeAuth

/// Test metadata for `https://idp.example.com`.
func testMetadata(
    authorizationEndpoint: String = "https://idp.example.com/authorize", issRequired: Bool = false
) -> ProviderMetadata {
    var metadata = ProviderMetadata(
        issuer: "https://idp.example.com", authorizationEndpoint: url(authorizationEndpoint),
        tokenEndpoint: url("https://idp.example.com/token"))
    metadata.authorizationResponseIssParameterSupported = issRequired
    return metadata
}

@Suite("Authorization request URL")
struct AuthorizationRequestTests {
    let redirect = url("com.example.app://oauth/callback")
    let correlation = UUID(uuidString: "11111111-2222-3333-4444-555555555555")

    func request(
        _ parameters: WebSignInParameters, metadata: ProviderMetadata = testMetadata()
    ) throws(WebSignInError) -> AuthorizationRequest {
        var parameters = parameters
        parameters.correlationId = parameters.correlationId ?? correlation
        return try AuthorizationRequest(
            metadata: metadata, clientId: "client 1", redirectURI: redirect, parameters: parameters,
            state: Secret("st"), nonce: Secret("no"),
            pkce: try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
    }

    @Test func minimalRequest() throws {
        let built = try request(WebSignInParameters())
        #expect(
            built.url.absoluteString
                == "https://idp.example.com/authorize?response_type=code&client_id=client%201&redirect_uri=com.example.app%3A%2F%2Foauth%2Fcallback&scope=openid&state=st&nonce=no&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&client-request-id=11111111-2222-3333-4444-555555555555"
        )
        #expect(built.correlationId == correlation)
        #expect(!"\(built)".contains("state=st"))
    }

    @Test func everyParameterIsEncodedWithUnreservedCharactersOnly() throws {
        let parameters = WebSignInParameters(
            scopes: ["profile offline_access", "api://x/read", "profile", "openid"], loginHint: "ada+x@example.com",
            prompt: .selectAccount, maxAge: 0, acrValues: ["urn:mace:a", "b"], uiLocales: ["fr-CA", "en"],
            audience: "https://api.example.com/", resource: [url("https://api.example.com/a"), url("urn:x:y")],
            extraParameters: ["domain_hint": "a&b=c d", "z~": "é"])
        let built = try request(parameters)
        let query = built.url.query(percentEncoded: true) ?? ""
        #expect(
            query
                == "response_type=code&client_id=client%201&redirect_uri=com.example.app%3A%2F%2Foauth%2Fcallback&scope=profile%20offline_access%20api%3A%2F%2Fx%2Fread%20openid&state=st&nonce=no&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&login_hint=ada%2Bx%40example.com&prompt=select_account&max_age=0&acr_values=urn%3Amace%3Aa%20b&ui_locales=fr-CA%20en&audience=https%3A%2F%2Fapi.example.com%2F&resource=https%3A%2F%2Fapi.example.com%2Fa&resource=urn%3Ax%3Ay&domain_hint=a%26b%3Dc%20d&z~=%C3%A9&client-request-id=11111111-2222-3333-4444-555555555555"
        )
        #expect(built.scopes == ["profile", "offline_access", "api://x/read", "openid"])
    }

    @Test func openidIsAddedFirstAndScopesAreDeduplicatedInOrder() {
        #expect(WebSignInParameters(scopes: ["b", "a b", " c  a "]).scopeList == ["openid", "b", "a", "c"])
        #expect(WebSignInParameters(scopes: ["email", "openid"]).scopeList == ["email", "openid"])
        #expect(WebSignInParameters().scopeList == ["openid"])
    }

    @Test func promptValues() {
        #expect(WebSignInParameters.Prompt.none.rawValue == "none")
        #expect(WebSignInParameters.Prompt.login.rawValue == "login")
        #expect(WebSignInParameters.Prompt.consent.rawValue == "consent")
        #expect(WebSignInParameters.Prompt.selectAccount.rawValue == "select_account")
        #expect(WebSignInParameters.Prompt.create.rawValue == "create")
        #expect(WebSignInParameters.Prompt(rawValue: "login consent").rawValue == "login consent")
    }

    @Test func existingEndpointQueryIsKept() throws {
        let built = try request(
            WebSignInParameters(),
            metadata: testMetadata(authorizationEndpoint: "https://idp.example.com/authorize?p=b2c_1_signin"))
        #expect(built.url.query(percentEncoded: true)?.hasPrefix("p=b2c_1_signin&response_type=code&") == true)
    }

    @Test func protocolParametersCannotBeOverridden() {
        for name in [
            "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
            "code_challenge_method", "response_mode", "login_hint", "prompt", "max_age", "acr_values", "ui_locales",
            "audience", "resource", "request", "request_uri", "client-request-id", "STATE", "Redirect_Uri", "",
        ] {
            do {
                _ = try request(WebSignInParameters(extraParameters: [name: "x"]))
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.isInvalidParameters, "\(name)")
                #expect(error.correlationId == correlation)
            }
        }
    }

    @Test func invalidParametersAreRefusedBeforeAnythingIsSent() {
        let bad: [WebSignInParameters] = [
            WebSignInParameters(maxAge: -1),
            WebSignInParameters(scopes: ["a\"b"]),
            WebSignInParameters(scopes: ["a\\b"]),
            WebSignInParameters(resource: [url("https://api.example.com/#frag")]),
        ]
        for parameters in bad {
            #expect(throws: WebSignInError.self, "\(parameters)") { try request(parameters) }
        }
        let random = SeededWebRandom(seed: 2)
        #expect(throws: WebSignInError.self) {
            try AuthorizationRequest(
                metadata: testMetadata(), clientId: "", redirectURI: redirect, parameters: WebSignInParameters(),
                random: random)
        }
        #expect(throws: WebSignInError.self) {
            try request(
                WebSignInParameters(), metadata: testMetadata(authorizationEndpoint: "http://idp.example.com/a"))
        }
    }

    @Test func freshValuesComeFromTheGenerator() throws {
        let random = SeededWebRandom(seed: 9)
        let first = try AuthorizationRequest(
            metadata: testMetadata(), clientId: "c", redirectURI: redirect, parameters: WebSignInParameters(),
            random: random)
        let second = try AuthorizationRequest(
            metadata: testMetadata(), clientId: "c", redirectURI: redirect, parameters: WebSignInParameters(),
            random: random)
        #expect(first.state != second.state && first.nonce != second.nonce && first.pkce != second.pkce)
        #expect(first.state != first.nonce)
        #expect(first.correlationId != second.correlationId)
        let dumped = String(describing: Mirror(reflecting: first).children.map(\.value))
        #expect(!dumped.contains(first.state.reveal) && !dumped.contains(first.pkce.verifier.reveal))
    }
}
