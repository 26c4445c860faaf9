import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A programmatic browser for the test server: alice is already logged in (session cookie), so
/// the authorization endpoint answers with a 302 to the redirect URI, which is the callback.
struct CookieBrowserAgent: ExternalUserAgent {
    let cookie: String
    let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

    func authorize(url: URL, redirectURI: URL) async throws -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let items = components?.queryItems ?? []
        components?.queryItems = items + [URLQueryItem(name: "g_continue", value: "")]
        let response = try await transport.send(
            HTTPRequest(method: "GET", url: components?.url ?? url, headers: ["Cookie": cookie]))
        guard response.statusCode == 302, let location = response.header("Location").flatMap(URL.init(string:))
        else { throw URLError(.badServerResponse) }
        return location
    }
}

/// The web client end to end against a real provider: discovery, code + PKCE through a user
/// agent, the provider's RS256 ID token verified against its JWKS, refresh without a new refresh
/// token, and restore from the store.
@Suite(
    "Web client against a real OpenID Connect server (glewlwyd)",
    .enabled(if: OIDCServerEnvironment.issuer != nil, OIDCServerEnvironment.skipReason),
    .serialized, .oidcServerExclusive, .hangLimit)
struct OIDCServerWebClientTests {
    let login = OIDCTestLogin(issuer: OIDCServerEnvironment.issuer ?? URL(fileURLWithPath: "/"))

    @Test func signsInVerifiesTheSignatureRefreshesAndRestores() async throws {
        let issuer = try #require(OIDCServerEnvironment.issuer)
        let store = InMemoryCredentialStore()
        let make = {
            try WebAuthClient(
                issuer: issuer, clientId: OIDCTestLogin.clientId, redirectURI: OIDCTestLogin.redirectURI,
                transport: URLSessionTransport(timeout: TestBounds.requestDeadline), credentialStore: store)
        }
        let client = try make()
        let agent = CookieBrowserAgent(cookie: try await login.sessionCookie())
        let account = try await client.signIn(WebSignInParameters(scopes: OIDCTestLogin.scopes), using: agent)
        #expect(account.account.claims.subject?.isEmpty == false)
        let first = try await account.getAccessToken()
        // The test server sends no new refresh token on a refresh: the old one is kept and works again.
        let second = try await account.getAccessToken(forceRefresh: true)
        #expect(second.accessToken != first.accessToken)
        let third = try await account.getAccessToken(forceRefresh: true)
        #expect(!third.accessToken.isEmpty)
        // A new client on the same store restores the account with no request.
        let restored = try #require(try await make().currentAccount())
        #expect(restored.account.identifier == account.account.identifier)
        #expect(try await restored.getAccessToken().accessToken == third.accessToken)
    }
}
