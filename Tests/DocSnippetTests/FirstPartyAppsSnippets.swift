// The samples of Docs/FirstPartyApps.md, and the tests that run them against the emulated tenant's
// authorization challenge endpoint.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: first-party-sign-in
func signInNatively(
    client: WebAuthClient, email: String, password: String, agent: any ExternalUserAgent,
    askForCode: () async -> String
) async throws -> UserAccountResult? {
    switch try await client.signInFirstParty(username: email, password: password, scopes: ["offline_access"]) {
    case .completed(let account):
        return account
    case .challengeRequired(let state) where state.isCodeRequired:
        // A wrong code throws `isInvalidGrant` and leaves `state` usable: ask again.
        guard case .completed(let account) = try await state.submitCode(await askForCode()) else { return nil }
        return account
    case .browserRequired(let state):
        return try await state.continueInBrowser(using: agent)  // the provider wants its own pages
    default:
        return nil  // another step of the provider's own profile: see `state.parameters`
    }
}
// snippet: end

// snippet: first-party-identifier-first
func signInIdentifierFirst(
    client: WebAuthClient, email: String, askForPassword: () async -> String, askForCode: () async -> String
) async throws -> UserAccountResult? {
    var result = try await client.signInFirstParty(username: email, scopes: ["offline_access"])
    while case .challengeRequired(let state) = result {
        // Each state sends the newest auth_session; a wrong answer throws `isInvalidGrant` and
        // leaves `state` usable.
        if state.isPasswordRequired {
            result = try await state.submitPassword(await askForPassword())
        } else if state.isCodeRequired {
            result = try await state.submitCode(await askForCode())
        } else {
            return nil  // a step of the provider's own profile: `state.parameters`, then `state.submit(_:)`
        }
    }
    guard case .completed(let account) = result else { return nil }
    return account
}
// snippet: end

// snippet: first-party-errors
func explain(_ error: WebSignInError) -> String {
    if error.isInvalidGrant { return "The email address or password is wrong." }
    if error.isUnsupported { return "This provider has no first-party sign-in; use signIn(_:using:)." }
    if error.isInvalidSession { return "The sign-in took too long; start again." }
    if error.isNetworkError { return "No connection; try again." }
    return "The sign-in failed."
}
// snippet: end

@Suite(.hangLimit)
struct FirstPartyAppsGuideSampleTests {
    // snippet: first-party-tests
    @Test func aUserWithASecondFactorSignsInOnTheAppsOwnScreens() async throws {
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.configure { $0.authorizationChallengeEndpoint = true }  // off by default, as with Entra
        tenant.addUser(
            EmulatedUser(
                username: "alan@example.com", password: "Enigma-Bombe-1940",
                mfaMethods: [EmulatedAuthMethod(id: "m-1", channel: "email", address: "alan.backup@example.com")]))
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: URL(string: "com.example.app:/auth")!,
            transport: tenant, credentialStore: InMemoryCredentialStore())

        let account = try await signInNatively(
            client: client, email: "alan@example.com", password: "Enigma-Bombe-1940",
            agent: EmulatedBrowser(tenant: tenant, password: "Enigma-Bombe-1940"),
            askForCode: { tenant.lastCode(sentTo: "alan.backup@example.com") ?? "" })
        #expect(account?.account.username == "alan@example.com")
    }
    // snippet: end

    @Test func anIdentifierFirstProviderAsksForThePasswordThenTheCode() async throws {
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.configure {
            $0.authorizationChallengeEndpoint = true
            $0.authorizationChallengeIdentifierFirst = true
        }
        tenant.addUser(
            EmulatedUser(
                username: "alan@example.com", password: "Enigma-Bombe-1940",
                mfaMethods: [EmulatedAuthMethod(id: "m-1", channel: "email", address: "alan.backup@example.com")]))
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: URL(string: "com.example.app:/auth")!,
            transport: tenant, credentialStore: InMemoryCredentialStore())
        let account = try await signInIdentifierFirst(
            client: client, email: "alan@example.com", askForPassword: { "Enigma-Bombe-1940" },
            askForCode: { tenant.lastCode(sentTo: "alan.backup@example.com") ?? "" })
        #expect(account?.account.username == "alan@example.com")
    }

    @Test func aBrowserOnlyUserGoesOnInTheBrowser() async throws {
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.configure { $0.authorizationChallengeEndpoint = true }
        tenant.addUser(EmulatedUser(username: "bo@example.com", password: "Browser-Only-1", requiresBrowser: true))
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: URL(string: "com.example.app:/auth")!,
            transport: tenant, credentialStore: InMemoryCredentialStore())
        let account = try await signInNatively(
            client: client, email: "bo@example.com", password: "Browser-Only-1",
            agent: EmulatedBrowser(tenant: tenant, password: "Browser-Only-1"), askForCode: { "" })
        #expect(account?.account.username == "bo@example.com")
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-1843"))
        let wrong = try await #require(throws: WebSignInError.self) {
            try await client.signInFirstParty(username: "ada@example.com", password: "nope")
        }
        #expect(explain(wrong) == "The email address or password is wrong.")
    }
}

