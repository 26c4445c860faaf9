// The samples of Docs/GettingStarted.md that need no imports of their own, and the tests that run
// them and those of GettingStartedEmulatedClientSample.swift and GettingStartedAuthoritySample.swift.
// The sample tests stand in a suite, for its time limit, as in an app's test target.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: getting-started-first-sign-in
func signIn(client: NativeAuthClient, email: String, readCode: () -> String) async throws -> UserAccountResult? {
    let start = try await client.signIn(SignInParameters(username: email))
    guard case .codeRequired(let state, _, _, _) = start else {
        return nil  // a password, a second factor or another step: see SignIn.md
    }
    let result = try await state.submitCode(readCode())
    guard case .completed(let account) = result else {
        return nil
    }
    return account
}
// snippet: end

@Suite(.hangLimit)
struct GettingStartedSampleTests {
    // snippet: getting-started-test-code
    @Test func signsInWithAnEmailCode() async throws {
        let (client, tenant, _) = try makeClient()

        let start = try await client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, let channelTargetType, _) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }
        #expect(channelTargetType == .email)

        // The code the tenant "emailed".
        let code = try #require(tenant.lastCode(sentTo: "grace@example.com"))
        let result = try await state.submitCode(code)
        guard case .completed(let account) = result else {
            throw UnexpectedOutcome(description: "\(result)")
        }
        #expect(account.account.username == "grace@example.com")
    }
    // snippet: end

    // snippet: getting-started-test-wrong-password
    @Test func aWrongPasswordCanBeRetried() async throws {
        let (client, _, _) = try makeClient()

        let start = try await client.signIn(SignInParameters(username: "ada@example.com"))
        guard case .passwordRequired(let state) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }

        let error = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword("not-the-password")
        }
        #expect(error.isInvalidPassword)

        let result = try await state.submitPassword("Analytical-Engine-1843")
        guard case .completed = result else {
            throw UnexpectedOutcome(description: "\(result)")
        }
    }
    // snippet: end

    // snippet: getting-started-test-mfa
    @Test func asksForASecondFactor() async throws {
        let (client, tenant, _) = try makeClient(capabilities: [.mfaRequired])
        tenant.addUser(
            EmulatedUser(
                username: "alan@example.com", password: "Enigma-Bombe-1940",
                mfaMethods: [EmulatedAuthMethod(id: "sms-1", channel: "sms", address: "+447700900123")]))

        let start = try await client.signIn(
            SignInParameters(username: "alan@example.com", password: "Enigma-Bombe-1940"))
        guard case .awaitingMFA(let state, let methods) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }
        let method = try #require(methods.first)
        let codeState = try await state.requestChallenge(authMethod: method)
        #expect(codeState.channelTargetType == .sms)

        let code = try #require(tenant.lastCode(sentTo: "+447700900123"))
        let result = try await codeState.submitChallenge(code)
        guard case .completed = result else {
            throw UnexpectedOutcome(description: "\(result)")
        }
    }
    // snippet: end

    // snippet: getting-started-test-forced-answers
    @Test func reportsANetworkFailure() async throws {
        let (client, tenant, _) = try makeClient()
        tenant.force(.networkFailure, on: .initiate)

        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "ada@example.com"))
        }
        #expect(error.isNetworkError)
    }

    @Test func reportsBrowserRequired() async throws {
        let (client, tenant, _) = try makeClient()
        tenant.force(.redirect(reason: "This user must sign in in the browser."), on: .challenge)

        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "ada@example.com"))
        }
        #expect(error.isBrowserRequired)
        #expect(error.redirectReason == "This user must sign in in the browser.")
    }

    @Test func aRejectedCodeIsInvalidCode() async throws {
        let (client, tenant, _) = try makeClient()
        let start = try await client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }
        tenant.force(.error("invalid_grant", suberror: "invalid_oob_value", codes: [50181]), on: .token, times: 1)

        let error = try await #require(throws: VerifyCodeError.self) {
            try await state.submitCode("12345678")
        }
        #expect(error.isInvalidCode)
        #expect(error.serverSuberror == "invalid_oob_value")
    }
    // snippet: end

    // snippet: getting-started-test-moving-time
    @Test func refreshesAnExpiredAccessToken() async throws {
        let (client, _, clock) = try makeClient()
        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }

        let first = try await account.getAccessToken()
        clock.advance(by: 3600)  // the emulator's access tokens live one hour
        let second = try await account.getAccessToken()
        #expect(second.accessToken != first.accessToken)
    }

    @Test func aRevokedSessionSignsTheUserOut() async throws {
        let (client, tenant, _) = try makeClient()
        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }

        tenant.revokeRefreshTokens(for: "ada@example.com")
        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(error.isRefreshTokenExpired)
        let current = try await client.currentAccount()
        #expect(current == nil)
    }
    // snippet: end

    @Test func checksWhatWasSent() async throws {
        // snippet: getting-started-test-received-requests
        let (client, tenant, _) = try makeClient()
        _ = try await client.signIn(SignInParameters(username: "grace@example.com"))

        let request = try #require(tenant.receivedRequests.first)
        #expect(request.url.lastPathComponent == "initiate")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")  // every call is a form post
        // snippet: end
    }
}

