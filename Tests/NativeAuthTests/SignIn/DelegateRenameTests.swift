import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Records one call at a time: the method's name and what it carried.
@MainActor
class CallRecorder {
    var calls: [String] = []
    var values: [String: Any] = [:]
    private var waiter: Latch<Void>?

    /// Runs `action` and waits, bounded, for the next delegate call.
    func next(sourceLocation: SourceLocation = #_sourceLocation, _ action: () -> Void) async throws {
        let latch = Latch<Void>()
        waiter = latch
        action()
        try await latch.require("a delegate call after \(calls)", sourceLocation: sourceLocation)
    }

    func record(_ name: String, _ value: Any? = nil, _ extra: (String, Any?)? = nil) {
        calls.append(name)
        values[name] = value
        if let extra { values[extra.0] = extra.1 }
        waiter?.fulfill(())
        waiter = nil
    }
}

/// Implements the error methods by their current names.
@MainActor
final class CurrentNamesDelegate: CallRecorder, MFARequestChallengeDelegate, RegisterStrongAuthChallengeDelegate {
    func onMFARequestChallengeError(error: MFARequestChallengeError, newState: MFARequiredState?) {
        record("mfaError", error, ("mfaNewState", newState))
    }
    func onMFARequestChallengeVerificationRequired(
        newState: MFARequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        record("mfaVerificationRequired", newState)
    }
    func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError, newState: RegisterStrongAuthState?)
    {
        record("registerError", error, ("registerNewState", newState))
    }
    func onRegisterStrongAuthVerificationRequired(
        newState: RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: ChannelType,
        codeLength: Int?
    ) {
        record("registerVerificationRequired", newState)
    }
    func onSignInCompleted(result: UserAccountResult) { record("signInCompleted", result) }
}

/// Implements only the names the error methods had before they took the state: still called.
@MainActor
final class EarlierNamesDelegate: CallRecorder, MFARequestChallengeDelegate, RegisterStrongAuthChallengeDelegate {
    func onMFARequestChallengeError(error: MFARequestChallengeError) { record("mfaError", error) }
    func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError) { record("registerError", error) }
    func onSignInCompleted(result: UserAccountResult) { record("signInCompleted", result) }
}

/// Implements neither name of the error methods (which compiles): its errors can go nowhere.
@MainActor
final class NoErrorMethodDelegate: MFARequestChallengeDelegate, RegisterStrongAuthChallengeDelegate {}

/// Receives access tokens through ``CredentialsDelegate``.
@MainActor
final class TokenDelegate: CallRecorder, CredentialsDelegate {
    func onAccessTokenRetrieveError(error: RetrieveAccessTokenError) { record("tokenError", error) }
    func onAccessTokenRetrieveCompleted(result: TokenResult) { record("tokenCompleted", result) }
}

/// Leaves out the optional ``CredentialsDelegate/onAccessTokenRetrieveCompleted(result:)``.
@MainActor
final class ErrorOnlyTokenDelegate: CallRecorder, CredentialsDelegate {
    func onAccessTokenRetrieveError(error: RetrieveAccessTokenError) { record("tokenError", error) }
}

@Suite("Delegate names shared with MSAL, and the names they replace", .hangLimit)
@MainActor
struct DelegateRenameTests {
    let mfa = MFAAndRegistrationTests()

    /// A code was sent for the first method; returns its state.
    func mfaRequired() async throws -> MFARequiredState {
        let (awaiting, methods) = try await mfa.awaitingMFA()
        mfa.transport.then("challenge", .oob("ct5", length: 6))
        return try await awaiting.requestChallenge(authMethod: methods[0])
    }

    @Test func mfaRequestErrorCarriesTheUsableState() async throws {
        let state = try await mfaRequired()
        let delegate = CurrentNamesDelegate()
        mfa.transport.then("challenge", .error("access_denied", suberror: "provider_blocked_by_rep", codes: [550024]))
        try await delegate.next { state.requestChallenge(authMethod: state.authMethods[1], delegate: delegate) }
        #expect(delegate.calls == ["mfaError"])
        #expect((delegate.values["mfaError"] as? MFARequestChallengeError)?.isMethodBlocked == true)
        #expect((delegate.values["mfaNewState"] as? MFARequiredState) === state)
        // The state handed back works: a second method gets a code.
        mfa.transport.then("challenge", .oob("ct6", length: 6))
        try await delegate.next { state.requestChallenge(authMethod: state.authMethods[0], delegate: delegate) }
        #expect(delegate.calls == ["mfaError", "mfaVerificationRequired"])
    }

