import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The refresh margin a cached access token is held to is at most half of its lifetime: with
/// the default 300 s margin, a provider issuing 300-second tokens gets them refreshed after 150 s,
/// not at every use. Web and native clients on an in-process emulated tenant, on its virtual
/// clock.
@Suite("The refresh margin stays below half of the token's lifetime", .hangLimit)
struct RefreshMarginTests {
    static let redirect = URL(string: "msauth.com.example.app://auth")!
    let harness = EmulatorHarness()
    let store = InMemoryCredentialStore()

    var tenant: EmulatedTenant { harness.tenant }

    /// The token requests the tenant received so far.
    var tokenRequests: Int { tenant.receivedRequests.filter { $0.url.path.hasSuffix("/token") }.count }

    func webClient(margin: TimeInterval? = nil) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        if let margin { configuration.tokenRefreshMargin = margin }
        return try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: Self.redirect, transport: tenant,
            credentialStore: store, configuration: configuration)
    }

    /// A web sign-in on a tenant issuing access tokens of `lifetime` seconds.
    func webSignIn(lifetime: TimeInterval, margin: TimeInterval? = nil) async throws -> UserAccountResult {
        tenant.configure { $0.accessTokenLifetime = lifetime }
        return try await webClient(margin: margin).signIn(
            WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com"),
            using: EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password))
    }

    /// A resource that answers every request with 200.
    struct Resource: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { HTTPResponse(statusCode: 200) }
    }

    static let api = HTTPRequest(method: "GET", url: URL(string: "https://api.example/orders")!)

    @Test func aThreeHundredSecondTokenIsHandedOutForHalfItsLifeWithTheDefaultMargin() async throws {
        let account = try await webSignIn(lifetime: 300)
        let requests = tokenRequests
        let first = try await account.getAccessToken()
        #expect(first.expiresOn.timeIntervalSince(harness.clock.now()) == 300)

        // Ten seconds later: getAccessToken, authorize and send all use the cached token.
        harness.clock.advance(by: 10)
        #expect(try await account.getAccessToken().accessToken == first.accessToken)
        let authorized = try await account.authorize(Self.api)
        #expect(authorized.headers["Authorization"] == "Bearer \(first.accessToken)")
        #expect(try await account.send(Self.api, using: Resource()).statusCode == 200)
        // So does a client started on the same store: the lifetime is stored with the token.
        let restored = try #require(try await webClient().currentAccount())
        #expect(try await restored.getAccessToken().accessToken == first.accessToken)
        #expect(tokenRequests == requests, "no refresh within the first half of the token's life")

        // Just before half of its life it is still handed out; just after, it is refreshed, once.
        harness.clock.advance(by: 139)
        #expect(try await account.getAccessToken().accessToken == first.accessToken)
        #expect(tokenRequests == requests)
        harness.clock.advance(by: 2)
        let second = try await account.getAccessToken()
        #expect(second.accessToken != first.accessToken)
        #expect(tokenRequests == requests + 1)
        #expect(try await account.getAccessToken().accessToken == second.accessToken)
        #expect(tokenRequests == requests + 1)
    }

    @Test func anHourLongTokenKeepsTheWholeMargin() async throws {
        let account = try await webSignIn(lifetime: 3600)
        let requests = tokenRequests
        let first = try await account.getAccessToken()
        harness.clock.advance(by: 3299)
        #expect(try await account.getAccessToken().accessToken == first.accessToken)
        #expect(tokenRequests == requests)
        harness.clock.advance(by: 2)
        #expect(try await account.getAccessToken().accessToken != first.accessToken)
        #expect(tokenRequests == requests + 1)
    }

    @Test func aMarginShorterThanHalfTheLifetimeIsKept() async throws {
        let account = try await webSignIn(lifetime: 300, margin: 60)
        let requests = tokenRequests
        let first = try await account.getAccessToken()
        harness.clock.advance(by: 239)
        #expect(try await account.getAccessToken().accessToken == first.accessToken)
        #expect(tokenRequests == requests)
        harness.clock.advance(by: 2)
        #expect(try await account.getAccessToken().accessToken != first.accessToken)
        #expect(tokenRequests == requests + 1)
    }

    @Test func theNativeClientHoldsItsTokensToTheSameRule() async throws {
        tenant.configure { $0.accessTokenLifetime = 300 }
        guard
            case .completed(let account) = try await harness.client.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        let requests = tokenRequests
        let first = try await account.getAccessToken()
        harness.clock.advance(by: 10)
        #expect(try await account.getAccessToken().accessToken == first.accessToken)
        _ = try await account.authorize(Self.api)
        #expect(tokenRequests == requests)
        harness.clock.advance(by: 141)
        #expect(try await account.getAccessToken().accessToken != first.accessToken)
        #expect(tokenRequests == requests + 1)
    }

    // MARK: Records written before the lifetime was kept

    /// Removes `issuedOn` from the tokens of the web client's stored account item (which holds the
    /// sign-in scopes' token), as an earlier version wrote them; the number removed.
    func forgetIssueTimes() async throws -> Int {
        let key = "nativeauth.web.\(tenant.issuer.absoluteString).\(tenant.clientId)"
        let data = try #require(try await store.data(forKey: key))
        var document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var tokens = try #require(document["accessTokens"] as? [String: Any])
        var removed = 0
        for (scopes, token) in tokens {
            guard var token = token as? [String: Any], token.removeValue(forKey: "issuedOn") != nil else { continue }
            removed += 1
            tokens[scopes] = token
        }
        document["accessTokens"] = tokens
        try await store.setData(JSONSerialization.data(withJSONObject: document), forKey: key)
        return removed
    }

    @Test func aTokenStoredBeforeTheChangeIsHeldToTheWholeMarginAsBefore() async throws {
        let first = try await webSignIn(lifetime: 300).getAccessToken()
        #expect(try await forgetIssueTimes() == 1)
        let restored = try #require(try await webClient().currentAccount())
        let requests = tokenRequests
        // As before: a 300 s token with a 300 s margin is never handed out from the cache.
        harness.clock.advance(by: 10)
        let refreshed = try await restored.getAccessToken()
        #expect(refreshed.accessToken != first.accessToken)
        #expect(tokenRequests == requests + 1)
        // The new token carries its lifetime: it is handed out for 150 s.
        harness.clock.advance(by: 100)
        #expect(try await restored.getAccessToken().accessToken == refreshed.accessToken)
        #expect(tokenRequests == requests + 1)
    }

    @Test func anHourLongTokenStoredBeforeTheChangeIsHandedOutAsBefore() async throws {
        let first = try await webSignIn(lifetime: 3600).getAccessToken()
        #expect(try await forgetIssueTimes() == 1)
        let restored = try #require(try await webClient().currentAccount())
        let requests = tokenRequests
        harness.clock.advance(by: 3299)
        #expect(try await restored.getAccessToken().accessToken == first.accessToken)
        #expect(tokenRequests == requests)
        harness.clock.advance(by: 2)
        #expect(try await restored.getAccessToken().accessToken != first.accessToken)
        #expect(tokenRequests == requests + 1)
    }

    /// A format 2 account item as the SDK wrote it before it kept the time a token was received.
    static let itemBeforeTheChange = """
        {"version":2,"identifier":"a.t","username":"ada@example.com","idToken":"","refreshToken":"r",\
        "signInScopes":[],"session":"s","accessTokens":{"":{"token":"access-1","expiresOn":1800000300.0,\
        "scopes":["openid"]}}}
        """

    @Test func anItemWrittenBeforeTheChangeDecodesWithNoIssueTime() throws {
        let record = try AccountRecord(storedJSON: Data(Self.itemBeforeTheChange.utf8))
        let token = try #require(record.accessTokens[""])
        #expect(token.issuedOn == nil)
        #expect(token.effectiveMargin(300) == 300)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let byFoundation = try decoder.decode(AccountRecord.self, from: Data(Self.itemBeforeTheChange.utf8))
        #expect(byFoundation == record)
        // Written again, it still has none; with one, it reads back with it.
        let again = try AccountRecord(storedJSON: try #require(record.encodedJSON()))
        #expect(again == record)
        var issued = record
        issued.accessTokens[""]?.issuedOn = Date(timeIntervalSince1970: 1_800_000_000)
        let written = try #require(issued.encodedJSON())
        #expect(try AccountRecord(storedJSON: written) == issued)
        #expect(try decoder.decode(AccountRecord.self, from: written) == issued)
        #expect(issued.accessTokens[""]?.effectiveMargin(300) == 150)
    }

    @Test func anIssueTimeOfTheWrongTypeIsADamagedItem() {
        let damaged = Self.itemBeforeTheChange.replacingOccurrences(
            of: "\"scopes\":[\"openid\"]", with: "\"scopes\":[\"openid\"],\"issuedOn\":\"yesterday\"")
        #expect(throws: StoredJSON.Unreadable.self) { try AccountRecord(storedJSON: Data(damaged.utf8)) }
    }
}
