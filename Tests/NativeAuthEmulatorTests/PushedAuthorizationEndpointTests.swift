import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth
@testable import NativeAuthEmulator

extension WebHarness {
    /// The pushed authorization request endpoint, on the tenant-id path as discovery names it.
    var parURL: URL { URL(string: "https://contoso.ciamlogin.com/\(tenant.tenantId)/oauth2/v2.0/par")! }

    /// The parameters of ``authorizeURL(_:)`` with `changes`, as a form.
    func pushedForm(_ changes: [String: String?] = [:]) -> String {
        URLComponents(url: authorizeURL(changes), resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
    }

    /// Pushes `form` (the parameters of ``authorizeURL(_:)`` by default).
    func push(_ form: String? = nil, contentType: String = "application/x-www-form-urlencoded") async throws -> Reply {
        try Reply(
            await tenant.send(
                HTTPRequest(
                    method: "POST", url: parURL,
                    headers: [
                        "Content-Type": contentType, "client-request-id": "11111111-2222-3333-4444-555555555555",
                    ],
                    body: Data((form ?? pushedForm()).utf8))))
    }

    /// The authorization URL that carries only `client_id` and `requestURI`.
    func pushedAuthorizeURL(_ requestURI: String, clientId: String? = nil) -> URL {
        let query = formEncode([("client_id", clientId ?? tenant.clientId), ("request_uri", requestURI)])
        return URL(string: "https://contoso.ciamlogin.com/\(tenant.tenantId)/oauth2/v2.0/authorize?\(query)")!
    }

    /// The `error` of an error page.
    func pageError(_ response: HTTPResponse) -> Bool {
        response.statusCode == 400 && html(response).contains("request_uri")
    }
}

@Suite("Pushed authorization requests (RFC 9126): the endpoint and the authorization endpoint", .hangLimit)
struct PushedAuthorizationEndpointTests {
    static func harness(_ mode: EmulatorSettings.PushedAuthorizationRequests) -> WebHarness {
        WebHarness { $0.pushedAuthorizationRequests = mode }
    }

    @Test func offByDefaultAsWithEntra() async throws {
        let web = WebHarness()
        #expect(web.tenant.settings.pushedAuthorizationRequests == .off)
        let document = try Reply(try await web.get(web.tenant.url(for: .openIDConfiguration)))
        #expect(!document.has("pushed_authorization_request_endpoint"))
        #expect(!document.has("require_pushed_authorization_requests"))
        let push = try await web.push()
        #expect(push.status == 404)
        // A request_uri means nothing at the authorization endpoint then: the request has no redirect URI.
        let page = try await web.get(web.pushedAuthorizeURL("urn:ietf:params:oauth:request_uri:x"))
        #expect(page.statusCode == 400 && html(page).contains("redirect_uri"))
    }

    @Test(arguments: [EmulatorSettings.PushedAuthorizationRequests.offered, .required])
    func discoveryNamesTheEndpoint(mode: EmulatorSettings.PushedAuthorizationRequests) async throws {
        let web = Self.harness(mode)
        let document = try Reply(try await web.get(web.tenant.url(for: .openIDConfiguration)))
        #expect(document["pushed_authorization_request_endpoint"] == web.parURL.absoluteString)
        #expect(document.json["require_pushed_authorization_requests"] as? Bool == (mode == .required))
        #expect(web.tenant.url(for: .pushedAuthorizationRequest).path.hasSuffix("/oauth2/v2.0/par"))
    }

