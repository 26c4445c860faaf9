// The samples of Docs/Biometrics.md (but one: BiometricsLocalAuthenticationSample.swift), and the
// tests that run them against an emulated tenant.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: biometrics-own-checker
/// Confirms the person with a PIN screen of the app's own.
struct PINPrompt: UserPresenceChecker {
    let askForPIN: @Sendable (_ reason: String) async -> Bool

    func confirmPresence(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation {
        guard await askForPIN(reason) else { throw .cancelled }
        return UserPresenceConfirmation()  // a PIN says nothing of enrolled biometrics
    }
}
// snippet: end

// snippet: biometrics-token
func ordersToken(_ account: UserAccountResult) async throws -> TokenResult? {
    do {
        return try await account.getAccessToken(scopes: ["api://contoso/orders.read"])
    } catch {
        if error.isBiometryChanged {
            // A face or a finger was enrolled since this session began: ask for the password again.
            await account.signOut()
            return nil
        }
        if error.isUserPresenceNotConfirmed {
            // Cancelled, not recognised, locked out, …: the account is kept. Offer to try again.
            return nil
        }
        throw error
    }
}
// snippet: end

// The formatter leaves this alone: the sample keeps its comments as they are.
// swift-format-ignore
// snippet: biometrics-delegate
@MainActor
final class OrdersScreen: CredentialsDelegate {
    private(set) var status = ""

    func load(_ account: UserAccountResult) {
        account.getAccessToken(scopes: ["api://contoso/orders.read"], delegate: self)
    }

    func onAccessTokenRetrieveCompleted(result: TokenResult) {
        status = "Loading your orders…"  // call the API with result.accessToken
    }

    func onAccessTokenRetrieveError(error: RetrieveAccessTokenError) {
        if error.isUserPresenceCancelled {
            status = "Unlock to see your orders."  // the account is kept: offer a button to try again
        } else if error.isUserPresenceLockedOut {
            status = "Face ID is locked: use your passcode, then try again."
        } else if error.isUserPresenceNotConfirmed {
            status = "Could not confirm it is you; try again."
        } else {
            status = error.errorDescription ?? "No token."
        }
    }
}
// snippet: end

// snippet: biometrics-emulated-person
@Test(.timeLimit(.minutes(10)))
func aCancelledFaceIDPromptKeepsTheAccount() async throws {
    let tenant = EmulatedTenant()
    tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
    let person = EmulatedPresenceChecker([.refuse(.cancelled)])  // then confirms
    var configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
    configuration.userPresence = UserPresenceRequirement(policy: .always, reason: "Unlock", checker: person)
    let client = NativeAuthClient(
        configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
    let start = try await client.signIn(
        SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
    guard case .completed(let account) = start else { throw UnexpectedSampleOutcome(description: "\(start)") }

    let refused = await #expect(throws: RetrieveAccessTokenError.self) {
        try await account.getAccessToken(forceRefresh: true)
    }
    #expect(refused?.isUserPresenceCancelled == true)
    #expect(try await client.currentAccount() != nil)  // the account is kept
    _ = try await account.getAccessToken(forceRefresh: true)  // confirmed this time
    #expect(person.calls == 2)
}
// snippet: end

@Suite(.hangLimit)
struct BiometricsSnippetTests {
    /// A client on an emulated tenant whose refreshes ask `checker`, with ada@example.com signed in.
    func signedIn(policy: UserPresencePolicy, checker: any UserPresenceChecker) async throws -> (
        client: NativeAuthClient, clock: ManualClock, account: UserAccountResult
    ) {
        let clock = ManualClock()
        let tenant = EmulatedTenant(
            tenantSubdomain: "contoso", clientId: "emulator-client-id", clock: clock,
            random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
        var configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        configuration.clock = clock
        configuration.userPresence = UserPresenceRequirement(
            policy: policy, reason: "Unlock your orders", checker: checker)
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else { throw UnexpectedSampleOutcome(description: "\(start)") }
        return (client, clock, account)
    }

    @Test func aRefreshAsksTheAppsOwnChecker() async throws {
        let asked = LockedValue<[String]>([])
        let checker = PINPrompt { reason in
            asked.withLock { $0.append(reason) }
            return true
        }
        let (_, _, account) = try await signedIn(policy: .session(timeout: 300), checker: checker)
        #expect(try await ordersToken(account) != nil)
        #expect(try await ordersToken(account) != nil)
        #expect(asked.current == ["Unlock your orders"], "one confirmation for both, within five minutes")
    }

    @Test func aCancelledPromptGivesNoTokenAndKeepsTheAccount() async throws {
        let checker = EmulatedPresenceChecker([.refuse(.cancelled)])
        let (client, _, account) = try await signedIn(policy: .always, checker: checker)
        #expect(try await ordersToken(account) == nil)
        #expect(try await client.currentAccount() != nil)
        #expect(try await ordersToken(account) != nil, "the next call asks again")
    }

    @Test func aChangeOfTheEnrolledBiometrySignsOutInTheSample() async throws {
        let checker = EmulatedPresenceChecker([
            .confirm(biometryState: Data("enrolled-1".utf8)), .confirm(biometryState: Data("enrolled-2".utf8)),
        ])
        let (client, clock, account) = try await signedIn(policy: .always, checker: checker)
        #expect(try await ordersToken(account) != nil)
        clock.advance(by: 3_600)  // the token expired: the next call refreshes, and asks
        #expect(try await ordersToken(account) == nil)
        #expect(try await client.currentAccount() == nil)
    }

    @MainActor
    @Test func theDelegateScreenAsksAgainAfterACancelledPrompt() async throws {
        let checker = EmulatedPresenceChecker([.refuse(.cancelled), .refuse(.lockedOut)])
        let (_, clock, account) = try await signedIn(policy: .always, checker: checker)
        clock.advance(by: 3_600)  // the cached token expired: loading refreshes, and asks
        let screen = OrdersScreen()
        screen.load(account)
        try await requireUntil("the cancelled prompt") { !screen.status.isEmpty }
        #expect(screen.status == "Unlock to see your orders.")
        screen.load(account)
        try await requireUntil("the locked-out prompt") { screen.status.hasPrefix("Face ID is locked") }
        screen.load(account)
        try await requireUntil("the token") { screen.status == "Loading your orders…" }
    }
}
