import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// `private_key_jwt` client authentication (RFC 7523 §2.2, OpenID Connect Core §9) against a real
/// OpenID Connect server: glewlwyd's instance at `{server}/api/oidc-private-key-jwt`, which
/// checks each assertion's signature with the client's registered key (found by `kid`), `iss` =
/// `sub` = the client id, `aud` = the URL the assertion was sent to, `exp` and a `jti` not seen
/// before (Tests/OIDCServer/setup.py). Two clients: `pkjwt-app`, registered with the public half of
/// RFC 7515 appendix A.2's key, and one this suite registers itself with another key through
/// dynamic registration (RFC 7591 §2: `jwks`, `token_endpoint_auth_method`).
@Suite(
    "private_key_jwt client authentication at a real OpenID Connect server (glewlwyd)",
    .enabled(if: OIDCServerEnvironment.issuer != nil, OIDCServerEnvironment.skipReason),
    .serialized, .oidcServerExclusive, .hangLimit)
struct OIDCServerPrivateKeyJWTTests {
    let login = OIDCTestLogin(issuer: OIDCServerEnvironment.issuer ?? URL(fileURLWithPath: "/"))
    var issuer: URL { login.api.appendingPathComponent("oidc-private-key-jwt") }

    static func key(_ der: String, keyID: String) throws -> RSAClientAssertionKey {
        try RSAClientAssertionKey(pkcs1DER: Data(WebTestSigner.bytes(der)), keyID: keyID)
    }

    func client(
        clientId: String, authentication: WebClientAuthentication, transport: any HTTPTransport,
        store: InMemoryCredentialStore = InMemoryCredentialStore()
    ) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clientAuthentication = authentication
        return try WebAuthClient(
            issuer: issuer, clientId: clientId, redirectURI: OIDCTestLogin.redirectURI, transport: transport,
            credentialStore: store, configuration: configuration)
    }

    /// Signs in, refreshes and calls userinfo; every token request carried an assertion the
    /// server took, each with its own `jti`.
    func signInRefreshAndCallUserinfo(_ client: WebAuthClient, transport: ExchangeRecordingTransport, keyID: String)
        async throws
    {
        let cookie = try await login.sessionCookie(consentingFor: client.clientId)
        let account = try await client.signIn(
            WebSignInParameters(scopes: OIDCTestLogin.scopes), using: CookieBrowserAgent(cookie: cookie))
        let first = try await account.getAccessToken()
        let refreshed = try await account.getAccessToken(forceRefresh: true)
        #expect(refreshed.accessToken != first.accessToken)
        let userinfo = try #require(
            try await ProviderDiscovery(issuer: issuer, transport: login.transport).metadata().userinfoEndpoint)
        let answer = try await account.send(HTTPRequest(method: "GET", url: userinfo))
        #expect(answer.statusCode == 200)
        #expect(try JSONValue.parse(answer.body)["sub"]?.stringValue == account.account.claims.subject)

        let tokenRequests = transport.exchanges("/token")
        #expect(tokenRequests.count == 2, "the code exchange and the refresh")
        var jtis: Set<String> = []
        for exchange in tokenRequests {
            #expect(exchange.response.statusCode == 200)
            let form = String(decoding: exchange.request.body ?? Data(), as: UTF8.self)
            #expect(
                form.contains("client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer"))
            let assertion = try #require(
                URLComponents(string: "?" + form)?.queryItems?.first { $0.name == "client_assertion" }?.value)
            let header = try #require(joseHeader(assertion))
            #expect(header["alg"]?.stringValue == "PS256")
            #expect(header["kid"]?.stringValue == keyID)
            let claims = try #require(JWT.payload(of: assertion))
            #expect(claims["aud"]?.stringValue == exchange.request.url.absoluteString)
            #expect(claims["iss"]?.stringValue == client.clientId)
            jtis.insert(try #require(claims["jti"]?.stringValue))
        }
        #expect(jtis.count == 2)
    }

    @Test func theRegisteredClientSignsInRefreshesAndCallsUserinfo() async throws {
        let transport = ExchangeRecordingTransport()
        let key = try Self.key(PrivateKeyFixtures.rfc7515PKCS1DER, keyID: "rfc7515-a2")
        let client = try client(
            clientId: "pkjwt-app",
            authentication: .privateKeyJWT(PrivateKeyJWT(key: key, audience: .requestEndpoint)), transport: transport)
        try await signInRefreshAndCallUserinfo(client, transport: transport, keyID: "rfc7515-a2")
    }

    /// The server checks the key: the same client signing with another key is refused at the
    /// code exchange, and nothing is stored.
    @Test func anAssertionSignedWithAnotherKeyIsRefused() async throws {
        let key = try Self.key(PrivateKeyFixtures.opensslPKCS1DER, keyID: "rfc7515-a2")
        let client = try client(
            clientId: "pkjwt-app",
            authentication: .privateKeyJWT(PrivateKeyJWT(key: key, audience: .requestEndpoint)),
            transport: ExchangeRecordingTransport())
        let cookie = try await login.sessionCookie(consentingFor: client.clientId)
        await #expect(throws: WebSignInError.self) { () async throws in
            try await client.signIn(
                WebSignInParameters(scopes: OIDCTestLogin.scopes), using: CookieBrowserAgent(cookie: cookie))
        }
        #expect(try await client.currentAccount() == nil)
    }

    /// A client that registers its own key through dynamic registration, then signs in with it.
    @Test func aClientRegisteredWithItsOwnKeySignsIn() async throws {
        let key = try Self.key(PrivateKeyFixtures.opensslPKCS1DER, keyID: "registered-key")
        var request = ClientRegistrationRequest(
            redirectURIs: [OIDCTestLogin.redirectURI], clientName: "Registered private_key_jwt app",
            scopes: ["openid", "profile", "offline_access"])
        request.registerAssertionKey(publicJWK: key.publicJWK)
        let registration = try await WebAuthClient.register(request, issuer: issuer, transport: login.transport)
        #expect(!registration.clientId.isEmpty)
        #expect(registration.clientSecret == nil)
        let transport = ExchangeRecordingTransport()
        let client = try client(
            clientId: registration.clientId,
            authentication: registration.clientAuthentication(assertionKey: key, audience: .requestEndpoint),
            transport: transport)
        try await signInRefreshAndCallUserinfo(client, transport: transport, keyID: "registered-key")
    }
}
