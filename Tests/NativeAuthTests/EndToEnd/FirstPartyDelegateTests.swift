import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// A first-party delegate that keeps the one callback it gets and whether it came on the main queue.
@MainActor
final class FirstPartyRecorder: FirstPartySignInDelegate {
    enum Call: Sendable {
        case completed(UserAccountResult)
        case challenge(FirstPartyChallengeState)
        case browser(FirstPartyBrowserRequiredState)
        case error(WebSignInError)
    }

    let latch = Latch<(Call, Bool)>()

    func onWebSignInCompleted(result: UserAccountResult) {
        latch.fulfill((.completed(result), MainQueueCheck.isOnMainQueue))
    }
    func onWebSignInError(error: WebSignInError) { latch.fulfill((.error(error), MainQueueCheck.isOnMainQueue)) }
    func onFirstPartyChallengeRequired(newState: FirstPartyChallengeState) {
        latch.fulfill((.challenge(newState), MainQueueCheck.isOnMainQueue))
    }
    func onFirstPartyBrowserRequired(newState: FirstPartyBrowserRequiredState) {
        latch.fulfill((.browser(newState), MainQueueCheck.isOnMainQueue))
    }

    /// The callback, within the tests' bound.
    nonisolated func call() async throws -> Call {
        guard case .value(let (call, onMain)) = await latch.outcome() else { throw TestFailure("no callback") }
        #expect(onMain, "delegates are called on the main actor")
        return call
    }
}

/// The delegate forms of the first-party client: each step's one outcome, on the main actor.
@Suite("First-party sign-in: delegates", .hangLimit)
struct FirstPartyDelegateTests {
    let fixture = FirstPartyFixture()

    @Test func aPasswordAndACodeThroughTheDelegate() async throws {
        let client = try fixture.client()
        let start = FirstPartyRecorder()
        client.signInFirstParty(
            FirstPartySignInParameters(username: "alan@example.com", password: EmulatorHarness.password),
            delegate: start)
        guard case .challenge(let state) = try await start.call() else { throw TestFailure("expected a challenge") }
        let wrong = FirstPartyRecorder()
        state.submitCode("00000000", delegate: wrong)
        guard case .error(let error) = try await wrong.call() else { throw TestFailure("expected an error") }
        #expect(error.isInvalidGrant, "a wrong code; the state stays usable")
        let right = FirstPartyRecorder()
        state.submitCode(try fixture.harness.code(for: "alan.backup@example.com"), delegate: right)
        guard case .completed(let account) = try await right.call() else { throw TestFailure("expected a sign-in") }
        #expect(account.account.username == "alan@example.com")
    }

    @Test func aStepUpThroughTheDelegate() async throws {
        let client = try fixture.client()
        let account = try await fixture.signIn(client, "ada@example.com")
        let stepUp = FirstPartyRecorder()
        client.signInFirstParty(continuing: account, delegate: stepUp)
        guard case .challenge(let state) = try await stepUp.call() else { throw TestFailure("expected a challenge") }
        let right = FirstPartyRecorder()
        state.submitCode(try fixture.harness.code(for: "ada@example.com"), delegate: right)
        guard case .completed(let again) = try await right.call() else { throw TestFailure("expected a sign-in") }
        #expect(again.account.identifier == account.account.identifier)
    }

    @Test func theBrowserThroughTheDelegate() async throws {
        let client = try fixture.client()
        let start = FirstPartyRecorder()
        client.signInFirstParty(FirstPartySignInParameters(username: FirstPartyFixture.browserUser), delegate: start)
        guard case .browser(let state) = try await start.call() else { throw TestFailure("expected the browser") }
        let done = FirstPartyRecorder()
        state.continueInBrowser(
            using: EmulatedBrowser(tenant: fixture.tenant, password: EmulatorHarness.password), delegate: done)
        guard case .completed(let account) = try await done.call() else { throw TestFailure("expected a sign-in") }
        #expect(account.account.username == FirstPartyFixture.browserUser)
    }

    @Test func noEndpointIsTheErrorCallback() async throws {
        let client = try FirstPartyFixture(endpoint: false).client()
        let start = FirstPartyRecorder()
        client.signInFirstParty(FirstPartySignInParameters(username: "ada@example.com"), delegate: start)
        guard case .error = try await start.call() else { throw TestFailure("expected the error callback") }
    }
}
