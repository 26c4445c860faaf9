import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite(
    "First-party sign-in at an authorization server: RFC 8414 metadata, the app's own metadata", .hangLimit
)
struct FirstPartyProviderMetadataTests {
    let fixture = FirstPartyFixture()
    var tenant: EmulatedTenant { fixture.tenant }
    var openIDPath: String { "GET " + tenant.issuer.appendingPathComponent(".well-known/openid-configuration").path }
    var rfc8414Path: String { "GET /.well-known/oauth-authorization-server" + tenant.issuer.path }
    var emulatedPaths: [String] { [fixture.challengePath, fixture.tokenPath, fixture.keysPath] }

    /// The tenant publishing `documents`.
    func publishing(_ documents: EmulatorSettings.DiscoveryDocuments) -> EmulatedTenant {
        tenant.configure { $0.discoveryDocuments = documents }
        return tenant
    }

    @Test func aFirstPartyOnlyServerWithOnlyRFC8414MetadataSignsInAndRefusesTheBrowser() async throws {
        let client = try fixture.client(transport: publishing(.authorizationServerOnly))
        let result = try await client.signInFirstParty(username: "ada@example.com", password: EmulatorHarness.password)
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(account.account.username == "ada@example.com")
        #expect(fixture.paths == [openIDPath, rfc8414Path] + emulatedPaths)

        // No authorization endpoint: a browser sign-in is a typed refusal, with nothing sent.
        let browser = EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password)
        let refused = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(), using: browser)
        }
        #expect(refused.isUnsupported, "\(refused)")
        #expect(fixture.paths.count == 5)
        // And so is a redirect_to_web the provider answers, which can only go on in a browser.
        guard
            case .browserRequired(let state) = try await client.signInFirstParty(
                username: FirstPartyFixture.browserUser, password: EmulatorHarness.password)
        else { throw TestFailure("expected the browser") }
        let web = try await #require(throws: WebSignInError.self) { try await state.continueInBrowser(using: browser) }
        #expect(web.isUnsupported, "\(web)")
        #expect(fixture.paths.count == 6, "the challenge request only")
    }

    @Test func anOpenIDDocumentOfAnotherIssuerFallsBackToTheServersRFC8414Metadata() async throws {
        let client = try fixture.client(transport: publishing(.foreignOpenIDDocument))
        let result = try await client.signInFirstParty(username: "ada@example.com", password: EmulatorHarness.password)
        guard case .completed = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(fixture.paths == [openIDPath, rfc8414Path] + emulatedPaths)
    }

    @Test func theTenantsMetadataDocumentsAreWhatTheSettingSays() async throws {
        let openID = HTTPRequest(method: "GET", url: tenant.url(for: .openIDConfiguration))
        let rfc8414 = HTTPRequest(
            method: "GET",
            url: try #require(URL(string: "https://\(tenant.issuer.host ?? "")" + rfc8414Path.dropFirst(4))))
        #expect(try await tenant.send(rfc8414).statusCode == 404, "Entra's shape: no RFC 8414 document")

        _ = publishing(.authorizationServerOnly)
        #expect(try await tenant.send(openID).statusCode == 404)
        let metadata = try #require(try JSONValue.parse(try await tenant.send(rfc8414).body).objectValue)
        #expect(metadata["issuer"]?.stringValue == tenant.issuerIdentifier)
        #expect(metadata["authorization_challenge_endpoint"] != nil && metadata["token_endpoint"] != nil)
        for absent in ["authorization_endpoint", "end_session_endpoint", "pushed_authorization_request_endpoint"] {
            #expect(metadata[absent] == nil, "\(absent)")
        }

        _ = publishing(.foreignOpenIDDocument)
        let foreign = try #require(try JSONValue.parse(try await tenant.send(openID).body).objectValue)
        #expect(foreign["issuer"]?.stringValue == "https://\(tenant.authority.host ?? "")/")
        #expect(try await tenant.send(rfc8414).statusCode == 200)
    }

    /// The tenant's issuer and endpoints, as an app that knows them would write them.
    func appMetadata(browser: Bool) async throws -> ProviderMetadata {
        let answer = try await tenant.send(HTTPRequest(method: "GET", url: tenant.url(for: .openIDConfiguration)))
        let document = try #require(try JSONValue.parse(answer.body).objectValue)
        func endpoint(_ name: String) throws -> URL {
            try #require(document[name]?.stringValue.flatMap(URL.init(string:)))
        }
        var metadata = ProviderMetadata(
            issuer: try #require(document["issuer"]?.stringValue),
            authorizationEndpoint: browser ? try endpoint("authorization_endpoint") : nil,
            tokenEndpoint: try endpoint("token_endpoint"), jwksURI: try endpoint("jwks_uri"))
        metadata.authorizationChallengeEndpoint = try endpoint("authorization_challenge_endpoint")
        return metadata
    }

    func client(_ metadata: ProviderMetadata) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = fixture.harness.clock
        configuration.logger = fixture.harness.logger
        return try WebAuthClient(
            metadata: metadata, clientId: tenant.clientId, redirectURI: FirstPartyFixture.redirect, transport: tenant,
            credentialStore: fixture.store, configuration: configuration)
    }

    @Test func aClientMadeFromTheAppsMetadataSendsNoDiscovery() async throws {
        let metadata = try await appMetadata(browser: false)
        let client = try client(metadata)
        #expect(client.issuer.absoluteString == metadata.issuer)
        let before = fixture.paths.count
        let result = try await client.signInFirstParty(
            username: "ada@example.com", password: EmulatorHarness.password, scopes: ["offline_access"])
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(account.account.username == "ada@example.com")
        #expect(Array(fixture.paths.dropFirst(before)) == emulatedPaths)
        #expect(try await account.getAccessToken(forceRefresh: true).accessToken.isEmpty == false)
        #expect(Array(fixture.paths.dropFirst(before + 3)) == [fixture.tokenPath], "a refresh: no discovery")

        let refused = try await #require(throws: WebSignInError.self) {
            try await client.signIn(
                WebSignInParameters(), using: EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password))
        }
        #expect(refused.isUnsupported)
        #expect(fixture.paths.count == before + 4, "nothing sent")
    }

    @Test func theAppsMetadataWithAnAuthorizationEndpointSignsInInTheBrowserToo() async throws {
        let client = try client(try await appMetadata(browser: true))
        let before = fixture.paths.count
        var parameters = WebSignInParameters()
        parameters.loginHint = "ada@example.com"
        let account = try await client.signIn(
            parameters, using: EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password))
        #expect(account.account.username == "ada@example.com")
        #expect(!fixture.paths.dropFirst(before).contains(fixture.discoveryPath))
    }

    @Test func theAppsMetadataIsCheckedAsDiscoveredMetadataIs() async throws {
        let good = try await appMetadata(browser: true)
        var insecure = good
        insecure.tokenEndpoint = url("http://idp.example.com/token")
        var challenge = good
        challenge.authorizationChallengeEndpoint = url("http://idp.example.com/challenge")
        var notURL = good
        notURL.issuer = ""
        var query = good
        query.issuer = "https://idp.example.com/tenant?x=1"
        for metadata in [insecure, challenge, notURL, query] {
            let error = try #require(throws: WebSignInError.self) { try client(metadata) }
            #expect(error.isInvalidParameters, "\(error)")
        }
        #expect(fixture.paths.count == 1, "nothing sent but the test's own document request")
    }
}
