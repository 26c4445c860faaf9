import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("First-party sign-in: redirect_to_web, hostile answers and DPoP on the emulator", .hangLimit)
struct FirstPartyBrowserAndHostileTests {
    let fixture = FirstPartyFixture()
    var tenant: EmulatedTenant { fixture.tenant }
    var browser: EmulatedBrowser { EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password) }

    func browserRequired(_ client: WebAuthClient) async throws -> FirstPartyBrowserRequiredState {
        let result = try await client.signInFirstParty(
            username: FirstPartyFixture.browserUser, password: EmulatorHarness.password, scopes: ["offline_access"])
        guard case .browserRequired(let state) = result else {
            throw TestFailure("expected the browser, got \(result)")
        }
        return state
    }

    @Test func redirectToWebWithoutARequestURIStartsANewBrowserSignIn() async throws {
        let client = try fixture.client()
        let state = try await browserRequired(client)
        #expect(!state.hasRequestURI)
        let account = try await state.continueInBrowser(using: browser)
        #expect(account.account.username == FirstPartyFixture.browserUser)
        let base = fixture.base
        #expect(
            fixture.paths == [
                fixture.discoveryPath, fixture.challengePath, "GET \(base)/oauth2/v2.0/authorize",
                "POST \(base)/login", fixture.tokenPath, fixture.keysPath,
            ])
        let authorize = try #require(tenant.receivedRequests.first { $0.url.path.hasSuffix("/authorize") })
        #expect(authorize.url.query?.contains("login_hint=bo%40example.com") == true)
        #expect(try await client.currentAccount()?.account == account.account)
        let again = try await #require(throws: WebSignInError.self) {
            try await state.continueInBrowser(using: browser)
        }
        #expect(again.isStateAlreadyUsed)
    }

    @Test func redirectToWebWithARequestURIShowsOnlyItAndRedeemsWithTheFirstVerifier() async throws {
        tenant.configure { $0.redirectURIs = [FirstPartyFixture.redirect.absoluteString] }
        let client = try fixture.client()
        let state = try await browserRequired(client)
        #expect(state.hasRequestURI)
        let account = try await state.continueInBrowser(using: browser)
        #expect(account.account.username == FirstPartyFixture.browserUser)
        let authorize = try #require(tenant.receivedRequests.first { $0.url.path.hasSuffix("/authorize") })
        let names = URLComponents(url: authorize.url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name)
        #expect(names == ["client_id", "request_uri"])
        let challenge = try #require(try fixture.challengeForm(0).first { $0.name == "code_challenge" }?.value)
        let token = try fixture.tokenForm()
        #expect(!token.contains { $0.name == "redirect_uri" })
        #expect(PKCE.challenge(for: try #require(token.first { $0.name == "code_verifier" }?.value)) == challenge)
    }

    @Test func closingTheBrowserLeavesTheStateUsableForANewBrowserSignIn() async throws {
        tenant.configure { $0.redirectURIs = [FirstPartyFixture.redirect.absoluteString] }
        let state = try await browserRequired(try fixture.client())
        let closed = try await #require(throws: WebSignInError.self) {
            try await state.continueInBrowser(using: EmulatedBrowser(tenant: tenant, action: .close))
        }
        #expect(closed.isCancelled)
        #expect(!state.hasRequestURI, "a request_uri is tried once")
        let account = try await state.continueInBrowser(using: browser)
        #expect(account.account.username == FirstPartyFixture.browserUser)
    }

    @Test func anExpiredRequestURIIsNotShownAndANewBrowserSignInStarts() async throws {
        tenant.configure { $0.redirectURIs = [FirstPartyFixture.redirect.absoluteString] }
        let state = try await browserRequired(try fixture.client())
        #expect(state.hasRequestURI)
        fixture.harness.clock.advance(by: 60)  // the request_uri's expires_in
        let account = try await state.continueInBrowser(using: browser)
        #expect(account.account.username == FirstPartyFixture.browserUser)
        let authorize = try #require(tenant.receivedRequests.first { $0.url.path.hasSuffix("/authorize") })
        let names = URLComponents(url: authorize.url, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? []
        #expect(!names.contains("request_uri") && names.contains("code_challenge") && names.contains("state"))
    }

    @Test(
        "every hostile answer of the challenge endpoint is a typed error, and nothing is stored",
        arguments: HostileAnswer.allCases)
    func hostileAnswers(_ hostile: HostileAnswer) async throws {
        let client = try fixture.client()
        tenant.force(hostile.forced, on: .authorizationChallenge)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signInFirstParty(username: "ada@example.com", password: EmulatorHarness.password)
        }
        #expect(hostile.check(error), "\(error)")
        #expect(try await client.currentAccount() == nil)
        #expect(!fixture.paths.contains(fixture.tokenPath))
    }

    @Test func aNetworkFailureLeavesAChallengeStateUsable() async throws {
        let client = try fixture.client()
        guard case .challengeRequired(let state) = try await client.signInFirstParty(username: "grace@example.com")
        else { throw TestFailure("expected a challenge") }
        tenant.force(.networkFailure, on: .authorizationChallenge)
        let error = try await #require(throws: WebSignInError.self) {
            try await state.submitCode(try fixture.harness.code(for: "grace@example.com"))
        }
        #expect(error.isNetworkError && error.endpoint == .authorizationChallenge, "\(error)")
        guard case .completed = try await state.submitCode(try fixture.harness.code(for: "grace@example.com")) else {
            throw TestFailure("expected a sign-in")
        }
    }

    @Test func aCancelledTaskSendsNothingAndLeavesTheStateUsable() async throws {
        let client = try fixture.client()
        guard case .challengeRequired(let state) = try await client.signInFirstParty(username: "grace@example.com")
        else { throw TestFailure("expected a challenge") }
        let sent = tenant.receivedRequests.count
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await state.submitCode("12345678")
        }
        let error = try await #require(throws: WebSignInError.self) { try await cancelled.value }
        #expect(error.isCancelled)
        #expect(tenant.receivedRequests.count == sent)
        guard case .completed = try await state.submitCode(try fixture.harness.code(for: "grace@example.com")) else {
            throw TestFailure("expected a sign-in")
        }
    }

    @Test func aSecondActionWhileOneRunsIsRefusedAndSendsNothing() async throws {
        let gate = GatedTransport(tenant)
        let client = try fixture.client(transport: gate)
        guard case .challengeRequired(let state) = try await client.signInFirstParty(username: "grace@example.com")
        else { throw TestFailure("expected a challenge") }
        let code = try fixture.harness.code(for: "grace@example.com")
        gate.close()
        let first = Task { try await state.submitCode(code) }
        await gate.waitUntilHeld(1)
        let busy = try await #require(throws: WebSignInError.self) { try await state.submitCode(code) }
        #expect(busy.isStateBusy)
        #expect(gate.heldCount == 1, "the refused action sent nothing")
        gate.open()
        guard case .completed = try await first.value else { throw TestFailure("expected a sign-in") }
    }

    @Test func withDPoPEveryChallengeRequestAndTheCodeAreBoundToOneKey() async throws {
        tenant.configure { $0.dpop = .required }
        let client = try fixture.client(dpop: DPoPConfiguration(keyProvider: FixtureKeyProvider()))
        guard
            case .challengeRequired(let state) = try await client.signInFirstParty(
                username: "alan@example.com", password: EmulatorHarness.password)
        else { throw TestFailure("expected a challenge") }
        let result = try await state.submitCode(try fixture.harness.code(for: "alan.backup@example.com"))
        guard case .completed(let account) = result else { throw TestFailure("expected a sign-in") }
        #expect(account.account.username == "alan@example.com")
        let posts = tenant.receivedRequests.filter { $0.method == "POST" }
        #expect(posts.count == 3 && posts.allSatisfy { $0.header("DPoP") != nil })
        #expect(try await account.getAccessToken().accessToken.isEmpty == false)
    }

    @Test func aClientWithoutDPoPIsRefusedWhereTheTenantRequiresIt() async throws {
        tenant.configure { $0.dpop = .required }
        let error = try await #require(throws: WebSignInError.self) {
            try await fixture.client().signInFirstParty(username: "ada@example.com", password: EmulatorHarness.password)
        }
        #expect(error.serverError == "invalid_dpop_proof", "\(error)")
    }
}

