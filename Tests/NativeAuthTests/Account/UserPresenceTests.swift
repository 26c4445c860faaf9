import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The person's confirmation before a refresh: what asks (a refresh, never a cached token), how
/// long a confirmation lasts under each policy (on the client's clock), one confirmation for every
/// concurrent caller, every refusal typed with the account and its stored credentials kept, the
/// biometry a session keeps, and a caller who gives up.
@Suite("Account: the person's confirmation before a refresh", .hangLimit)
struct UserPresenceTests {
    let transport = ScriptedTransport()
    let gate: GatedTransport
    let clock = TestClock()
    let store = InMemoryCredentialStore()
    let checker: ScriptedPresenceChecker

    init() {
        gate = GatedTransport(transport)
        checker = ScriptedPresenceChecker()
    }

    func makeClient(_ policy: UserPresencePolicy, checker: ScriptedPresenceChecker? = nil) -> NativeAuthClient {
        var configuration = testConfiguration()
        configuration.clock = clock
        configuration.userPresence = UserPresenceRequirement(
            policy: policy, reason: "Unlock your orders", checker: checker ?? self.checker)
        return NativeAuthClient(configuration: configuration, transport: gate, credentialStore: store)
    }

    func storedRecord() async throws -> AccountRecord? {
        guard let data = try await store.data(forKey: "nativeauth.account.client-1") else { return nil }
        return try AccountRecord(storedJSON: data)
    }

    var tokenRequests: Int { transport.requests.filter { $0.url.path.hasSuffix("/token") }.count }

    /// A forced refresh that the test expects to succeed with `access`.
    func refresh(_ account: UserAccountResult, to access: String) async throws {
        transport.then("token", .tokens(access: access, refresh: "refresh-\(access)"))
        #expect(try await account.getAccessToken(forceRefresh: true).accessToken == access)
    }

    static let policies: [UserPresencePolicy] = [.always, .session(timeout: 300), .appLaunch(timeout: 300)]

    // MARK: What asks

    @Test(arguments: policies)
    func aCachedTokenAndASignInNeedNoConfirmation(policy: UserPresencePolicy) async throws {
        let client = makeClient(policy)
        let account = try await transport.signIn(client)
        #expect(try await account.getAccessToken().accessToken == "access-1")
        clock.advance(by: 3_600 - 301)  // still outside the refresh margin
        #expect(try await account.getAccessToken().accessToken == "access-1")
        #expect(try await client.currentAccount()?.getAccessToken().accessToken == "access-1")
        #expect(checker.calls == 0)
    }