    @Test func aPushedRequestSignsInOnceWithItsOwnParameters() async throws {
        let web = Self.harness(.offered)
        let push = try await web.push()
        #expect(push.status == 201)
        #expect(push.response.header("Cache-Control") == "no-store")
        #expect(push.response.header("client-request-id") == "11111111-2222-3333-4444-555555555555")
        let requestURI = push["request_uri"]
        #expect(requestURI.hasPrefix("urn:ietf:params:oauth:request_uri:"))
        #expect(requestURI.count > "urn:ietf:params:oauth:request_uri:".count + 40, "32 random bytes")
        #expect(push.number("expires_in") == 60)
        #expect(Set(push.keys) == ["request_uri", "expires_in"])

        // The page shows the pushed login hint; parameters in the URL other than the two are not read.
        var url = web.pushedAuthorizeURL(requestURI)
        url = URL(string: url.absoluteString + "&login_hint=mallory%40example.com&state=forged")!
        let page = try await web.get(url)
        #expect(page.statusCode == 200, "\(html(page))")
        #expect(html(page).contains(Fixture.ada) && !html(page).contains("mallory"))
        let callback = try web.callback(
            try await web.submit(page, [("password", Fixture.adaPassword), ("action", "signin")]))
        #expect(callback["state"] == "state-1")
        let tokens = try await web.redeem(try #require(callback["code"]))
        #expect(tokens.status == 200, "\(tokens.text)")

        // Used once: a second browser is sent back with invalid_request_uri and the pushed state.
        let again = try web.callback(try await web.get(web.pushedAuthorizeURL(requestURI)))
        #expect(again["error"] == "invalid_request_uri")
        #expect(again["state"] == "state-1")
        #expect(again["code"] == nil)
    }

    @Test func aRequestURIExpiresOnTheTenantClockThenIsForgotten() async throws {
        let web = Self.harness(.offered)
        web.tenant.configure { $0.pushedAuthorizationRequestLifetime = 30 }
        let push = try await web.push()
        #expect(push.number("expires_in") == 30)
        web.clock.advance(by: 30)
        let late = try web.callback(try await web.get(web.pushedAuthorizeURL(push["request_uri"])))
        #expect(late["error"] == "invalid_request_uri" && late["state"] == "state-1")
        #expect(late["error_description"]?.contains("expired") == true)
        // A lifetime after it expired, the next push forgets it: it is then unknown.
        web.clock.advance(by: 30)
        #expect(try await web.push().status == 201)
        let forgotten = try await web.get(web.pushedAuthorizeURL(push["request_uri"]))
        #expect(web.pageError(forgotten), "\(html(forgotten))")
    }

    @Test func anUnknownRequestURIOrAnotherClientGetsAnErrorPage() async throws {
        let web = Self.harness(.offered)
        let push = try await web.push()
        let unknown = try await web.get(web.pushedAuthorizeURL("urn:ietf:params:oauth:request_uri:nope"))
        #expect(web.pageError(unknown), "\(html(unknown))")
        #expect(html(unknown).contains("invalid_request_uri") || html(unknown).contains("is unknown"))
        let other = try await web.get(web.pushedAuthorizeURL(push["request_uri"], clientId: "someone-else"))
        #expect(other.statusCode == 400 && other.header("Location") == nil)
        #expect(html(other).contains("someone-else"), "the unknown client is named")
        // The refused attempts did not use it up.
        let page = try await web.get(web.pushedAuthorizeURL(push["request_uri"]))
        #expect(page.statusCode == 200)
    }

    static let refusals: [(String, [String: String?], String, Int)] = [
        ("no client_id", ["client_id": nil], "invalid_client", 401),
        ("an unknown client", ["client_id": "someone-else"], "invalid_client", 401),
        ("no redirect_uri", ["redirect_uri": nil], "invalid_request", 400),
        ("an unregistered redirect URI", ["redirect_uri": "https://evil.example/cb"], "invalid_request", 400),
        ("no PKCE", ["code_challenge": nil], "invalid_request", 400),
        ("plain PKCE", ["code_challenge_method": "plain"], "invalid_request", 400),
        ("another response type", ["response_type": "token"], "unsupported_response_type", 400),
        ("a request_uri", ["request_uri": "urn:ietf:params:oauth:request_uri:x"], "invalid_request", 400),
        ("no scope", ["scope": nil], "invalid_request", 400),
    ]

    @Test("a push the tenant refuses is an RFC 9126 §2.3 error", arguments: refusals)
    func refusedPushes(name: String, changes: [String: String?], error: String, status: Int) async throws {
        let web = Self.harness(.offered)
        if changes["redirect_uri"] != nil { web.tenant.configure { $0.redirectURIs = [WebHarness.redirect] } }
        let reply = try await web.push(web.pushedForm(changes))
        #expect(reply.status == status, "\(name): \(reply.text)")
        #expect(reply.error == error, "\(name)")
        #expect(!reply.has("request_uri"), "\(name)")
        #expect(reply.response.header("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test func malformedPushesAreRefusedNotCrashes() async throws {
        let web = Self.harness(.offered)
        #expect(try await web.push(contentType: "application/json").error == "invalid_request")
        #expect(try await web.push("").error == "invalid_client")
        #expect(try await web.push(web.pushedForm() + "&state=twice").error == "invalid_request")
        for hostile in ["a=%zz&=", String(repeating: "&", count: 10_000), "client_id=%00%FF", "=&=&="] {
            let reply = try await web.push(hostile)
            #expect([400, 401].contains(reply.status) && reply.error != nil, "\(hostile.prefix(20))")
        }
    }

    @Test func requiredRefusesARequestInTheURLWithInvalidRequest() async throws {
        let web = Self.harness(.required)
        let refused = try web.callback(try await web.get(web.authorizeURL()))
        #expect(refused["error"] == "invalid_request" && refused["state"] == "state-1")
        #expect(refused["error_description"]?.contains("Pushed authorization requests are required") == true)
        // Pushed, the same request signs in.
        let page = try await web.get(web.pushedAuthorizeURL(try await web.push()["request_uri"]))
        #expect(page.statusCode == 200)
        // Offered, the URL still works.
        web.tenant.configure { $0.pushedAuthorizationRequests = .offered }
        #expect(try await web.get(web.authorizeURL()).statusCode == 200)
    }

    @Test func aPushedPromptNoneGoesBackWithLoginRequired() async throws {
        let web = Self.harness(.offered)
        let push = try await web.push(web.pushedForm(["prompt": "none"]))
        #expect(push.status == 201)
        let callback = try web.callback(try await web.get(web.pushedAuthorizeURL(push["request_uri"])))
        #expect(callback["error"] == "login_required" && callback["state"] == "state-1")
    }

    @Test func thePushCanBeForcedToMisbehave() async throws {
        let web = Self.harness(.offered)
        web.tenant.force(
            .raw(status: 201, headers: [:], body: Data(#"{"request_uri":"urn:x"}"#.utf8)),
            on: .pushedAuthorizationRequest)
        let forced = try await web.push()
        #expect(forced.status == 201 && !forced.has("expires_in"))
        #expect(try await web.push().number("expires_in") == 60, "once")
    }
}