/// Answers of the challenge endpoint that the SDK must survive.
enum HostileAnswer: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case malformedJSON, oversize, missingCode, emptyCode, errorWithoutName, serverFailure, redirect, timeout
    case unknownError

    var testDescription: String { rawValue }

    var forced: ForcedAnswer {
        let json = ["Content-Type": "application/json"]
        switch self {
        case .malformedJSON: return .raw(status: 200, headers: json, body: Data("{\"authorization_code\":".utf8))
        case .oversize:
            return .raw(status: 200, headers: json, body: Data(repeating: UInt8(ascii: " "), count: 1_048_577))
        case .missingCode: return .raw(status: 200, headers: json, body: Data("{\"code\":\"x\"}".utf8))
        case .emptyCode: return .raw(status: 200, headers: json, body: Data("{\"authorization_code\":\"\"}".utf8))
        case .errorWithoutName: return .raw(status: 400, headers: json, body: Data("{\"auth_session\":\"s\"}".utf8))
        case .serverFailure: return .raw(status: 503, headers: [:], body: Data("<html>busy</html>".utf8))
        case .redirect: return .raw(status: 302, headers: ["Location": "https://evil.example/"], body: Data())
        case .timeout: return .timeout
        case .unknownError:
            return .raw(status: 400, headers: json, body: Data("{\"error\":\"account_locked\"}".utf8))
        }
    }

    func check(_ error: WebSignInError) -> Bool {
        switch self {
        case .malformedJSON, .oversize, .missingCode, .emptyCode, .errorWithoutName, .redirect:
            error.isUnexpectedResponse
        case .serverFailure: error.isServerError && error.httpStatusCode == 503
        case .timeout: error.isNetworkError && error.endpoint == .authorizationChallenge
        case .unknownError: error.isServerError && error.serverError == "account_locked"
        }
    }
}
