// The samples of Docs/WebSignIn.md (but two: WebSignInProviderSample.swift and
// WebSignInDeviceSample.swift), and the tests that run them against the emulated tenant's browser
// sign-in. `register(issuer:redirectURI:)`, like the two samples of their own files, is compiled
// only: it needs a provider that registers clients, which the emulator is not.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: web-sign-in-with-metadata
func firstPartyOnlyClient(store: any CredentialStore) throws -> WebAuthClient {
    // A provider that publishes no discovery document: no request is sent to find these.
    var metadata = ProviderMetadata(
        issuer: "https://login.example.com", authorizationEndpoint: nil,  // no browser sign-in there
        tokenEndpoint: URL(string: "https://login.example.com/token")!,
        jwksURI: URL(string: "https://login.example.com/keys")!)
    metadata.authorizationChallengeEndpoint = URL(string: "https://login.example.com/challenge")
    return try WebAuthClient(
        metadata: metadata, clientId: "my-app", redirectURI: URL(string: "com.example.app:/auth")!,
        credentialStore: store)
}
// snippet: end

@Test func theAppsMetadataMakesAClientThatDiscoversNothing() async throws {
    let client = try firstPartyOnlyClient(store: InMemoryCredentialStore())
    #expect(client.issuer.absoluteString == "https://login.example.com")
    let error = try await #require(throws: WebSignInError.self) {
        try await client.signIn(WebSignInParameters(), using: EmulatedBrowser(tenant: EmulatedTenant(), password: nil))
    }
    #expect(error.isUnsupported, "no authorization endpoint: nothing is sent, no browser is shown")
}

// snippet: web-continue-in-browser
func signIn(client: NativeAuthClient, email: String, agent: any ExternalUserAgent, redirectURI: URL)
    async throws -> UserAccountResult?
{
    do {
        guard case .completed(let account) = try await client.signIn(SignInParameters(username: email))
        else { return nil }  // a code or a password is asked for: see SignIn.md
        return account
    } catch let error where error.isBrowserRequired {
        return try await error.continueInBrowser(redirectURI: redirectURI, using: agent)
    }
}
// snippet: end

// The formatter leaves this alone: the sample keeps its comments as they are.
// swift-format-ignore
// snippet: web-delegate
@MainActor
final class BrowserSignInScreen: WebSignInDelegate {
    func onWebSignInCompleted(result: UserAccountResult) { /* show the signed-in screen */ }
    func onWebSignInError(error: WebSignInError) {
        if error.isCancelled { return }  // the user closed the browser
        /* show error.errorDescription */
    }
}
// snippet: end

// snippet: web-sign-out
func signOut(client: WebAuthClient, account: UserAccountResult, agent: any ExternalUserAgent) async {
    let result = await client.signOut(
        account, endingSessionUsing: agent,
        postLogoutRedirectURI: URL(string: "com.example.app:/signed-out")!)
    if let error = result.revocation.error { print("refresh token not revoked: \(error)") }
    if let error = result.endSession.error, !error.isCancelled {
        print("the browser may still be signed in at the provider: \(error)")
    }
}
// snippet: end

// snippet: web-register
func register(issuer: URL, redirectURI: URL) async throws -> WebAuthClient {
    var request = ClientRegistrationRequest(
        redirectURIs: [redirectURI], clientName: "Example CLI", scopes: ["openid", "offline_access"])
    request.postLogoutRedirectURIs = [URL(string: "http://127.0.0.1:8765/signed-out")!]
    let registration = try await WebAuthClient.register(request, issuer: issuer)
    // Keep registration.clientId (and clientSecret, in the keychain); register once, not per launch.
    var configuration = WebAuthConfiguration()
    configuration.clientAuthentication = registration.clientAuthentication
    return try WebAuthClient(
        issuer: issuer, clientId: registration.clientId, redirectURI: redirectURI,
        configuration: configuration)
}
// snippet: end

@Suite(.hangLimit)
struct WebSignInGuideSampleTests {
    // snippet: web-tests
    // import Foundation
    // import NativeAuth
    // import NativeAuthEmulator
    // import Testing

    @Test func aSocialAccountSignsInThroughTheBrowser() async throws {
        let clock = ManualClock()
        let tenant = EmulatedTenant(clock: clock, random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "bo@example.com", password: "Browser-Only-1", requiresBrowser: true))
        var configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        configuration.clock = clock
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())

        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "bo@example.com"))
        }
        #expect(error.isBrowserRequired)
        let account = try await error.continueInBrowser(
            redirectURI: URL(string: "msauth.com.example.app://auth")!,
            using: EmulatedBrowser(tenant: tenant, password: "Browser-Only-1"))
        #expect(account.account.username == "bo@example.com")

        clock.advance(by: 3600)  // the access token expired: the next one is refreshed
        _ = try await account.getAccessToken()
    }
    // snippet: end
}

