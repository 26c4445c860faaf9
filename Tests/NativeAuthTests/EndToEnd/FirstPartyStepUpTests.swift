import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A resource's step-up (RFC 9470), met at the authorization challenge endpoint as OAuth 2.0 for
/// First-Party Applications §7 and Appendix A.7 say: `send` throws the challenge typed, the app
/// continues the account's session with it, the new ID token is checked against it, and the
/// request goes through. Whatever fails, the account stays signed in and nothing new is stored.
@Suite("First-party: a resource's step-up challenge", .hangLimit)
struct FirstPartyStepUpTests {
    let fixture = FirstPartyFixture()
    var tenant: EmulatedTenant { fixture.tenant }
    var resource: HTTPRequest { HTTPRequest(method: "GET", url: tenant.url(for: .resource)) }
    var resourcePath: String { "GET \(tenant.url(for: .resource).path)" }
    static let mfa = EmulatedTenant.multiFactorACR

    /// The stored account item, as bytes.
    func stored() async throws -> Data? {
        try await fixture.store.data(forKey: "nativeauth.web.\(tenant.issuer.absoluteString).\(tenant.clientId)")
    }

    /// `send` to the resource, which must refuse it with a step-up challenge.
    func stepUpError(_ account: UserAccountResult) async throws -> AuthorizedRequestError {
        let error = try await #require(throws: AuthorizedRequestError.self) { try await account.send(resource) }
        #expect(error.isStepUpRequired && error.isInteractionRequired, "\(error)")
        return error
    }

