import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Just-in-time method registration over native authentication V2 on the emulator, behind V1's
/// ``RegisterStrongAuthState`` and ``RegisterStrongAuthVerificationRequiredState``.
@Suite("Sign-in over V2: registering a method first (JIT)", .hangLimit)
struct RegistrationV2EmulatorTests {
    static let joan = "joan@example.com"
    let harness = EmulatorHarness()

    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    func registration() async throws -> (RegisterStrongAuthState, [AuthMethod]) {
        let start = try await V2Clients.client(harness).signIn(
            SignInParameters(username: Self.joan, password: EmulatorHarness.password))
        guard case .strongAuthRegistrationRequired(let state, let methods) = start else {
            throw TestFailure("expected strongAuthRegistrationRequired")
        }
        return (state, methods)
    }

    @Test func anEmailIsRegisteredWithItsCodeThenTheUserIsSignedIn() async throws {
        let (state, methods) = try await registration()
        #expect(methods.map(\.channelTargetType) == [.email, .sms])
        let result = try await state.challengeAuthMethod(
            authMethod: methods[0], verificationContact: "joan.new@example.com")
        guard case .verificationRequired(let verification, let sentTo, .email, let length) = result else {
            throw TestFailure("expected verificationRequired")
        }
        #expect(sentTo.contains("***"))
        #expect(length == 8)
        let wrong = try await #require(throws: RegisterStrongAuthSubmitChallengeError.self) {
            try await verification.submitChallenge("00000000")
        }
        #expect(wrong.isInvalidChallenge)
        guard
            case .completed(let account) = try await verification.submitChallenge(
                harness.code(for: "joan.new@example.com"))
        else { throw TestFailure("expected completed") }
        #expect(account.account.username == Self.joan)
        // authorize-challenge, start, password, enroll, activate (wrong), activate, resume, token.
        let authority = "/contoso.onmicrosoft.com"
        #expect(paths.filter { $0.hasSuffix("/enroll") }.count == 1)
        #expect(paths.filter { $0.hasSuffix("/activate") }.count == 2)
        #expect(paths.last == "POST \(authority)/oauth2/v2.0/token")
        #expect(paths.count == 8)
        // The method is registered: the next sign-in asks for it as a second factor.
        let next = try await V2Clients.client(harness).signIn(
            SignInParameters(username: Self.joan, password: EmulatorHarness.password))
        guard case .awaitingMFA(_, let mfa) = next else { throw TestFailure("expected awaitingMFA") }
        #expect(mfa.count == 1)
    }

    @Test func aContactAlreadyVerifiedSignsInAtOnce() async throws {
        let (state, methods) = try await registration()
        guard
            case .completed = try await state.challengeAuthMethod(
                authMethod: methods[0], verificationContact: Self.joan)
        else { throw TestFailure("expected completed") }
        // authorize-challenge, start, password, enroll, resume, token.
        #expect(paths.count == 6)
    }

    @Test func aPhoneNumberWithAResend() async throws {
        let (state, methods) = try await registration()
        guard
            case .verificationRequired(let first, _, .sms, _) = try await state.challengeAuthMethod(
                authMethod: methods[1], verificationContact: "+15550199")
        else { throw TestFailure("expected verificationRequired") }
        let old = try harness.code(for: "+15550199")
        guard case .verificationRequired(let second, _, _, _) = try await first.resendCode() else {
            throw TestFailure("expected verificationRequired")
        }
        let new = try harness.code(for: "+15550199")
        #expect(old != new)
        let spent = try await #require(throws: RegisterStrongAuthSubmitChallengeError.self) {
            try await first.submitChallenge(new)
        }
        #expect(spent.isStateAlreadyUsed)
        guard case .completed = try await second.submitChallenge(new) else { throw TestFailure("expected completed") }
    }

    @Test func anInvalidContactKeepsTheStateUsable() async throws {
        let (state, methods) = try await registration()
        let error = try await #require(throws: RegisterStrongAuthChallengeError.self) {
            try await state.challengeAuthMethod(authMethod: methods[0], verificationContact: "not-an-address")
        }
        #expect(error.isInvalidInput)
        #expect(error.isStateStillUsable)
        guard
            case .verificationRequired = try await state.challengeAuthMethod(
                authMethod: methods[0], verificationContact: "joan.other@example.com")
        else { throw TestFailure("expected verificationRequired") }
    }

    @Test func descriptionsShowNoTokenNorLink() async throws {
        let (state, methods) = try await registration()
        guard
            case .verificationRequired(let verification, _, _, _) = try await state.challengeAuthMethod(
                authMethod: methods[0], verificationContact: "joan.new@example.com")
        else { throw TestFailure("expected verificationRequired") }
        for text in ["\(state)", "\(verification)"] {
            #expect(!text.contains("http"))
            #expect(!text.contains("/api/"))
        }
    }
}