@Suite(.hangLimit)
struct GettingStartedSnippetTests {
    @Test func configuresFromTheSubdomain() throws {
        // snippet: getting-started-configuration-subdomain
        // import NativeAuth

        let configuration = try NativeAuthConfiguration(
            clientId: "00000000-0000-0000-0000-000000000000", tenantSubdomain: "contoso")
        // authority: https://contoso.ciamlogin.com/contoso.onmicrosoft.com
        // snippet: end
        #expect(configuration.authority.absoluteString == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
    }

    @Test func configuresFromTheAuthority() throws {
        let configuration = try makeConfiguration()
        #expect(configuration.authority.absoluteString == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
    }

    @Test func takesTheOtherSettings() throws {
        // The formatter leaves this alone: the sample's comments stay aligned.
        // swift-format-ignore
        do {
            // snippet: getting-started-configuration-settings
            var configuration = try NativeAuthConfiguration(
                clientId: "00000000-0000-0000-0000-000000000000",
                tenantSubdomain: "contoso",
                challengeTypes: [.oob, .password],                     // the default
                capabilities: [.mfaRequired, .registrationRequired],   // default: none
                customHeaders: ["x-contoso-app-build": "2025.11.3"])   // default: none
            configuration.tokenRefreshMargin = 300                     // seconds; the default
            configuration.maximumRetryWait = 10                        // seconds; the default
            configuration.logger = InMemoryLogger(minimumLevel: .debug) // default: nil, nothing is logged
            configuration.clock = SystemClock()                        // the default
            // snippet: end

            #expect(configuration.customHeaders == ["x-contoso-app-build": "2025.11.3"])
            #expect(configuration.capabilities == [.mfaRequired, .registrationRequired])
            #expect(configuration.tokenRefreshMargin == 300)
        }
    }

    @Test func createsTheClient() throws {
        let configuration = try makeConfiguration()
        do {
            // snippet: getting-started-client
            let client = NativeAuthClient(configuration: configuration)
            // snippet: end
            #expect(client.configuration.clientId == configuration.clientId)
        }
        // snippet: getting-started-client-replaced
        let client = NativeAuthClient(
            configuration: configuration,
            transport: URLSessionTransport(timeout: 15),
            credentialStore: NativeAuthClient.defaultCredentialStore(applicationName: "MyApp"))
        // snippet: end
        #expect(client.configuration.clientId == configuration.clientId)
    }

    @Test func restoresTheAccount() async throws {
        let (client, _, _) = try makeClient()
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        let console = Console()
        try await Console.$current.withValue(console) {
            // snippet: getting-started-current-account
            if let account = try await client.currentAccount() {
                print("Welcome back, \(account.account.username)")
            }
            // snippet: end
        }
        #expect(console.printed("Welcome back, ada@example.com"))
    }

    @Test func signsInAndGetsAToken() async throws {
        let (client, tenant, _) = try makeClient()
        let signedIn = try await signIn(client: client, email: "grace@example.com") {
            tenant.lastCode(sentTo: "grace@example.com") ?? ""
        }
        let account = try #require(signedIn)
        // snippet: getting-started-access-token
        let token = try await account.getAccessToken(scopes: ["api://contoso/orders.read"])
        // Send it as: Authorization: Bearer \(token.accessToken)
        // snippet: end
        #expect(!token.accessToken.isEmpty)
    }
}