    @Test func theJourneyFromTheResourcesChallengeToTheRequestThatGoesThrough() async throws {
        let client = try fixture.client()
        var events = client.sessionEvents().makeAsyncIterator()
        let account = try await fixture.signIn(client, "ada@example.com")
        guard case .signedIn? = await events.next() else { throw TestFailure("no signedIn event") }
        #expect(try await account.send(resource).statusCode == 200)
        tenant.requireStepUp(acrValues: [Self.mfa], maxAge: 300)
        let before = tenant.receivedRequests.count
        let error = try await stepUpError(account)
        let challenge = try #require(error.stepUpChallenge)
        #expect(challenge.acrValues == [Self.mfa] && challenge.maxAge == 300)
        #expect(fixture.paths.dropFirst(before) == [resourcePath], "no refresh, no retry")

        // The step-up continues the provider's session with the challenge (the draft's §7, A.7).
        guard
            case .challengeRequired(let state) = try await client.signInFirstParty(
                continuing: account, stepUp: challenge)
        else { throw TestFailure("expected a code to be asked for") }
        #expect(state.isCodeRequired)
        let first = try fixture.challengeForm(1)
        #expect(first.first { $0.name == "acr_values" }?.value == Self.mfa)
        #expect(first.first { $0.name == "max_age" }?.value == "300")
        #expect(first.contains { $0.name == "auth_session" })
        guard case .completed(let stronger) = try await state.submitCode(fixture.harness.code(for: "ada@example.com"))
        else { throw TestFailure("expected a sign-in") }
        #expect(stronger.account.identifier == account.account.identifier)
        // The same account object goes through now: the tokens were replaced underneath it.
        #expect(try await account.send(resource).statusCode == 200)
        #expect(
            fixture.paths.dropFirst(before) == [
                resourcePath, fixture.challengePath, fixture.challengePath, fixture.tokenPath, resourcePath,
            ])
        guard case .signedIn? = await events.next() else { throw TestFailure("the step-up is a sign-in") }
    }

    @Test func aStaleAuthTimeIsRefusedTypedAndNothingIsStored() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "alan@example.com", codeAddress: "alan.backup@example.com")
        fixture.harness.clock.advance(by: 3_600)
        tenant.requireStepUp(maxAge: 300)
        let challenge = try #require(try await stepUpError(account).stepUpChallenge)
        #expect(challenge == StepUpChallenge(maxAge: 300, message: "More recent authentication is required"))
        let before = try await stored()
        // A provider that ignores max_age restores the session with its hour-old authentication.
        tenant.ignoreNextMaxAge()
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signInFirstParty(continuing: account, stepUp: challenge)
        }
        #expect(error.isInvalidIDToken && error.failedIDTokenCheck == .authTime, "\(error)")
        #expect(try await stored() == before, "nothing stored")
        #expect(try await client.currentAccount()?.account.identifier == account.account.identifier, "still signed in")
        // The account's tokens are what they were: the resource still asks for the step-up.
        #expect(try await stepUpError(account).stepUpChallenge == challenge)
    }

    @Test func anACROutsideTheChallengesValuesIsRefused() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "ada@example.com")
        tenant.requireStepUp(acrValues: ["urn:example:gold"])
        let challenge = try #require(try await stepUpError(account).stepUpChallenge)
        let before = try await stored()
        guard
            case .challengeRequired(let state) = try await client.signInFirstParty(
                continuing: account, stepUp: challenge)
        else { throw TestFailure("expected a code to be asked for") }
        // The tenant knows no such level: it signs Ada in with two factors, which is not it.
        let error = try await #require(throws: WebSignInError.self) {
            try await state.submitCode(fixture.harness.code(for: "ada@example.com"))
        }
        #expect(error.failedIDTokenCheck == .authenticationContext, "\(error)")
        #expect(try await stored() == before)
        #expect(try await client.currentAccount()?.account == account.account)
    }

    @Test func aChallengeOnTheDPoPSchemeIsMetWithTheAccountsKey() async throws {
        tenant.configure { $0.dpop = .required }
        let client = try fixture.client(dpop: DPoPConfiguration(keyProvider: FixtureKeyProvider()))
        let account = try await fixture.signIn(client, "ada@example.com")
        tenant.requireStepUp(acrValues: [Self.mfa])
        let before = tenant.receivedRequests.count
        let error = try await stepUpError(account)
        let refusal = try #require(tenant.receivedRequests.dropFirst(before).first)
        #expect(refusal.header("Authorization")?.hasPrefix("DPoP ") == true)
        guard
            case .challengeRequired(let state) = try await client.signInFirstParty(
                continuing: account, stepUp: error.stepUpChallenge)
        else { throw TestFailure("expected a code to be asked for") }
        _ = try await state.submitCode(fixture.harness.code(for: "ada@example.com"))
        #expect(try await account.send(resource).statusCode == 200)
    }

    @Test func aStepUpTheAppCannotSendIsRefusedBeforeAnythingIsSent() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "ada@example.com")
        let before = tenant.receivedRequests.count
        for (stepUp, extra) in [
            (StepUpChallenge(maxAge: -1), [:]), (StepUpChallenge(acrValues: ["a b"]), [:]),
            (StepUpChallenge(acrValues: ["urn:a"]), ["ACR_VALUES": "urn:b"]), (StepUpChallenge(), ["max_age": "1"]),
        ] {
            let error = try await #require(throws: WebSignInError.self) {
                try await client.signInFirstParty(continuing: account, stepUp: stepUp, additionalParameters: extra)
            }
            #expect(error.isInvalidParameters, "\(stepUp) \(extra)")
        }
        #expect(tenant.receivedRequests.count == before)
        // Without a step-up, acr_values and max_age may still go as the provider's own parameters.
        guard
            case .challengeRequired = try await client.signInFirstParty(
                continuing: account, additionalParameters: ["acr_values": Self.mfa])
        else { throw TestFailure("expected a code to be asked for") }
    }

    @Test func aBrowserStepUpCarriesTheChallengeToo() async throws {
        let fixture = FirstPartyFixture(endpoint: false)
        let tenant = fixture.tenant
        let client = try fixture.client()
        let browser = EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password)
        let ada = try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com"), using: browser)
        tenant.requireStepUp(acrValues: [Self.mfa], maxAge: 300)
        let request = HTTPRequest(method: "GET", url: tenant.url(for: .resource))
        let error = try await #require(throws: AuthorizedRequestError.self) { try await ada.send(request) }
        let challenge = try #require(error.stepUpChallenge)
        // No endpoint to continue at: the first-party step-up says so, and sends nothing.
        let unsupported = try await #require(throws: WebSignInError.self) {
            try await client.signInFirstParty(continuing: ada, stepUp: challenge)
        }
        #expect(unsupported.isUnsupported)
        // In the browser, Ada signs in with her password alone: one factor, which the check refuses.
        let oneFactor = try await #require(throws: WebSignInError.self) {
            try await client.signIn(
                WebSignInParameters(stepUp: challenge, scopes: ["offline_access"], loginHint: "ada@example.com"),
                using: browser)
        }
        #expect(oneFactor.failedIDTokenCheck == .authenticationContext)
        #expect(try await client.currentAccount()?.account == ada.account)
        // Alan's second factor meets it.
        let alan = try await client.signIn(
            WebSignInParameters(stepUp: challenge, scopes: ["offline_access"], loginHint: "alan@example.com"),
            using: browser)
        #expect(try await alan.send(request).statusCode == 200)
    }
}
