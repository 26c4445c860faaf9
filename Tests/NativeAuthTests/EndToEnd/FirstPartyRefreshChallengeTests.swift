import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// OAuth 2.0 for First-Party Applications §6.2 (Appendix A.6, B.4): a refresh answered
/// `insufficient_authorization` with an `auth_session` is a typed error that hands the app the
/// state to go on with, and the stored credentials stay.
@Suite("First-party: a refresh answered with an authorization challenge", .hangLimit)
struct FirstPartyRefreshChallengeTests {
    let fixture = FirstPartyFixture()
    var tenant: EmulatedTenant { fixture.tenant }

    /// The continuation of a refresh the tenant was told to challenge.
    func challengedRefresh(of account: UserAccountResult) async throws -> (
        RetrieveAccessTokenError, FirstPartyChallengeState
    ) {
        tenant.challengeNextRefresh(of: account.account.username)
        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        guard case .challengeRequired(let state)? = error.firstPartyContinuation else {
            throw TestFailure("expected a challenge state, got \(String(describing: error.firstPartyContinuation))")
        }
        return (error, state)
    }

    @Test func theRefreshErrorHandsBackAStateAndTheAccountIsKept() async throws {
        let client = try fixture.client()
        var events = client.sessionEvents().makeAsyncIterator()
        let account = try await fixture.signIn(client, "ada@example.com")
        guard case .signedIn? = await events.next() else { throw TestFailure("no signedIn event") }
        let before = tenant.receivedRequests.count
        let (error, state) = try await challengedRefresh(of: account)
        #expect(error.isInteractionRequired && error.isAuthorizationChallengeRequired)
        #expect(!error.isRefreshTokenExpired)
        #expect((error.details.underlyingError as? WebSignInError)?.serverError == "insufficient_authorization")
        #expect(state.isCodeRequired && state.username == "ada@example.com")
        #expect(state.parameters == ["otp_required": .bool(true)], "the draft's own answer: \(state.parameters)")
        #expect(state.correlationId == error.correlationId)
        // Nothing was lost: the account is still signed in, and a later refresh works.
        #expect(try await client.currentAccount()?.account == account.account)
        let key = "nativeauth.web.\(tenant.issuer.absoluteString).\(tenant.clientId)"
        #expect(try await fixture.store.data(forKey: key) != nil)
        #expect(!(try await account.getAccessToken(forceRefresh: true)).accessToken.isEmpty)

        // The state's first request opens the authorization: the auth_session, scope, PKCE, the code.
        guard case .completed(let again) = try await state.submitCode(fixture.harness.code(for: "ada@example.com"))
        else { throw TestFailure("expected a sign-in") }
        #expect(again.account.identifier == account.account.identifier)
        let form = try fixture.challengeForm(1)
        #expect(
            form.map(\.name) == [
                "response_type", "client_id", "auth_session", "scope", "code_challenge", "code_challenge_method",
                "otp",
            ])
        #expect(form.first { $0.name == "scope" }?.value == "openid offline_access")
        // token (challenged), token (refreshed), challenge, token: discovery and keys were kept.
        #expect(
            Array(fixture.paths.dropFirst(before)) == [
                fixture.tokenPath, fixture.tokenPath, fixture.challengePath, fixture.tokenPath,
            ])
        #expect(try fixture.tokenForm().first { $0.name == "grant_type" }?.value == "authorization_code")
        var seen: [String] = []
        while let event = await events.next() {
            switch event {
            case .signedOut: seen.append("signedOut")
            case .signedIn: seen.append("signedIn")
            default: seen.append("other")
            }
            if seen.last == "signedIn" { break }
        }
        #expect(!seen.contains("signedOut"), "a challenged refresh never signs the user out")
    }

    @Test func aWrongCodeLeavesTheStateUsableAndASecondFactorIsAskedAgain() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "alan@example.com", codeAddress: "alan.backup@example.com")
        let (_, state) = try await challengedRefresh(of: account)
        let wrong = try await #require(throws: WebSignInError.self) { try await state.submitCode("00000000") }
        #expect(wrong.isInvalidGrant && !state.isSpent)
        guard
            case .completed = try await state.submitCode(fixture.harness.code(for: "alan.backup@example.com"))
        else { throw TestFailure("expected a sign-in") }
        // Both tries opened the authorization: a wrong code leaves the tenant nothing to go on with.
        #expect(try fixture.challengeForm(2).contains { $0.name == "code_challenge" })
        #expect(try fixture.challengeForm(3).contains { $0.name == "code_challenge" })
        let spent = try await #require(throws: WebSignInError.self) { try await state.submitCode("1") }
        #expect(spent.isStateAlreadyUsed)
    }

    @Test func anAPIRequestWhoseRefreshIsChallengedSaysSoToo() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "ada@example.com")
        tenant.challengeNextRefresh(of: "ada@example.com")
        fixture.harness.clock.advance(by: 7200)
        let before = tenant.receivedRequests.count
        let error = try await #require(throws: AuthorizedRequestError.self) {
            try await account.send(HTTPRequest(method: "GET", url: tenant.url(for: .resource)))
        }
        #expect(error.isInteractionRequired && error.isAuthorizationChallengeRequired)
        guard case .challengeRequired(let state)? = error.firstPartyContinuation else {
            throw TestFailure("expected a challenge state")
        }
        #expect(state.isCodeRequired)
        #expect(fixture.paths.dropFirst(before) == [fixture.tokenPath], "nothing went to the API")
    }

    /// At a provider without the endpoint: Ada signed in in the browser, her refresh challenged,
    /// and the browser state it offers.
    func browserChallengedRefresh() async throws
        -> (FirstPartyFixture, WebAuthClient, UserAccountResult, FirstPartyBrowserRequiredState)
    {
        let fixture = FirstPartyFixture(endpoint: false)
        let client = try fixture.client()
        let account = try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"]),
            using: EmulatedBrowser(
                tenant: fixture.tenant, username: "ada@example.com", password: EmulatorHarness.password))
        fixture.tenant.challengeNextRefresh(of: "ada@example.com")
        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        guard case .browserRequired(let state)? = error.firstPartyContinuation else {
            throw TestFailure("expected the browser")
        }
        return (fixture, client, account, state)
    }

    @Test func withoutAnEndpointTheBrowserFinishesIt() async throws {
        let (fixture, _, account, state) = try await browserChallengedRefresh()
        #expect(!state.hasRequestURI && state.username == "ada@example.com")
        let again = try await state.continueInBrowser(
            using: EmulatedBrowser(tenant: fixture.tenant, password: EmulatorHarness.password))
        #expect(again.account.identifier == account.account.identifier)
    }

    /// The browser that finishes a refresh's challenge must sign the account's user in again:
    /// another user is refused by the ID token's `sub`, nothing is stored, and the account stays.
    @Test func theBrowserThatFinishesItMustSignTheSameUserIn() async throws {
        let (fixture, client, account, state) = try await browserChallengedRefresh()
        let refused = try await #require(throws: WebSignInError.self) {
            try await state.continueInBrowser(
                using: EmulatedBrowser(
                    tenant: fixture.tenant, username: "alan@example.com", password: EmulatorHarness.password))
        }
        #expect(refused.isInvalidIDToken && refused.failedIDTokenCheck == .subject, "\(refused)")
        let kept = try #require(await client.currentAccount())
        #expect(kept.account.identifier == account.account.identifier)
        #expect(kept.account.username == "ada@example.com")
    }

    @Test func theDraftsAnswerReadAsItComesAndNoSecretShown() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "ada@example.com")
        let stored = try #require(try await fixture.storedAuthSession())
        let (error, state) = try await challengedRefresh(of: account)
        let code = try fixture.harness.code(for: "ada@example.com")
        var rendered = fixture.harness.logger.records.map { "\($0)" }
        rendered += ["\(error)", error.debugDescription, error.errorDescription ?? "", "\(state)"]
        var dumped = ""
        dump(error, to: &dumped)
        rendered.append(dumped)
        _ = try await state.submitCode(code)
        let sent = try #require(try fixture.challengeForm(1).first { $0.name == "auth_session" }?.value)
        #expect(sent != stored, "the refresh answer's auth_session, the newest one")
        for text in rendered {
            for secret in [stored, sent, code] { #expect(!text.contains(secret), "a secret in: \(text.prefix(200))") }
        }
    }

    @Test func anAnswerWithoutAnAuthSessionGoesOnWithTheOneTheAccountKeeps() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "ada@example.com")
        let stored = try #require(try await fixture.storedAuthSession())
        tenant.force(
            .raw(
                status: 403, headers: ["Content-Type": "application/json"],
                body: Data(#"{"error":"insufficient_authorization","otp_required":true}"#.utf8)),
            on: .token)
        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        guard case .challengeRequired(let state)? = error.firstPartyContinuation else {
            throw TestFailure("expected a challenge state")
        }
        #expect(state.isCodeRequired && state.message == nil)
        _ = try? await state.submitCode("12345678")
        let form = try fixture.challengeForm(1)
        #expect(form.first { $0.name == "auth_session" }?.value == stored)
        #expect(!form.contains { $0.name == "username" }, "the auth_session names the user")
    }

    @Test func otherRefusalsAreNotAChallenge() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "ada@example.com")
        tenant.force(.error("interaction_required", status: 400), on: .token)
        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(error.isInteractionRequired && !error.isAuthorizationChallengeRequired)
        #expect(error.firstPartyContinuation == nil)
    }
}