    @Test func mfaRequestErrorFromAwaitingStateHasNoNewState() async throws {
        let (awaiting, methods) = try await mfa.awaitingMFA()
        let delegate = CurrentNamesDelegate()
        mfa.transport.then("challenge", .error("access_denied", suberror: "provider_blocked_by_rep", codes: [550024]))
        try await delegate.next { awaiting.requestChallenge(authMethod: methods[1], delegate: delegate) }
        let error = try #require(delegate.values["mfaError"] as? MFARequestChallengeError)
        #expect(error.isMethodBlocked && error.isStateStillUsable)
        #expect(delegate.values["mfaNewState"] as? MFARequiredState == nil)
    }

    @Test func mfaRequestErrorReachesTheDeprecatedName() async throws {
        let state = try await mfaRequired()
        let delegate = EarlierNamesDelegate()
        mfa.transport.then("challenge", .error("access_denied", suberror: "provider_blocked_by_rep", codes: [550024]))
        try await delegate.next { state.requestChallenge(authMethod: state.authMethods[1], delegate: delegate) }
        #expect(delegate.calls == ["mfaError"])
        #expect((delegate.values["mfaError"] as? MFARequestChallengeError)?.isMethodBlocked == true)
    }

    @Test func registerChallengeErrorCarriesTheUsableState() async throws {
        let (state, methods) = try await mfa.registrationState()
        let delegate = CurrentNamesDelegate()
        mfa.transport.then("register/v1.0/challenge", .error("access_denied", suberror: "provider_blocked_by_rep"))
        try await delegate.next {
            state.challengeAuthMethod(authMethod: methods[0], verificationContact: "x@y.z", delegate: delegate)
        }
        #expect((delegate.values["registerError"] as? RegisterStrongAuthChallengeError)?.isMethodBlocked == true)
        #expect((delegate.values["registerNewState"] as? RegisterStrongAuthState) === state)
    }

