import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The names this SDK used before it took MSAL's (`channel` for `channelTargetType`,
/// `submitCode` and `isInvalidCode` on the challenge steps) are deprecated and still work.
///
/// Each test is itself deprecated, which lets it call the deprecated names without a warning.
@Suite("Earlier names: deprecated, still working", .hangLimit)
struct EarlierNamesTests {
    let harness = EmulatorHarness()

    @available(*, deprecated, message: "Calls the deprecated names.")
    @Test func channelIsChannelTargetTypeOnEveryCodeStep() async throws {
        let client = harness.client
        guard
            case .codeRequired(let signIn, _, let sent, _) = try await client.signIn(
                SignInParameters(username: "grace@example.com"))
        else { throw TestFailure("expected a sign-in code") }
        #expect(signIn.channel == sent)
        #expect(signIn.channel == signIn.channelTargetType)

        guard
            case .codeRequired(let signUp, _, _, _) = try await client.signUp(
                SignUpParameters(username: "katherine@example.com"))
        else { throw TestFailure("expected a sign-up code") }
        #expect(signUp.channel == .email)

        guard
            case .codeRequired(let reset, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: "ada@example.com"))
        else { throw TestFailure("expected a reset code") }
        #expect(reset.channel == .email)

        // Through the protocol too: code written for any code step.
        func channel(of state: some CodeRequiredState) -> ChannelType { state.channel }
        #expect(channel(of: signIn) == .email)
    }

    @available(*, deprecated, message: "Calls the deprecated names.")
    @Test func authMethodKeepsItsEarlierInitializerAndChannel() {
        let method = AuthMethod(id: "sms-1", channel: .sms, loginHint: "+44******23")
        #expect(method.channelTargetType == .sms)
        #expect(method.channel == .sms)
        #expect(method == AuthMethod(id: "sms-1", channelTargetType: .sms, loginHint: "+44******23"))
    }

    @available(*, deprecated, message: "Calls the deprecated names.")
    @Test func theMultiFactorStepTakesSubmitCodeAndAnswersIsInvalidCode() async throws {
        guard
            case .awaitingMFA(let awaiting, let methods) = try await harness.client.signIn(
                SignInParameters(username: "alan@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected a second factor") }
        let state = try await awaiting.requestChallenge(authMethod: try #require(methods.first))
        #expect(state.channel == .email)

        let error = try await #require(throws: MFASubmitChallengeError.self) {
            try await state.submitCode("00000000")
        }
        #expect(error.isInvalidCode)
        #expect(error.isInvalidChallenge)
        #expect(error.isStateStillUsable)

        let result = try await state.submitCode(try harness.code(for: "alan.backup@example.com"))
        guard case .completed(let account) = result else { throw TestFailure("expected completed: \(result)") }
        #expect(account.account.username == "alan@example.com")
    }

    @available(*, deprecated, message: "Calls the deprecated names.")
    @Test func theRegistrationStepTakesSubmitCodeAndAnswersIsInvalidCode() async throws {
        guard
            case .strongAuthRegistrationRequired(let register, let methods) = try await harness.client.signIn(
                SignInParameters(username: "joan@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected a method registration") }
        let challenged = try await register.challengeAuthMethod(
            authMethod: try #require(methods.first), verificationContact: "joan.second@example.com")
        guard case .verificationRequired(let state, _, let sent, _) = challenged else {
            throw TestFailure("expected a code: \(challenged)")
        }
        #expect(state.channel == sent)

        let error = try await #require(throws: RegisterStrongAuthSubmitChallengeError.self) {
            try await state.submitCode("00000000")
        }
        #expect(error.isInvalidCode)
        #expect(error.isInvalidChallenge)

        let result = try await state.submitCode(try harness.code(for: "joan.second@example.com"))
        guard case .completed = result else { throw TestFailure("expected completed: \(result)") }
    }
}
