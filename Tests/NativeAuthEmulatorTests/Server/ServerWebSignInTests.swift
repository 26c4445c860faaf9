import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The tenant's OpenID Connect endpoints over loopback HTTP: the URLs it writes name the server,
/// and the SDK's browser fallback works against it end to end.
@Suite("Emulator server: web sign-in over loopback HTTP", .hangLimit)
struct ServerWebSignInTests {
    static let redirect = URL(string: "http://127.0.0.1:8765/callback")!
    static let browserUser = "bo@contoso.com"
    static let browserPassword = "Browser-Only-1"

    func served() throws -> ServedTenant {
        let served = try ServedTenant { $0.redirectURIs = [Self.redirect.absoluteString] }
        served.tenant.addUser(
            EmulatedUser(
                username: Self.browserUser, password: Self.browserPassword, attributes: ["displayName": "Bo Browser"],
                requiresBrowser: true))
        return served
    }

    func discovery(_ served: ServedTenant, headers: [String: String] = [:]) async throws -> [String: Any] {
        let url = try #require(
            URL(string: served.server.authority.absoluteString + "/v2.0/.well-known/openid-configuration"))
        let response = try await served.transport.send(HTTPRequest(method: "GET", url: url, headers: headers))
        #expect(response.statusCode == 200)
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test("discovery over HTTP names the server's endpoints and keeps the issuer")
    func discoveryNamesTheServer() async throws {
        let served = try served()
        let tenant = served.tenant
        let origin = "http://127.0.0.1:\(served.port)/\(tenant.tenantId)"
        let document = try await discovery(served)
        #expect(document["issuer"] as? String == tenant.issuerIdentifier)
        #expect(document["authorization_endpoint"] as? String == origin + "/oauth2/v2.0/authorize")
        #expect(document["token_endpoint"] as? String == origin + "/oauth2/v2.0/token")
        #expect(document["jwks_uri"] as? String == origin + "/discovery/v2.0/keys")
        #expect(document["end_session_endpoint"] as? String == origin + "/oauth2/v2.0/logout")

        // A client's own `Forwarded` header changes nothing.
        let spoofed = try await discovery(served, headers: ["Forwarded": "host=\"evil.example.com\";proto=https"])
        #expect(spoofed["token_endpoint"] as? String == origin + "/oauth2/v2.0/token")

        // Nor does a `Host` that is not this server on loopback.
        let path = "/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration"
        let raw = try await RawHTTP.exchange(
            port: served.port, "GET \(path) HTTP/1.1\r\nHost: evil.example.com\r\nConnection: close\r\n\r\n")
        let body = try #require(raw.responses.first).text
        #expect(body.contains("\"http://127.0.0.1:\(served.port)/\(tenant.tenantId)/oauth2/v2.0/token\""))
        #expect(!body.contains("evil.example.com"))

        // `localhost` on the server's port is how the client reached it: the URLs say so.
        let local = try await RawHTTP.exchange(
            port: served.port, "GET \(path) HTTP/1.1\r\nHost: localhost:\(served.port)\r\nConnection: close\r\n\r\n")
        #expect(
            try #require(local.responses.first).text.contains(
                "\"http://localhost:\(served.port)/\(tenant.tenantId)/oauth2/v2.0/token\""))

        // In process, the tenant names its ciamlogin.com origin, whatever the request's headers.
        let inProcess = try await tenant.send(
            HTTPRequest(
                method: "GET", url: tenant.authority.appendingPathComponent("v2.0/.well-known/openid-configuration"),
                headers: ["Forwarded": "host=\"127.0.0.1:1\";proto=http"]))
        let inProcessDocument = try #require(
            try JSONSerialization.jsonObject(with: inProcess.body) as? [String: Any])
        #expect(
            inProcessDocument["token_endpoint"] as? String
                == "https://contoso.ciamlogin.com/\(tenant.tenantId)/oauth2/v2.0/token")
        await served.server.stop()
    }

    @Test("a browser-required user continues in a browser over HTTP, then refreshes")
    func continueInBrowserOverHTTP() async throws {
        let served = try served()
        let tenant = served.tenant
        let client = try served.client()
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: Self.browserUser, scopes: ["api://contoso/read"]))
        }
        #expect(error.isBrowserRequired)

        let browser = FormPostingBrowser(
            tenant: tenant, passwords: [Self.browserUser: Self.browserPassword], username: Self.browserUser,
            transport: served.transport)
        let account = try await error.continueInBrowser(redirectURI: Self.redirect, using: browser)
        #expect(account.account.username == Self.browserUser)
        #expect(account.account.claims.preferredUsername == Self.browserUser)
        #expect(account.account.claims.tenantId == tenant.tenantId)
        #expect(account.account.claims.issuer == tenant.issuerIdentifier)

        // The signed ID token was checked with the keys, fetched over HTTP from the server.
        let paths = tenant.receivedRequests.map { "\($0.method) \($0.url.path)" }
        let base = "/\(tenant.tenantId)"
        #expect(
            paths == [
                "POST /contoso.onmicrosoft.com/oauth2/v2.0/initiate",
                "GET /contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration",
                "GET \(base)/oauth2/v2.0/authorize", "POST \(base)/login", "POST \(base)/oauth2/v2.0/token",
                "GET \(base)/discovery/v2.0/keys",
            ])

        // It refreshes natively at the tenant's token endpoint, over HTTP.
        let first = try await account.getAccessToken()
        let before = tenant.receivedRequests.count
        let refreshed = try await account.getAccessToken(forceRefresh: true)
        #expect(refreshed.accessToken != first.accessToken)
        #expect(tenant.receivedRequests.count == before + 1)
        #expect(tenant.receivedRequests.last?.url.path == "/contoso.onmicrosoft.com/oauth2/v2.0/token")
        await served.server.stop()
    }

    @Test("a web client pushes its request over HTTP to a tenant that requires it, then signs in")
    func pushedAuthorizationOverHTTP() async throws {
        let served = try served()
        let tenant = served.tenant
        tenant.configure { $0.pushedAuthorizationRequests = .required }
        let origin = "http://127.0.0.1:\(served.port)/\(tenant.tenantId)"
        let document = try await discovery(served)
        #expect(document["pushed_authorization_request_endpoint"] as? String == origin + "/oauth2/v2.0/par")
        #expect(document["require_pushed_authorization_requests"] as? Bool == true)

        let issuer = try #require(URL(string: served.server.authority.absoluteString + "/v2.0"))
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = served.harness.clock
        let client = try WebAuthClient(
            issuer: issuer, clientId: tenant.clientId, redirectURI: Self.redirect, transport: served.transport,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
        let browser = FormPostingBrowser(
            tenant: tenant, passwords: [Self.browserUser: Self.browserPassword], username: Self.browserUser,
            transport: served.transport)
        let account = try await client.signIn(WebSignInParameters(), using: browser)
        #expect(account.account.username == Self.browserUser)
        let shown = try #require(browser.shownURLs.first)
        #expect(shown.absoluteString.hasPrefix(origin + "/oauth2/v2.0/authorize?client_id="))
        #expect(shown.query?.contains("request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3A") == true)
        #expect(tenant.receivedRequests.contains { $0.method == "POST" && $0.url.path.hasSuffix("/oauth2/v2.0/par") })
        await served.server.stop()
    }
}
