import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// A second factor over native authentication V2 on the emulator: the same ``AwaitingMFAState``
/// and ``MFARequiredState`` as V1, driven by the `multiFactor` challenge's method links.
@Suite("Sign-in over V2: the second factor on the emulator", .hangLimit)
struct SignInMFAV2EmulatorTests {
    static let sam = "sam@example.com"
    static let samPhone = "+15550100"
    static let samBackup = "sam.backup@example.com"

    let harness = EmulatorHarness(
        users: EmulatorHarness.defaultUsers + [
            EmulatedUser(
                username: SignInMFAV2EmulatorTests.sam, password: EmulatorHarness.password,
                mfaMethods: [
                    EmulatedAuthMethod(id: "sam-sms", channel: "sms", address: SignInMFAV2EmulatorTests.samPhone),
                    EmulatedAuthMethod(id: "sam-email", channel: "email", address: SignInMFAV2EmulatorTests.samBackup),
                ])
        ])

    func client() -> NativeAuthClient { V2Clients.client(harness) }

    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    /// Signs `username` in with the password up front, to the second factor.
    func awaiting(_ username: String) async throws -> (AwaitingMFAState, [AuthMethod]) {
        let start = try await client().signIn(SignInParameters(username: username, password: EmulatorHarness.password))
        guard case .awaitingMFA(let state, let methods) = start else { throw TestFailure("expected awaitingMFA") }
        return (state, methods)
    }

