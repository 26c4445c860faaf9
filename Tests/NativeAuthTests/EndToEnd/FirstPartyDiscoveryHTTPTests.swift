import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// First-party sign-in at an authorization server whose metadata is not Entra's OpenID document,
/// through the public API over loopback HTTP: the emulator serves RFC 8414 metadata (and, for the
/// second shape, an OpenID document of another issuer) from its own JSON, and the SDK finds the
/// server's endpoints from it.
@Suite("First-party discovery over HTTP: RFC 8414 metadata, a foreign OpenID document", .hangLimit)
struct FirstPartyDiscoveryHTTPTests {
    /// Runs a first-party sign-in with a client of `documents`' tenant served over loopback HTTP,
    /// and returns the paths the tenant received; the server is stopped whatever the sign-in threw.
    func signIn(publishing documents: EmulatorSettings.DiscoveryDocuments) async throws -> [String] {
        let fixture = FirstPartyFixture()
        fixture.tenant.configure { $0.discoveryDocuments = documents }
        let server = try EmulatorServer(tenant: fixture.tenant)
        server.start()
        let outcome: Result<Void, any Error>
        do {
            let issuer = try #require(URL(string: server.authority.absoluteString + "/v2.0"))
            var configuration = WebAuthConfiguration()
            configuration.requestTimeout = TestBounds.requestDeadline
            configuration.clock = fixture.harness.clock
            configuration.logger = fixture.harness.logger
            let client = try WebAuthClient(
                issuer: issuer, clientId: fixture.tenant.clientId, redirectURI: FirstPartyFixture.redirect,
                transport: URLSessionTransport(timeout: TestBounds.requestDeadline),
                credentialStore: InMemoryCredentialStore(),
                configuration: configuration)
            let result = try await client.signInFirstParty(
                username: "ada@example.com", password: EmulatorHarness.password, scopes: ["offline_access"])
            guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
            #expect(account.account.username == "ada@example.com")
            #expect(account.account.claims.issuer == fixture.tenant.issuerIdentifier)
            // The refresh goes to the token endpoint the RFC 8414 document named.
            #expect(try await account.getAccessToken(forceRefresh: true).accessToken.isEmpty == false)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await server.stop()
        try outcome.get()
        return fixture.paths
    }

    /// The paths of the sign-in and the refresh after discovery.
    func afterDiscovery(_ fixture: FirstPartyFixture = FirstPartyFixture()) -> [String] {
        [fixture.challengePath, fixture.tokenPath, fixture.keysPath, fixture.tokenPath]
    }

    /// `GET` of the two documents, under the authority the client was given.
    func discovery(_ fixture: FirstPartyFixture = FirstPartyFixture()) -> [String] {
        let subdomain = "/\(fixture.tenant.tenantSubdomain).onmicrosoft.com"
        return [
            "GET \(subdomain)/v2.0/.well-known/openid-configuration",
            "GET /.well-known/oauth-authorization-server\(subdomain)/v2.0",
        ]
    }

    @Test func anAuthorizationServerWithOnlyRFC8414MetadataSignsInOverHTTP() async throws {
        let paths = try await signIn(publishing: .authorizationServerOnly)
        #expect(paths == discovery() + afterDiscovery())
    }

    @Test func anOpenIDDocumentOfAnotherIssuerFallsBackToRFC8414OverHTTP() async throws {
        let paths = try await signIn(publishing: .foreignOpenIDDocument)
        #expect(paths == discovery() + afterDiscovery())
    }

    @Test func entrasOpenIDDocumentAloneIsOneDiscoveryRequest() async throws {
        let paths = try await signIn(publishing: .openIDConnect)
        #expect(paths == [discovery()[0]] + afterDiscovery())
    }
}