    @Test func registerChallengeErrorFromVerificationStateGivesAStateAtTheSamePoint() async throws {
        let (state, methods) = try await mfa.registrationState()
        let delegate = CurrentNamesDelegate()
        mfa.transport.then("register/v1.0/challenge", .oob("ct5"))
        try await delegate.next {
            state.challengeAuthMethod(authMethod: methods[0], verificationContact: "a@example.com", delegate: delegate)
        }
        let verify = try #require(
            delegate.values["registerVerificationRequired"] as? RegisterStrongAuthVerificationRequiredState)
        mfa.transport.then("register/v1.0/challenge", .error("access_denied", suberror: "provider_blocked_by_rep"))
        try await delegate.next {
            verify.challengeAuthMethod(authMethod: methods[0], verificationContact: "x@y.z", delegate: delegate)
        }
        let retry = try #require(delegate.values["registerNewState"] as? RegisterStrongAuthState)
        #expect(retry.correlationId == verify.correlationId)
        #expect(retry.authMethods == methods)
        // It continues from the verification state's continuation token; using it spends both.
        mfa.transport.then("register/v1.0/challenge", .oob("ct7"))
        try await delegate.next {
            retry.challengeAuthMethod(authMethod: methods[0], verificationContact: "b@example.com", delegate: delegate)
        }
        #expect(formFields(mfa.transport.requests.last!).contains("continuation_token=ct5"))
        #expect(delegate.calls == ["registerVerificationRequired", "registerError", "registerVerificationRequired"])
        do {
            _ = try await verify.submitChallenge("12345678")
            Issue.record("expected the verification state to be spent")
        } catch {
            #expect(error.isStateAlreadyUsed)
        }
    }

    /// The log records of errors no delegate method received.
    nonisolated static func undelivered(_ logger: InMemoryLogger) -> [LogRecord] {
        logger.records.filter { $0.message.contains("the error was not delivered") }
    }

    func undelivered() -> [LogRecord] { Self.undelivered(mfa.logger) }

    /// Waits, bounded, until `count` undelivered errors are logged.
    nonisolated static func waitForUndelivered(_ logger: InMemoryLogger, count: Int) async throws {
        try await requireUntil("\(count) undelivered error(s) in the log") { undelivered(logger).count >= count }
    }

    @Test func anErrorADelegateHasNoMethodForIsLoggedAndOnlyThen() async throws {
        let state = try await mfaRequired()
        // A delegate with the method: nothing is logged.
        let current = CurrentNamesDelegate()
        mfa.transport.then("challenge", .error("access_denied", suberror: "provider_blocked_by_rep", codes: [550024]))
        try await current.next { state.requestChallenge(authMethod: state.authMethods[1], delegate: current) }
        #expect(undelivered().isEmpty)
        // Neither name: the error is logged, with the method, its kind and the correlation id.
        let none = NoErrorMethodDelegate()
        mfa.transport.then("challenge", .error("access_denied", suberror: "provider_blocked_by_rep", codes: [550024]))
        state.requestChallenge(authMethod: state.authMethods[1], delegate: none)
        try await Self.waitForUndelivered(mfa.logger, count: 1)
        let record = try #require(undelivered().first)
        #expect(record.level == .error)
        #expect(record.metadata["method"] == "onMFARequestChallengeError(error:newState:)")
        #expect(record.metadata["error"] != nil)
        #expect(record.correlationId == state.correlationId)
        // The same for registration.
        let (registration, methods) = try await mfa.registrationState()
        mfa.transport.then("register/v1.0/challenge", .error("access_denied", suberror: "provider_blocked_by_rep"))
        registration.challengeAuthMethod(authMethod: methods[0], verificationContact: "x@y.z", delegate: none)
        try await Self.waitForUndelivered(mfa.logger, count: 2)
        #expect(undelivered().last?.metadata["method"] == "onRegisterStrongAuthChallengeError(error:newState:)")
    }

    @Test func registerChallengeErrorReachesTheDeprecatedName() async throws {
        let (state, methods) = try await mfa.registrationState()
        let delegate = EarlierNamesDelegate()
        mfa.transport.then("register/v1.0/challenge", .error("access_denied", suberror: "provider_blocked_by_rep"))
        try await delegate.next {
            state.challengeAuthMethod(authMethod: methods[0], verificationContact: "x@y.z", delegate: delegate)
        }
        #expect(delegate.calls == ["registerError"])
        #expect((delegate.values["registerError"] as? RegisterStrongAuthChallengeError)?.isMethodBlocked == true)
    }

    /// A signed-in account on an emulated tenant.
    func signedIn(_ harness: EmulatorHarness) async throws -> UserAccountResult {
        let result = try await harness.client.signIn(
            SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        return account
    }

    @Test func accessTokenThroughCredentialsDelegate() async throws {
        let harness = EmulatorHarness()
        let account = try await signedIn(harness)
        let expected = try await account.getAccessToken()
        let delegate = TokenDelegate()
        try await delegate.next { account.getAccessToken(delegate: delegate) }
        #expect(delegate.calls == ["tokenCompleted"])
        #expect((delegate.values["tokenCompleted"] as? TokenResult) == expected)
        try await delegate.next { account.getAccessToken(forceRefresh: true, delegate: delegate) }
        let refreshed = try #require(delegate.values["tokenCompleted"] as? TokenResult)
        #expect(refreshed.accessToken != expected.accessToken)
    }

    @Test func accessTokenErrorThroughCredentialsDelegate() async throws {
        let harness = EmulatorHarness()
        let account = try await signedIn(harness)
        let delegate = TokenDelegate()
        let sent = harness.tenant.receivedRequests.count
        try await delegate.next { account.getAccessToken(claims: "not json", delegate: delegate) }
        #expect(delegate.calls == ["tokenError"])
        #expect((delegate.values["tokenError"] as? RetrieveAccessTokenError)?.isInvalidClaims == true)
        #expect(harness.tenant.receivedRequests.count == sent)
    }

    @Test func accessTokenWithoutCompletedMethodKeepsTheToken() async throws {
        let harness = EmulatorHarness()
        let account = try await signedIn(harness)
        let delegate = ErrorOnlyTokenDelegate()
        try await delegate.next { account.getAccessToken(delegate: delegate) }
        let error = try #require(delegate.values["tokenError"] as? RetrieveAccessTokenError)
        #expect(error.isMissingDelegateMethod)
        #expect(error.unhandledOutcome is TokenResult)
        #expect(!error.description.contains((error.unhandledOutcome as? TokenResult)?.accessToken ?? "?"))
    }
}