/// A tenant with a user who signs in only in the browser, and a web client for its issuer.
private func webClient() throws -> (client: WebAuthClient, tenant: EmulatedTenant) {
    let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
    tenant.addUser(EmulatedUser(username: "bo@example.com", password: "Browser-Only-1", requiresBrowser: true))
    let client = try WebAuthClient(
        issuer: tenant.issuer, clientId: tenant.clientId,
        redirectURI: URL(string: "http://127.0.0.1:53124/callback")!, transport: tenant,
        credentialStore: InMemoryCredentialStore())
    return (client, tenant)
}

@Suite(.hangLimit)
struct WebSignInSnippetTests {
    @Test func continuesInTheBrowser() async throws {
        let (client, tenant, _) = try makeClient()
        tenant.addUser(EmulatedUser(username: "bo@example.com", password: "Browser-Only-1", requiresBrowser: true))
        let account = try await signIn(
            client: client, email: "bo@example.com",
            agent: EmulatedBrowser(tenant: tenant, password: "Browser-Only-1"),
            redirectURI: URL(string: "msauth.com.example.app://auth")!)
        #expect(account?.account.username == "bo@example.com")
    }

    @MainActor
    @Test func theDelegateIsCalled() async throws {
        let (client, tenant) = try webClient()
        client.signIn(
            WebSignInParameters(loginHint: "bo@example.com"),
            using: EmulatedBrowser(tenant: tenant, password: "Browser-Only-1"), delegate: BrowserSignInScreen())
        try await requireEventually("the sign-in") { try await client.currentAccount() != nil }
    }

    @Test func signsOutAtTheProvider() async throws {
        let (client, tenant) = try webClient()
        let browser = EmulatedBrowser(tenant: tenant, password: "Browser-Only-1")
        let account = try await client.signIn(WebSignInParameters(loginHint: "bo@example.com"), using: browser)
        let console = Console()

        await Console.$current.withValue(console) {
            await signOut(client: client, account: account, agent: browser)
        }

        #expect(try await client.currentAccount() == nil)
        #expect(!console.printed("the browser may still be signed in"))
    }

    @Test func pushesTheAuthorizationRequest() async throws {
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "bo@example.com", password: "Browser-Only-1", requiresBrowser: true))
        tenant.configure { $0.pushedAuthorizationRequests = .offered }
        // snippet: web-pushed-authorization
        var configuration = WebAuthConfiguration()
        configuration.pushedAuthorizationRequests = .required  // the default is .whenAvailable; or .never
        // snippet: end
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId,
            redirectURI: URL(string: "http://127.0.0.1:53124/callback")!, transport: tenant,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
        let account = try await client.signIn(
            WebSignInParameters(loginHint: "bo@example.com"),
            using: EmulatedBrowser(tenant: tenant, password: "Browser-Only-1"))
        #expect(account.account.username == "bo@example.com")
        #expect(tenant.receivedRequests.contains { $0.url.path.hasSuffix("/oauth2/v2.0/par") })
    }

    @Test func signsInWithAClientKey() async throws {
        let keyFromKeychain = Data(WebTestSigner.pkcs1DER)
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "bo@example.com", password: "Browser-Only-1", requiresBrowser: true))
        let registered = try RSAClientAssertionKey(pkcs1DER: keyFromKeychain, keyID: "app-key-1")
        tenant.configure { $0.clientAssertionKey = registered.publicJWK }
        // snippet: web-private-key-jwt
        let key = try RSAClientAssertionKey(pkcs1DER: keyFromKeychain, keyID: "app-key-1")  // PS256
        var configuration = WebAuthConfiguration()
        configuration.clientAuthentication = .privateKeyJWT(PrivateKeyJWT(key: key))  // aud: the issuer
        // snippet: end
        configuration.requestTimeout = TestBounds.requestDeadline
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId,
            redirectURI: URL(string: "http://127.0.0.1:53124/callback")!, transport: tenant,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
        let account = try await client.signIn(
            WebSignInParameters(loginHint: "bo@example.com"),
            using: EmulatedBrowser(tenant: tenant, password: "Browser-Only-1"))
        #expect(account.account.username == "bo@example.com")
        #expect(
            tenant.receivedRequests.contains {
                String(decoding: $0.body ?? Data(), as: UTF8.self).contains("client_assertion=")
            })
    }

    @Test func makesAConfidentialClient() throws {
        let secret = "client-secret"
        let issuer = URL(string: "https://login.example.com/realms/demo")!
        let redirectURI = URL(string: "http://127.0.0.1:8765/callback")!
        // snippet: web-confidential-client
        var configuration = WebAuthConfiguration()
        configuration.clientAuthentication = .clientSecretBasic(secret)  // or .clientSecretPost(secret)
        let client = try WebAuthClient(
            issuer: issuer, clientId: "conf-app", redirectURI: redirectURI, configuration: configuration)
        // snippet: end
        #expect(client.clientId == "conf-app")
        #expect(configuration.clientAuthentication == .clientSecretBasic(secret))
    }
}