// snippet: first-party-step-up
func stepUp(client: WebAuthClient, account: UserAccountResult, askForCode: () async -> String) async throws
    -> UserAccountResult?
{
    // The user opens a sensitive screen: sign them in again within the provider's session,
    // which it restores from the account's auth_session, asking only for what it still needs.
    let result = try await client.signInFirstParty(continuing: account)
    switch result {
    case .completed(let account):
        return account
    case .challengeRequired(let state) where state.isCodeRequired:
        guard case .completed(let account) = try await state.submitCode(await askForCode()) else { return nil }
        return account
    default:
        return nil
    }
}
// snippet: end

// snippet: first-party-resource-step-up
func callAPI(
    _ request: HTTPRequest, client: WebAuthClient, account: UserAccountResult, askForCode: () async -> String
) async throws -> HTTPResponse? {
    do {
        return try await account.send(request)
    } catch  where error.isStepUpRequired {
        // The API wants a stronger or more recent sign-in (RFC 9470). Nothing was retried, and
        // the account keeps its tokens: meet the API's challenge within the provider's session.
        switch try await client.signInFirstParty(continuing: account, stepUp: error.stepUpChallenge) {
        case .completed:
            break
        case .challengeRequired(let state) where state.isCodeRequired:
            guard case .completed = try await state.submitCode(await askForCode()) else { return nil }
        default:
            return nil
        }
        return try await account.send(request)  // once: a second refusal is for the app to show
    }
}
// snippet: end

// snippet: first-party-refresh-challenge
func freshToken(account: UserAccountResult, agent: any ExternalUserAgent, askForCode: () async -> String)
    async throws -> TokenResult?
{
    do {
        return try await account.getAccessToken()
    } catch  where error.isAuthorizationChallengeRequired {
        // The provider wants the user before it refreshes; the account is kept meanwhile.
        switch error.firstPartyContinuation {
        case .challengeRequired(let state)? where state.isCodeRequired:
            guard case .completed(let again) = try await state.submitCode(await askForCode()) else { return nil }
            return try await again.getAccessToken()
        case .browserRequired(let state)?:
            return try await state.continueInBrowser(using: agent).getAccessToken()
        default:
            return nil
        }
    }
}
// snippet: end

@Suite(.hangLimit)
struct FirstPartyAppsSessionSampleTests {
    let clock = ManualClock()
    let tenant: EmulatedTenant

    init() {
        tenant = EmulatedTenant(clock: clock, random: SeededRandomSource(seed: 2))
        tenant.configure { $0.authorizationChallengeEndpoint = true }
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-1843"))
    }

    func signedIn() async throws -> (WebAuthClient, UserAccountResult) {
        var configuration = WebAuthConfiguration()
        configuration.clock = clock
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: URL(string: "com.example.app:/auth")!,
            transport: tenant, credentialStore: InMemoryCredentialStore(), configuration: configuration)
        let account = try await signInNatively(
            client: client, email: "ada@example.com", password: "Analytical-1843",
            agent: EmulatedBrowser(tenant: tenant, password: "Analytical-1843"), askForCode: { "" })
        return (client, try #require(account))
    }

    @Test func aStepUpAsksOnlyForACode() async throws {
        let (client, account) = try await signedIn()
        let again = try await stepUp(
            client: client, account: account, askForCode: { tenant.lastCode(sentTo: "ada@example.com") ?? "" })
        #expect(again?.account.identifier == account.account.identifier)
    }

    @Test func anAPIsStepUpIsMetAndTheRequestGoesThrough() async throws {
        let (client, account) = try await signedIn()
        tenant.requireStepUp(acrValues: [EmulatedTenant.multiFactorACR], maxAge: 300)
        let response = try await callAPI(
            HTTPRequest(method: "GET", url: tenant.url(for: .resource)), client: client, account: account,
            askForCode: { tenant.lastCode(sentTo: "ada@example.com") ?? "" })
        #expect(response?.statusCode == 200)
    }

    @Test func aChallengedRefreshGoesOnWithACode() async throws {
        let (_, account) = try await signedIn()
        tenant.challengeNextRefresh(of: "ada@example.com")
        clock.advance(by: 7200)  // the access token has expired: the next one needs a refresh
        let token = try await freshToken(
            account: account, agent: EmulatedBrowser(tenant: tenant, password: nil),
            askForCode: { tenant.lastCode(sentTo: "ada@example.com") ?? "" })
        #expect(token != nil)
    }
}
