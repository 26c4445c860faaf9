import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The emulated tenant behind an authorization server that publishes only RFC 8414 metadata
/// (`https://host/.well-known/oauth-authorization-server{path}`, §3), built from the tenant's own
/// document without `authorization_endpoint`, `end_session_endpoint` or the pushed request endpoint:
/// a first-party-only deployment. Its OpenID document is missing, or is another issuer's (a host's
/// root document). Every other request goes to the tenant; this transport keeps them all.
final class AuthorizationServerOnlyTenant: HTTPTransport, Sendable {
    enum OpenIDDocument: Sendable {
        case missing
        case otherIssuer
    }

    static let otherIssuer = "https://login.example.org/another"

    let tenant: EmulatedTenant
    let openID: OpenIDDocument
    private let received = LockedValue<[HTTPRequest]>([])

    init(tenant: EmulatedTenant, openID: OpenIDDocument) {
        self.tenant = tenant
        self.openID = openID
    }

    /// Every request, as `METHOD /path`.
    var paths: [String] { received.current.map { "\($0.method) \($0.url.path)" } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        received.withLock { $0.append(request) }
        let path = request.url.path
        if path.hasSuffix("/.well-known/openid-configuration") {
            guard case .otherIssuer = openID else { return HTTPResponse(statusCode: 404) }
            return try await document { $0["issuer"] = Self.otherIssuer }
        }
        if path.hasPrefix("/.well-known/oauth-authorization-server/") {
            return try await document { members in
                for name in ["authorization_endpoint", "end_session_endpoint", "pushed_authorization_request_endpoint"]
                {
                    members[name] = nil
                }
            }
        }
        return try await tenant.send(request)
    }

    /// The tenant's discovery document, changed by `change`.
    private func document(_ change: (inout [String: Any]) -> Void) async throws -> HTTPResponse {
        let answer = try await tenant.send(HTTPRequest(method: "GET", url: tenant.url(for: .openIDConfiguration)))
        guard var members = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else {
            throw TestFailure("the tenant's document is not an object")
        }
        change(&members)
        return HTTPResponse(
            statusCode: 200, headers: ["Content-Type": "application/json"],
            body: try JSONSerialization.data(withJSONObject: members))
    }
}

@Suite(
    "First-party sign-in at an authorization server: RFC 8414 metadata, the app's own metadata", .hangLimit
)
struct FirstPartyProviderMetadataTests {
    let fixture = FirstPartyFixture()
    var tenant: EmulatedTenant { fixture.tenant }
    var openIDPath: String { "GET " + tenant.issuer.appendingPathComponent(".well-known/openid-configuration").path }
    var rfc8414Path: String { "GET /.well-known/oauth-authorization-server" + tenant.issuer.path }
    var emulatedPaths: [String] { [fixture.challengePath, fixture.tokenPath, fixture.keysPath] }

    @Test func aFirstPartyOnlyServerWithOnlyRFC8414MetadataSignsInAndRefusesTheBrowser() async throws {
        let server = AuthorizationServerOnlyTenant(tenant: tenant, openID: .missing)
        let client = try fixture.client(transport: server)
        let result = try await client.signInFirstParty(username: "ada@example.com", password: EmulatorHarness.password)
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(account.account.username == "ada@example.com")
        #expect(server.paths == [openIDPath, rfc8414Path] + emulatedPaths)

        // No authorization endpoint: a browser sign-in is a typed refusal, with nothing sent.
        let browser = EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password)
        let refused = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(), using: browser)
        }
        #expect(refused.isUnsupported, "\(refused)")
        #expect(server.paths.count == 5)
        // And so is a redirect_to_web the provider answers, which can only go on in a browser.
        guard
            case .browserRequired(let state) = try await client.signInFirstParty(
                username: FirstPartyFixture.browserUser, password: EmulatorHarness.password)
        else { throw TestFailure("expected the browser") }
        let web = try await #require(throws: WebSignInError.self) { try await state.continueInBrowser(using: browser) }
        #expect(web.isUnsupported, "\(web)")
        #expect(server.paths.count == 6, "the challenge request only")
    }

    @Test func anOpenIDDocumentOfAnotherIssuerFallsBackToTheServersRFC8414Metadata() async throws {
        let server = AuthorizationServerOnlyTenant(tenant: tenant, openID: .otherIssuer)
        let client = try fixture.client(transport: server)
        let result = try await client.signInFirstParty(username: "ada@example.com", password: EmulatorHarness.password)
        guard case .completed = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(server.paths == [openIDPath, rfc8414Path] + emulatedPaths)
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
