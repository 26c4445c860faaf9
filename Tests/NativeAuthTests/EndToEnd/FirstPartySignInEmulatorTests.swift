import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A web client on an emulated tenant that serves the authorization challenge endpoint of OAuth
/// 2.0 for First-Party Applications, with the users of the harness and a browser-only one.
struct FirstPartyFixture {
    static let redirect = URL(string: "msauth.com.example.app://auth")!
    static let browserUser = "bo@example.com"

    let harness = EmulatorHarness(
        users: EmulatorHarness.defaultUsers + [
            EmulatedUser(
                username: FirstPartyFixture.browserUser, password: EmulatorHarness.password, requiresBrowser: true)
        ])
    let store = InMemoryCredentialStore()

    var tenant: EmulatedTenant { harness.tenant }
    var base: String { "/\(tenant.tenantId)" }
    var challengePath: String { "POST \(base)/oauth2/v2.0/first-party/authorize-challenge" }
    var discoveryPath: String { "GET \(base)/v2.0/.well-known/openid-configuration" }
    var tokenPath: String { "POST \(base)/oauth2/v2.0/token" }
    var keysPath: String { "GET \(base)/discovery/v2.0/keys" }
    var paths: [String] { tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    init(endpoint: Bool = true) {
        tenant.configure { $0.authorizationChallengeEndpoint = endpoint }
    }

    func client(dpop: DPoPConfiguration? = nil, transport: (any HTTPTransport)? = nil) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = harness.clock
        configuration.logger = harness.logger
        configuration.dpop = dpop
        return try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: Self.redirect,
            transport: transport ?? tenant, credentialStore: store, configuration: configuration)
    }

    /// The form fields of the `index`th request to the challenge endpoint, by name.
    func challengeForm(_ index: Int) throws -> [(name: String, value: String)] {
        let requests = tenant.receivedRequests.filter { $0.url.path.hasSuffix("/first-party/authorize-challenge") }
        return Self.form(try #require(requests.dropFirst(index).first))
    }

    func tokenForm() throws -> [(name: String, value: String)] {
        Self.form(try #require(tenant.receivedRequests.last { $0.url.path.hasSuffix("/oauth2/v2.0/token") }))
    }

    static func form(_ request: HTTPRequest) -> [(name: String, value: String)] {
        AuthorizationCallback.parameters(String(decoding: request.body ?? Data(), as: UTF8.self))
    }
}

@Suite("First-party sign-in end to end on the emulator", .hangLimit)
struct FirstPartySignInEmulatorTests {
    let fixture = FirstPartyFixture()
    var tenant: EmulatedTenant { fixture.tenant }

    @Test func aPasswordSignInIsFourRequestsAndStoresTheAccount() async throws {
        let client = try fixture.client()
        var events = client.sessionEvents().makeAsyncIterator()
        let result = try await client.signInFirstParty(
            username: "ada@example.com", password: EmulatorHarness.password, scopes: ["offline_access"])
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(account.account.username == "ada@example.com")
        #expect(
            fixture.paths == [fixture.discoveryPath, fixture.challengePath, fixture.tokenPath, fixture.keysPath])
        let first = try fixture.challengeForm(0)
        #expect(
            first.map(\.name) == [
                "response_type", "client_id", "scope", "code_challenge", "code_challenge_method", "username",
                "password",
            ])
        #expect(first.first { $0.name == "scope" }?.value == "openid offline_access")
        #expect(first.first { $0.name == "code_challenge_method" }?.value == "S256")
        // The draft's §6: no redirect_uri, since the request had none; the verifier of the challenge.
        let token = try fixture.tokenForm()
        #expect(token.map(\.name) == ["grant_type", "code", "client_id", "code_verifier"])
        let challenge = try #require(first.first { $0.name == "code_challenge" }?.value)
        let verifier = try #require(token.first { $0.name == "code_verifier" }?.value)
        #expect(PKCE.challenge(for: verifier) == challenge)
        guard case .signedIn(let signedIn)? = await events.next() else { throw TestFailure("no signedIn event") }
        #expect(signedIn.username == "ada@example.com")
    }

    @Test func aPasswordThenAOneTimeCodeCarriesTheAuthSession() async throws {
        let client = try fixture.client()
        let result = try await client.signInFirstParty(username: "alan@example.com", password: EmulatorHarness.password)
        guard case .challengeRequired(let state) = result else {
            throw TestFailure("expected a challenge, got \(result)")
        }
        #expect(state.isCodeRequired)
        #expect(state.parameters["otp_required"] == .bool(true))
        let code = try fixture.harness.code(for: "alan.backup@example.com")
        guard case .completed(let account) = try await state.submitCode(code) else {
            throw TestFailure("expected a sign-in")
        }
        #expect(account.account.username == "alan@example.com")
        #expect(
            fixture.paths == [
                fixture.discoveryPath, fixture.challengePath, fixture.challengePath, fixture.tokenPath,
                fixture.keysPath,
            ])
        let second = try fixture.challengeForm(1)
        #expect(second.map(\.name) == ["response_type", "client_id", "auth_session", "otp"])
        #expect(second.first { $0.name == "otp" }?.value == code)
        let error = try await #require(throws: WebSignInError.self) { try await state.submitCode(code) }
        #expect(error.isStateAlreadyUsed)
        #expect(fixture.paths.count == 5, "a spent state sends nothing")
    }

    @Test func aPasswordlessUserGetsAnEmailCode() async throws {
        let client = try fixture.client()
        guard case .challengeRequired(let state) = try await client.signInFirstParty(username: "grace@example.com")
        else { throw TestFailure("expected a challenge") }
        #expect(!(try fixture.challengeForm(0).contains { $0.name == "password" }))
        let result = try await state.submitCode(try fixture.harness.code(for: "grace@example.com"))
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in") }
        #expect(account.account.username == "grace@example.com")
    }

    @Test func aWrongPasswordThenTheRightOne() async throws {
        let client = try fixture.client()
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signInFirstParty(username: "ada@example.com", password: "wrong-Passw0rd")
        }
        #expect(error.isInvalidGrant && error.serverError == "invalid_grant", "\(error)")
        #expect(try await client.currentAccount() == nil)
        let result = try await client.signInFirstParty(username: "ada@example.com", password: EmulatorHarness.password)
        guard case .completed = result else { throw TestFailure("expected a sign-in") }
        #expect(
            fixture.paths == [
                fixture.discoveryPath, fixture.challengePath, fixture.challengePath, fixture.tokenPath,
                fixture.keysPath,
            ])
    }

    @Test func aWrongCodeLeavesTheStateUsable() async throws {
        let client = try fixture.client()
        guard case .challengeRequired(let state) = try await client.signInFirstParty(username: "grace@example.com")
        else { throw TestFailure("expected a challenge") }
        let wrong = try await #require(throws: WebSignInError.self) { try await state.submitCode("00000000") }
        #expect(wrong.isInvalidGrant, "\(wrong)")
        let empty = try await #require(throws: WebSignInError.self) { try await state.submitCode("") }
        #expect(empty.isInvalidParameters)
        let result = try await state.submitCode(try fixture.harness.code(for: "grace@example.com"))
        guard case .completed = result else { throw TestFailure("expected a sign-in") }
        #expect(fixture.paths.filter { $0 == fixture.challengePath }.count == 3, "the empty code sent nothing")
    }

    @Test func anExpiredSessionIsInvalidSessionAndSpendsTheState() async throws {
        let client = try fixture.client()
        guard case .challengeRequired(let state) = try await client.signInFirstParty(username: "grace@example.com")
        else { throw TestFailure("expected a challenge") }
        fixture.harness.clock.advance(by: 601)
        let error = try await #require(throws: WebSignInError.self) {
            try await state.submitCode(try fixture.harness.code(for: "grace@example.com"))
        }
        #expect(error.isInvalidSession && error.serverError == "invalid_session", "\(error)")
        let again = try await #require(throws: WebSignInError.self) { try await state.submitCode("12345678") }
        #expect(again.isStateAlreadyUsed)
    }

    @Test func noEndpointPublishedIsUnsupportedAfterDiscoveryOnly() async throws {
        let fixture = FirstPartyFixture(endpoint: false)
        let error = try await #require(throws: WebSignInError.self) {
            try await fixture.client().signInFirstParty(username: "ada@example.com", password: EmulatorHarness.password)
        }
        #expect(error.isUnsupported, "\(error)")
        #expect(fixture.paths == [fixture.discoveryPath])
    }

    @Test func badInputIsRefusedBeforeAnythingIsSent() async throws {
        let client = try fixture.client()
        for parameters in [
            FirstPartySignInParameters(username: ""),
            FirstPartySignInParameters(username: "ada@example.com", password: ""),
            FirstPartySignInParameters(username: "ada@example.com", scopes: ["bad\"scope"]),
            FirstPartySignInParameters(username: "ada@example.com", additionalParameters: ["Auth_Session": "x"]),
        ] {
            let error = try await #require(throws: WebSignInError.self) {
                try await client.signInFirstParty(parameters)
            }
            #expect(error.isInvalidParameters, "\(parameters)")
        }
        #expect(fixture.paths.isEmpty)
    }

    @Test func theStoredAccountIsRestoredByANewClientAndRefreshed() async throws {
        let result = try await fixture.client().signInFirstParty(
            username: "ada@example.com", password: EmulatorHarness.password, scopes: ["offline_access"])
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in") }
        let requests = tenant.receivedRequests.count
        let client = try fixture.client()
        let restored = try #require(try await client.currentAccount())
        #expect(restored.account == account.account)
        #expect(tenant.receivedRequests.count == requests, "restoring sends nothing")
        var events = client.sessionEvents().makeAsyncIterator()
        fixture.harness.clock.advance(by: 3600)
        let token = try await restored.getAccessToken()
        #expect(!token.accessToken.isEmpty)
        // A new client discovers the provider once, refreshes, and checks the new ID token's signature.
        #expect(
            Array(fixture.paths.dropFirst(requests)) == [fixture.discoveryPath, fixture.tokenPath, fixture.keysPath])
        #expect(try fixture.tokenForm().first { $0.name == "grant_type" }?.value == "refresh_token")
        guard case .tokenRefreshed? = await events.next() else { throw TestFailure("no tokenRefreshed event") }
    }

    @Test func noSecretReachesALogADescriptionOrAnError() async throws {
        let client = try fixture.client()
        guard
            case .challengeRequired(let state) = try await client.signInFirstParty(
                username: "alan@example.com", password: EmulatorHarness.password)
        else { throw TestFailure("expected a challenge") }
        let wrong = try await #require(throws: WebSignInError.self) { try await state.submitCode("99999999") }
        let code = try fixture.harness.code(for: "alan.backup@example.com")
        _ = try await state.submitCode(code)
        let authSession = try #require(try fixture.challengeForm(1).first { $0.name == "auth_session" }?.value)
        let verifier = try #require(try fixture.tokenForm().first { $0.name == "code_verifier" }?.value)
        let authorizationCode = try #require(try fixture.tokenForm().first { $0.name == "code" }?.value)
        let secrets = [EmulatorHarness.password, code, authSession, verifier, authorizationCode]
        var rendered = fixture.harness.logger.records.map { "\($0)" }
        rendered += ["\(state)", String(reflecting: state), "\(wrong)", wrong.debugDescription]
        var dumped = ""
        dump(state, to: &dumped)
        dump(FirstPartySignInParameters(username: "a", password: EmulatorHarness.password), to: &dumped)
        rendered.append(dumped)
        for text in rendered {
            for secret in secrets { #expect(!text.contains(secret), "a secret in: \(text.prefix(200))") }
        }
        #expect(fixture.harness.logger.records.contains { "\($0)".contains("auth_session") }, "names are logged")
    }
}
