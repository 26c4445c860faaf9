import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// A first-party sign-in (OAuth 2.0 for First-Party Applications) over real loopback HTTP: the
/// discovery document names the server's authorization challenge endpoint, and the SDK signs in
/// at it with a password, then with a one-time code.
@Suite("Emulator server: first-party sign-in over loopback HTTP", .hangLimit)
struct ServerFirstPartySignInTests {
    static let redirect = URL(string: "http://127.0.0.1:8765/callback")!

    func client(_ served: ServedTenant) throws -> WebAuthClient {
        let issuer = try #require(URL(string: served.server.authority.absoluteString + "/v2.0"))
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = served.harness.clock
        return try WebAuthClient(
            issuer: issuer, clientId: served.tenant.clientId, redirectURI: Self.redirect, transport: served.transport,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
    }

    @Test func aPasswordAndThenACodeSignInOverHTTP() async throws {
        let served = try ServedTenant { $0.authorizationChallengeEndpoint = true }
        let tenant = served.tenant
        let client = try client(served)
        let result = try await client.signInFirstParty(username: Fixture.ada, password: Fixture.adaPassword)
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(account.account.username == Fixture.ada)
        let base = "/\(tenant.tenantId)"
        #expect(
            tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } == [
                "GET /contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration",
                "POST \(base)/oauth2/v2.0/first-party/authorize-challenge", "POST \(base)/oauth2/v2.0/token",
                "GET \(base)/discovery/v2.0/keys",
            ])

        guard case .challengeRequired(let state) = try await client.signInFirstParty(username: Fixture.grace) else {
            throw TestFailure("expected a challenge")
        }
        let code = try #require(tenant.lastCode(sentTo: Fixture.grace))
        guard case .completed(let grace) = try await state.submitCode(code) else {
            throw TestFailure("expected a sign-in")
        }
        #expect(grace.account.username == Fixture.grace)
        let info = try await served.control("GET", "/info")
        let settings = try #require(info["settings"] as? [String: Any])
        #expect(settings["authorizationChallengeEndpoint"] as? Bool == true)
    }

    @Test func anIdentifierFirstSignInAnswersThePasswordAskedForOverHTTP() async throws {
        let served = try ServedTenant {
            $0.authorizationChallengeEndpoint = true
            $0.authorizationChallengeIdentifierFirst = true
        }
        let client = try client(served)
        guard case .challengeRequired(let state) = try await client.signInFirstParty(username: Fixture.ada) else {
            throw TestFailure("expected the password to be asked for")
        }
        #expect(state.isPasswordRequired && !state.isCodeRequired)
        let wrong = try await #require(throws: WebSignInError.self) { try await state.submitPassword("nope") }
        #expect(wrong.isInvalidGrant)
        guard case .completed(let account) = try await state.submitPassword(Fixture.adaPassword) else {
            throw TestFailure("expected a sign-in")
        }
        #expect(account.account.username == Fixture.ada)
        let challenges = served.tenant.receivedRequests.filter {
            $0.url.path.hasSuffix("/first-party/authorize-challenge")
        }
        #expect(challenges.count == 3)
        let info = try await served.control("GET", "/info")
        let settings = try #require(info["settings"] as? [String: Any])
        #expect(settings["authorizationChallengeIdentifierFirst"] as? Bool == true)
    }

    @Test func theControlAPIChallengesTheNextRefreshAndTheSDKReadsItAsAChallenge() async throws {
        let served = try ServedTenant { $0.authorizationChallengeEndpoint = true }
        let client = try client(served)
        let result = try await client.signInFirstParty(
            username: Fixture.ada, password: Fixture.adaPassword, scopes: ["offline_access"])
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        let marked = try await served.control("POST", "/users/\(Fixture.ada)/challenge-next-refresh")
        #expect(marked.status == 200, "\(marked.text)")

        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(error.isAuthorizationChallengeRequired && error.isInteractionRequired)
        #expect(!error.isRefreshTokenExpired)
        guard case .challengeRequired(let state)? = error.firstPartyContinuation else {
            throw TestFailure("expected a challenge state, got \(String(describing: error.firstPartyContinuation))")
        }
        #expect(state.isCodeRequired && state.username == Fixture.ada)
        let code = try #require(try await served.control("GET", "/codes/\(Fixture.ada)")["code"] as? String)
        guard case .completed(let again) = try await state.submitCode(code) else {
            throw TestFailure("expected a sign-in")
        }
        #expect(again.account.identifier == account.account.identifier)
        #expect(!(try await again.getAccessToken(forceRefresh: true)).accessToken.isEmpty, "challenged once")
        await served.server.stop()
    }

    @Test func offTheServerNamesNoEndpointAndTheClientSaysUnsupported() async throws {
        let served = try ServedTenant()
        let error = try await #require(throws: WebSignInError.self) {
            try await client(served).signInFirstParty(username: Fixture.ada, password: Fixture.adaPassword)
        }
        #expect(error.isUnsupported)
    }
}