    @Test(arguments: policies)
    func anExpiredTokenAForcedRefreshAndAClaimsRequestAsk(policy: UserPresencePolicy) async throws {
        let account = try await transport.signIn(makeClient(policy))
        clock.advance(by: 3_600)
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        #expect(try await account.getAccessToken().accessToken == "access-2")
        #expect(checker.calls == 1)
        #expect(checker.reasons == ["Unlock your orders"])
        try await refresh(account, to: "access-3")
        transport.then("token", .tokens(access: "access-4", refresh: "refresh-4"))
        _ = try await account.getAccessToken(claims: #"{"access_token":{"acrs":{"essential":true}}}"#)
        // Always: each refresh asked; the others: the first confirmation still counts.
        #expect(checker.calls == (policy == .always ? 3 : 1))
    }

    @Test func signingOutNeedsNoConfirmation() async throws {
        let account = try await transport.signIn(makeClient(.always))
        #expect(await account.signOut().wasSignedIn)
        #expect(checker.calls == 0)
    }

    @Test func withNoRefreshTokenStoredNothingIsAskedAndTheAccountSignsOut() async throws {
        let account = try await transport.signIn(
            makeClient(.always), tokens: .tokens(access: "access-1", refresh: nil))
        clock.advance(by: 3_600)
        let error = await #expect(throws: RetrieveAccessTokenError.self) { try await account.getAccessToken() }
        #expect(error?.isRefreshTokenExpired == true)
        #expect(checker.calls == 0)
    }

    // MARK: How long a confirmation lasts

    @Test func sessionAConfirmationLastsItsTimeoutFromWhenItWasGiven() async throws {
        let account = try await transport.signIn(makeClient(.session(timeout: 300)))
        try await refresh(account, to: "access-2")
        clock.advance(by: 299)
        try await refresh(account, to: "access-3")
        #expect(checker.calls == 1)
        clock.advance(by: 1)  // 300 s after the confirmation: it no longer counts
        try await refresh(account, to: "access-4")
        #expect(checker.calls == 2)
        clock.advance(by: 299)
        try await refresh(account, to: "access-5")
        #expect(checker.calls == 2)
    }

    @Test func sessionASignOutOrANewSignInEndsTheConfirmation() async throws {
        let client = makeClient(.session(timeout: 3_600))
        let account = try await transport.signIn(client)
        try await refresh(account, to: "access-2")
        #expect(checker.calls == 1)
        await account.signOut()
        let again = try await transport.signIn(client)
        try await refresh(again, to: "access-3")
        #expect(checker.calls == 2, "a new session asks again")
        // A new sign-in without a sign-out replaces the session too.
        let replaced = try await transport.signIn(client)
        try await refresh(replaced, to: "access-4")
        #expect(checker.calls == 3)
    }

    @Test func appLaunchAConfirmationOutlivesASignOutButNotItsTimeoutNorTheClient() async throws {
        let client = makeClient(.appLaunch(timeout: 600))
        let account = try await transport.signIn(client)
        try await refresh(account, to: "access-2")
        await account.signOut()
        let again = try await transport.signIn(client)
        try await refresh(again, to: "access-3")
        #expect(checker.calls == 1, "the launch's confirmation counts for the new session")
        clock.advance(by: 600)
        try await refresh(again, to: "access-4")
        #expect(checker.calls == 2)
        // A new client (a relaunch) on the same store asks again.
        let relaunched = try #require(try await makeClient(.appLaunch(timeout: 600)).currentAccount())
        try await refresh(relaunched, to: "access-5")
        #expect(checker.calls == 3)
    }

    @Test func appLaunchWithAnInfiniteTimeoutAsksOncePerClient() async throws {
        let account = try await transport.signIn(makeClient(.appLaunch(timeout: .infinity)))
        try await refresh(account, to: "access-2")
        clock.advance(by: 86_400 * 365)
        try await refresh(account, to: "access-3")
        #expect(checker.calls == 1)
    }

    @Test(arguments: [UserPresencePolicy.session(timeout: 300), .appLaunch(timeout: 300)])
    func resettingForgetsTheConfirmation(policy: UserPresencePolicy) async throws {
        let client = makeClient(policy)
        let account = try await transport.signIn(client)
        try await refresh(account, to: "access-2")
        client.resetUserPresence()
        try await refresh(account, to: "access-3")
        #expect(checker.calls == 2)
    }

    @Test func aConfirmationDatedInTheFutureDoesNotCount() async throws {
        let account = try await transport.signIn(makeClient(.session(timeout: 300)))
        try await refresh(account, to: "access-2")
        clock.advance(by: -10)  // the device's clock was set back
        try await refresh(account, to: "access-3")
        #expect(checker.calls == 2)
    }

    @Test func theConfirmationHasNoDeadlineOnTheClientsClock() async throws {
        let account = try await transport.signIn(makeClient(.always))
        checker.close()
        let waiting = Task { try await account.getAccessToken(forceRefresh: true).accessToken }
        await checker.waitUntilHeld(1)
        clock.advance(by: 3_600)  // an hour with the prompt up
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        checker.open()
        #expect(try await waiting.value == "access-2")
    }

    // MARK: One confirmation for every caller

    @Test(arguments: policies)
    func concurrentCallersShareOneConfirmationAndOneRefresh(policy: UserPresencePolicy) async throws {
        let account = try await transport.signIn(makeClient(policy))
        clock.advance(by: 3_600)
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        let before = tokenRequests
        checker.close()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 {
                group.addTask { try await account.getAccessToken().accessToken }
            }
            await checker.waitUntilHeld(1)
            #expect(tokenRequests == before, "nothing is sent before the confirmation")
            checker.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens.count == 200 && Set(tokens) == ["access-2"])
        #expect(checker.calls == 1)
        #expect(tokenRequests == before + 1)
    }

    @Test func refreshesOfOtherScopesShareAConfirmationUnderWay() async throws {
        let account = try await transport.signIn(makeClient(.always))
        transport.then("token", .tokens(access: "orders", refresh: "refresh-2", scope: "orders.read"))
        transport.then("token", .tokens(access: "invoices", refresh: "refresh-3", scope: "invoices.read"))
        checker.close()
        async let orders = account.getAccessToken(scopes: ["orders.read"])
        async let invoices = account.getAccessToken(scopes: ["invoices.read"])
        await checker.waitUntilHeld(1)
        try await requireUntil("both refreshes wait for the confirmation") {
            account.manager.presence.waiterCount == 2
        }
        checker.open()
        let both = try await [orders.accessToken, invoices.accessToken]
        #expect(Set(both) == ["orders", "invoices"])
        #expect(checker.calls == 1)
    }

