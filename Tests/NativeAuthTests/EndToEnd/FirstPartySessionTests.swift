import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

extension FirstPartyFixture {
    /// The `auth_session` the credential store holds for the client's account, read from the
    /// account item as the store keeps it.
    func storedAuthSession() async throws -> String? {
        let key = "nativeauth.web.\(tenant.issuer.absoluteString).\(tenant.clientId)"
        let data = try #require(try await store.data(forKey: key))
        return try JSONValue.parse(data)["authSession"]?.stringValue
    }

    /// Signs `username` in with the password, and with the one-time code the tenant then sends to
    /// `codeAddress`, when given.
    func signIn(_ client: WebAuthClient, _ username: String, codeAddress: String? = nil) async throws
        -> UserAccountResult
    {
        let result = try await client.signInFirstParty(
            username: username, password: EmulatorHarness.password, scopes: ["offline_access"])
        switch result {
        case .completed(let account):
            return account
        case .challengeRequired(let state):
            let address = try #require(codeAddress)
            guard case .completed(let account) = try await state.submitCode(harness.code(for: address)) else {
                throw TestFailure("expected a sign-in after the code")
            }
            return account
        default:
            throw TestFailure("expected a sign-in, got \(result)")
        }
    }
}

/// OAuth 2.0 for First-Party Applications §5.3.1 and §6.1: the `auth_session` of the token answer
/// is kept with the account, as a secret, and a later sign-in of the account continues it.
@Suite("First-party sign-in: the account keeps its provider session", .hangLimit)
struct FirstPartySessionTests {
    let fixture = FirstPartyFixture()
    var tenant: EmulatedTenant { fixture.tenant }

    @Test func theTokenAnswersAuthSessionIsStoredAndAStepUpSendsIt() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "alan@example.com", codeAddress: "alan.backup@example.com")
        let stored = try #require(try await fixture.storedAuthSession(), "§6.1: the token answer's auth_session")
        // A new client on the same store restores it with the account.
        let later = try fixture.client()
        let restored = try #require(try await later.currentAccount())
        let before = tenant.receivedRequests.count
        guard case .challengeRequired(let state) = try await later.signInFirstParty(continuing: restored) else {
            throw TestFailure("expected the tenant to ask for the second factor only")
        }
        let first = try fixture.challengeForm(2)
        #expect(
            first.map(\.name) == [
                "response_type", "client_id", "auth_session", "scope", "code_challenge", "code_challenge_method",
                "username",
            ])
        #expect(first.first { $0.name == "auth_session" }?.value == stored)
        #expect(state.isCodeRequired && state.username == "alan@example.com")
        guard
            case .completed(let again) = try await state.submitCode(
                fixture.harness.code(for: "alan.backup@example.com"))
        else { throw TestFailure("expected a sign-in") }
        #expect(again.account.identifier == account.account.identifier)
        // discovery, challenge, challenge, token, keys: a new client discovers and fetches keys once.
        #expect(
            Array(fixture.paths.dropFirst(before)) == [
                fixture.discoveryPath, fixture.challengePath, fixture.challengePath, fixture.tokenPath,
                fixture.keysPath,
            ])
        let rotated = try #require(try await fixture.storedAuthSession())
        #expect(rotated != stored, "§5.3.1: the newest auth_session replaces the one kept")
        // The tenant no longer knows the replaced one.
        let reply = try await tenant.send(
            HTTPRequest(
                method: "POST", url: try #require(URL(string: try fixture.challengeURL())),
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("auth_session=\(stored)&otp=1".utf8)))
        #expect(String(decoding: reply.body, as: UTF8.self).contains("invalid_session"))
    }

    @Test func anAccountWithoutOneSendsNoneAndTheOtherUsersAreRefused() async throws {
        // A browser sign-in's token answer carries none: its account keeps none.
        let client = try fixture.client()
        let account = try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"]),
            using: EmulatedBrowser(tenant: tenant, username: "ada@example.com", password: EmulatorHarness.password))
        #expect(try await fixture.storedAuthSession() == nil)
        _ = try? await client.signInFirstParty(continuing: account, password: EmulatorHarness.password)
        let form = try fixture.challengeForm(0)
        #expect(!form.contains { $0.name == "auth_session" })
        #expect(form.first { $0.name == "username" }?.value == "ada@example.com")

        // An account of another client, or one signed out, is refused before anything is sent.
        let other = try fixture.client()
        let sent = tenant.receivedRequests.count
        let foreign = try await #require(throws: WebSignInError.self) {
            try await other.signInFirstParty(continuing: account)
        }
        #expect(foreign.isInvalidParameters)
        await account.signOut()
        let signedOut = try await #require(throws: WebSignInError.self) {
            try await client.signInFirstParty(continuing: account)
        }
        #expect(signedOut.isInvalidParameters)
        #expect(tenant.receivedRequests.count == sent)
    }

    @Test func signOutRemovesItWithTheAccount() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "ada@example.com")
        #expect(try await fixture.storedAuthSession() != nil)
        let result = await account.signOut()
        #expect(result.removedFromStore)
        let key = "nativeauth.web.\(tenant.issuer.absoluteString).\(tenant.clientId)"
        #expect(try await fixture.store.data(forKey: key) == nil)
    }

    @Test func theAuthSessionReachesNoLogDescriptionOrError() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "alan@example.com", codeAddress: "alan.backup@example.com")
        let stored = try #require(try await fixture.storedAuthSession())
        guard case .challengeRequired(let state) = try await client.signInFirstParty(continuing: account) else {
            throw TestFailure("expected a challenge")
        }
        let wrong = try await #require(throws: WebSignInError.self) { try await state.submitCode("99999999") }
        var rendered = fixture.harness.logger.records.map { "\($0)" }
        rendered += ["\(account)", "\(account.account)", "\(state)", "\(wrong)", wrong.debugDescription]
        var dumped = ""
        dump(account, to: &dumped)
        dump(state, to: &dumped)
        rendered.append(dumped)
        for text in rendered { #expect(!text.contains(stored), "the auth_session in: \(text.prefix(200))") }
    }
}

extension FirstPartyFixture {
    /// The authorization challenge endpoint's URL.
    func challengeURL() throws -> String {
        try #require(tenant.receivedRequests.first { $0.url.path.hasSuffix("/first-party/authorize-challenge") })
            .url.absoluteString
    }
}
