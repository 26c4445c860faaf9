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

// snippet: first-party-errors
func explain(_ error: WebSignInError) -> String {
    if error.isInvalidGrant { return "The email address or password is wrong." }
    if error.isUnsupported { return "This provider has no first-party sign-in; use signIn(_:using:)." }
    if error.isInvalidSession { return "The sign-in took too long; start again." }
    if error.isNetworkError { return "No connection; try again." }
    return "The sign-in failed."
}
// snippet: end

@Suite(.timeLimit(.minutes(1)))
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