    @Test func passwordThenEmailSecondFactor() async throws {
        let (awaiting, methods) = try await awaiting("alan@example.com")
        #expect(methods.map(\.id) == ["alan-email"])
        #expect(methods.first?.channelTargetType == .email)
        #expect(methods.first?.loginHint.contains("***") == true)
        #expect(awaiting.authMethods == methods)
        let state = try await awaiting.requestChallenge(authMethod: methods[0])
        #expect(state.channelTargetType == .email)
        #expect(state.codeLength == 8)
        #expect(state.sentTo.contains("***"))
        let wrong = try await #require(throws: MFASubmitChallengeError.self) {
            try await state.submitChallenge("00000000")
        }
        #expect(wrong.isInvalidChallenge)
        guard
            case .completed(let account) = try await state.submitChallenge(harness.code(for: "alan.backup@example.com"))
        else { throw TestFailure("expected completed") }
        #expect(account.account.username == "alan@example.com")
        // The waiting state was spent by the challenge it sent.
        let spent = try await #require(throws: MFARequestChallengeError.self) {
            try await awaiting.requestChallenge(authMethod: methods[0])
        }
        #expect(spent.isStateAlreadyUsed)
    }

    @Test func roundTripsOfAPasswordAndEmailCodeSignIn() async throws {
        let (awaiting, methods) = try await awaiting("alan@example.com")
        let state = try await awaiting.requestChallenge(authMethod: methods[0])
        _ = try await state.submitChallenge(harness.code(for: "alan.backup@example.com"))
        let authority = "/contoso.onmicrosoft.com"
        let password = try #require(paths.first { $0.contains("/methods/password/") }).split(separator: " ")[1]
        // authorize-challenge, signin/start, password verify, MFA challenge, MFA verify, resume, token: 7.
        #expect(
            paths == [
                "POST \(authority)/oauth2/v2.0/authorize-challenge", "POST \(authority)/api/v2.0/signin/start",
                "POST \(password)", "POST \(authority)/api/v2.0/auth/methods/email/alan-email/challenge",
                "POST \(authority)/api/v2.0/auth/methods/email/alan-email/verify",
                "POST \(authority)/oauth2/v2.0/authorize-challenge", "POST \(authority)/oauth2/v2.0/token",
            ])
    }

    @Test func smsSecondFactorWithResend() async throws {
        let (awaiting, methods) = try await awaiting(Self.sam)
        #expect(methods.map(\.id) == ["sam-sms", "sam-email"], "the server's order is kept")
        #expect(methods.map(\.channelTargetType) == [.sms, .email])
        let sms = try await awaiting.requestChallenge(authMethod: methods[0])
        #expect(sms.channelTargetType == .sms)
        let first = try harness.code(for: Self.samPhone)
        let resent = try await sms.resendCode()
        let second = try harness.code(for: Self.samPhone)
        #expect(first != second)
        let spent = try await #require(throws: MFASubmitChallengeError.self) { try await sms.submitChallenge(second) }
        #expect(spent.isStateAlreadyUsed, "resending spends the state it was asked on")
        let old = try await #require(throws: MFASubmitChallengeError.self) { try await resent.submitChallenge(first) }
        #expect(old.isInvalidChallenge, "the first code stopped working")
        guard case .completed = try await resent.submitChallenge(second) else {
            throw TestFailure("expected completed")
        }
    }

    @Test func anotherMethodFromTheCodeState() async throws {
        let (awaiting, methods) = try await awaiting(Self.sam)
        let sms = try await awaiting.requestChallenge(authMethod: methods[0])
        let email = try await sms.requestChallenge(authMethod: methods[1])
        #expect(email.channelTargetType == .email)
        #expect(email.authMethods == methods)
        guard case .completed = try await email.submitChallenge(harness.code(for: Self.samBackup)) else {
            throw TestFailure("expected completed")
        }
    }

    @Test func aMethodTheServerDidNotOfferSendsNothing() async throws {
        let (awaiting, _) = try await awaiting(Self.sam)
        let sent = harness.tenant.receivedRequests.count
        let stranger = AuthMethod(id: "not-offered", channelTargetType: .email, loginHint: "x***@example.com")
        let error = try await #require(throws: MFARequestChallengeError.self) {
            try await awaiting.requestChallenge(authMethod: stranger)
        }
        #expect(error.errorDescription?.contains("nothing was sent") == true)
        #expect(harness.tenant.receivedRequests.count == sent)
        // The state stays usable for a method the server offered.
        _ = try await awaiting.requestChallenge(authMethod: awaiting.authMethods[0])
    }

    @Test func passwordAskedThenSecondFactorFromTheState() async throws {
        guard case .passwordRequired(let password) = try await client().signIn(SignInParameters(username: Self.sam))
        else { throw TestFailure("expected passwordRequired") }
        guard case .awaitingMFA(let awaiting, let methods) = try await password.submitPassword(EmulatorHarness.password)
        else { throw TestFailure("expected awaitingMFA") }
        let state = try await awaiting.requestChallenge(authMethod: methods[1])
        guard case .completed = try await state.submitChallenge(harness.code(for: Self.samBackup)) else {
            throw TestFailure("expected completed")
        }
    }

    @Test func descriptionsShowNoTokenNorLink() async throws {
        let (awaiting, methods) = try await awaiting(Self.sam)
        let state = try await awaiting.requestChallenge(authMethod: methods[0])
        for text in ["\(awaiting)", "\(state)", String(reflecting: state)] {
            #expect(!text.contains("http"))
            #expect(!text.contains("/api/"))
            #expect(!text.contains(Self.samPhone))
        }
    }
}

/// V2 clients of an emulator harness.
enum V2Clients {
    /// A V2 client on `harness`' tenant, logger and store (and its clock, unless `clock` is given),
    /// sending through `transport`.
    static func client(
        _ harness: EmulatorHarness, transport: (any HTTPTransport)? = nil, clock: (any NativeAuthClock)? = nil
    ) -> NativeAuthClient {
        guard
            var configuration = try? NativeAuthConfiguration(
                clientId: harness.tenant.clientId, authority: harness.tenant.authority,
                challengeTypes: [.oob, .password], capabilities: [.mfaRequired, .registrationRequired])
        else { preconditionFailure("emulator configuration") }
        configuration.logger = harness.logger
        configuration.clock = clock ?? harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.protocolVersion = .v2
        return NativeAuthClient(
            configuration: configuration, transport: transport ?? harness.tenant, credentialStore: harness.store)
    }
}