    // MARK: Refusals

    static let refusals: [UserPresenceError] = [
        .cancelled, .lockedOut, .notEnrolled, .unavailable, .failed, .biometryChanged,
    ]

    @Test(arguments: refusals)
    func eachRefusalIsTypedAndKeepsTheAccountAndItsCredentials(refusal: UserPresenceError) async throws {
        let client = makeClient(.session(timeout: 300))
        let account = try await transport.signIn(client)
        let storedBefore = try await storedRecord()
        let before = tokenRequests
        checker.then(.refused(refusal))
        let error = try #require(
            await #expect(throws: RetrieveAccessTokenError.self) {
                try await account.getAccessToken(forceRefresh: true)
            })
        #expect(error.isUserPresenceNotConfirmed)
        let answers = [
            error.isUserPresenceCancelled, error.isUserPresenceLockedOut, error.isUserPresenceNotEnrolled,
            error.isUserPresenceUnavailable, error.isUserPresenceFailed, error.isBiometryChanged,
        ]
        let expected = Self.refusals.map { $0 == refusal }
        #expect(answers == expected)
        #expect(!error.isCancelled && !error.isRefreshTokenExpired && !error.isNoAccount)
        #expect(error.details.underlyingError as? UserPresenceError == refusal)
        #expect(error.isStateStillUsable)
        #expect(tokenRequests == before, "nothing is sent")
        // The account and everything stored are kept.
        #expect(try await storedRecord() == storedBefore)
        #expect(try await client.currentAccount()?.account == account.account)
        #expect(try await account.getAccessToken().accessToken == "access-1", "the cached token still serves")
        // A refusal is no confirmation: the next refresh asks again, and can succeed.
        try await refresh(account, to: "access-2")
        #expect(checker.calls == 2)
    }

    @Test func aRefusalReachesAuthorizedRequestsAndTheirErrorToo() async throws {
        let account = try await transport.signIn(makeClient(.always))
        clock.advance(by: 3_600)
        checker.then(.refused(.lockedOut))
        let request = HTTPRequest(method: "GET", url: URL(string: "https://api.example.com/orders")!)
        let error = await #expect(throws: AuthorizedRequestError.self) {
            try await account.send(request, using: transport)
        }
        #expect(error?.isUserPresenceLockedOut == true)
        #expect(error?.isUserPresenceNotConfirmed == true)
    }

    @Test func theDescriptionNamesTheReasonAndHoldsNoSecret() async throws {
        let account = try await transport.signIn(makeClient(.always))
        checker.then(.refused(.biometryChanged))
        let error = await #expect(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        let text = "\(String(describing: error)) \(String(reflecting: error))"
        #expect(text.contains("biometrics changed"))
        for secret in ["access-1", "refresh-1", "Unlock your orders"] { #expect(!text.contains(secret)) }
    }

    // MARK: The biometry a session keeps

    @Test func aChangeOfTheEnrolledBiometryIsRefusedUntilANewSignIn() async throws {
        let client = makeClient(.always)
        let account = try await transport.signIn(client)
        let faceA = Data("face-a".utf8)
        let faceB = Data("face-b".utf8)
        checker.then(.confirmed(biometryState: faceA))
        try await refresh(account, to: "access-2")
        #expect(try await storedRecord()?.biometryState == faceA, "kept with the stored account")
        // Another face enrolled: refused, nothing sent, the account kept.
        let before = tokenRequests
        checker.then(.confirmed(biometryState: faceB))
        let error = await #expect(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(error?.isBiometryChanged == true)
        #expect(tokenRequests == before)
        #expect(try await storedRecord()?.refreshToken == "refresh-access-2")
        // A checker that cannot tell (no state) is not refused; the kept state stays.
        checker.then(.confirmed(biometryState: nil))
        try await refresh(account, to: "access-3")
        #expect(try await storedRecord()?.biometryState == faceA)
        // A relaunched client still knows the session's biometry.
        let relaunched = try #require(try await makeClient(.always).currentAccount())
        checker.then(.confirmed(biometryState: faceB))
        let afterRelaunch = await #expect(throws: RetrieveAccessTokenError.self) {
            try await relaunched.getAccessToken(forceRefresh: true)
        }
        #expect(afterRelaunch?.isBiometryChanged == true)
        // A new sign-in is a new session: it takes the biometry enrolled now.
        let again = try await transport.signIn(client)
        #expect(try await storedRecord()?.biometryState == nil)
        checker.then(.confirmed(biometryState: faceB))
        try await refresh(again, to: "access-4")
        #expect(try await storedRecord()?.biometryState == faceB)
    }

    @Test func aBiometryChangeDoesNotCountAsAConfirmation() async throws {
        let client = makeClient(.session(timeout: 300))
        let account = try await transport.signIn(client)
        checker.then(.confirmed(biometryState: Data("a".utf8)))
        try await refresh(account, to: "access-2")
        client.resetUserPresence()
        checker.then(.confirmed(biometryState: Data("b".utf8)))
        await #expect(throws: RetrieveAccessTokenError.self) { try await account.getAccessToken(forceRefresh: true) }
        checker.then(.confirmed(biometryState: Data("a".utf8)))
        try await refresh(account, to: "access-3")
        #expect(checker.calls == 3)
    }

    // MARK: A caller who gives up

    @Test func cancellingTheCallerEndsTheWaitCancelsThePromptAndKeepsTheAccount() async throws {
        let client = makeClient(.always)
        let account = try await transport.signIn(client)
        let before = tokenRequests
        checker.close()
        let waiting = Task { try await account.getAccessToken(forceRefresh: true) }
        await checker.waitUntilHeld(1)
        waiting.cancel()
        let error = await #expect(throws: RetrieveAccessTokenError.self) { try await waiting.value }
        #expect(error?.isCancelled == true)
        try await requireUntil("the prompt is cancelled") { checker.cancellations == 1 }
        #expect(tokenRequests == before)
        #expect(try await client.currentAccount() != nil)
        #expect(try await storedRecord()?.refreshToken == "refresh-1")
        // The next call asks again and succeeds.
        checker.open()
        try await refresh(account, to: "access-2")
        #expect(checker.calls == 2)
    }

    @Test func aPromptThatIgnoresCancellationStillLetsTheCallerGoAndItsAnswerCountsForNothing() async throws {
        let deaf = ScriptedPresenceChecker(ignoresCancellation: true)
        let account = try await transport.signIn(makeClient(.session(timeout: 300), checker: deaf))
        let before = tokenRequests
        deaf.close()
        let waiting = Task { try await account.getAccessToken(forceRefresh: true) }
        await deaf.waitUntilHeld(1)
        waiting.cancel()
        let error = await #expect(throws: RetrieveAccessTokenError.self) { try await waiting.value }
        #expect(error?.isCancelled == true)
        // The dropped refresh sent nothing; a new call asks anew, and the late answer of the
        // first prompt (a confirmation) counts for nothing.
        let next = Task { try await account.getAccessToken(forceRefresh: true).accessToken }
        await deaf.waitUntilHeld(2)
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        deaf.open()
        #expect(try await next.value == "access-2")
        #expect(tokenRequests == before + 1)
        #expect(deaf.calls == 2)
    }

    @Test func oneCallerLeavingDoesNotEndThePromptForTheOthers() async throws {
        let account = try await transport.signIn(makeClient(.always))
        checker.close()
        let staying = Task { try await account.getAccessToken(forceRefresh: true).accessToken }
        await checker.waitUntilHeld(1)
        let leaving = Task { try await account.getAccessToken(forceRefresh: true) }
        try await requireEventually("both callers wait for the one refresh") {
            await account.manager.coalescer.waiterCount == 2
        }
        leaving.cancel()
        await #expect(throws: RetrieveAccessTokenError.self) { try await leaving.value }
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        checker.open()
        #expect(try await staying.value == "access-2")
        #expect(checker.cancellations == 0)
        #expect(checker.calls == 1)
    }

    @Test func aCallerAlreadyCancelledStartsNoPrompt() async throws {
        let account = try await transport.signIn(makeClient(.always))
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await account.getAccessToken(forceRefresh: true)
        }.result
        #expect(throws: RetrieveAccessTokenError.self) { try result.get() }
        // The refresh was dropped before its task ran: no prompt, nothing sent, none in flight.
        try await requireEventually("the dropped refresh is gone") {
            await account.manager.coalescer.waiterCount == 0 && account.manager.presence.waiterCount == 0
        }
        #expect(checker.calls == 0)
    }
}
