import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("Sign-up, reset, MFA and registration through delegates", .hangLimit)
@MainActor
struct FlowDelegateTests {
    let harness = EmulatorHarness()

    /// Every state of the catalogue, reached on the emulator, moved on by its forward call's
    /// delegate form: exactly one callback, on the main queue, with the outcome of the same call
    /// made through `async throws` on a state reached the same way.
    @Test(arguments: FlowStateVariant.all)
    func everyStateThroughItsDelegate(variant: FlowStateVariant) async throws {
        let kind = variant.kind
        let expected = try await {
            let fixture = FlowFixture(protocolVersion: variant.protocolVersion)
            return await fixture.forward(try await fixture.reach(kind)).outcome
        }()
        let fixture = FlowFixture(protocolVersion: variant.protocolVersion)
        let state = try await fixture.reach(kind)
        let recorder = FlowDelegateRecorder()
        let mover = advanceWhileSleeping(fixture.harness.clock)
        defer { mover.cancel() }
        let call = try await recorder.next {
            #expect(state.start(kind.forwardCall, fixture.forwardInput(for: state), delegate: recorder))
        }
        #expect(call.onMainQueue)
        #expect(call.outcome.summary == expected.summary, "\(variant.typeName)")
        #expect(expected.failure == nil, "\(variant.typeName): \(expected.summary)")
        #expect(recorder.calls.count == 1)
    }

    @Test func signUpThroughDelegates() async throws {
        harness.tenant.configure { $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "city")] }
        let recorder = FlowDelegateRecorder()
        let client = harness.client
        let codeState = try await recorder.next {
            client.signUp(parameters: SignUpParameters(username: "d@example.com"), delegate: recorder)
        }.outcome.state(SignUpCodeRequiredState.self)
        #expect(
            try await recorder.next { codeState.submitCode(code: "0", delegate: recorder) }.outcome.error(
                VerifyCodeError.self
            ).isInvalidCode)
        let fresh = try await recorder.next { codeState.resendCode(delegate: recorder) }.outcome.state(
            SignUpCodeRequiredState.self)
        let code = try harness.code(for: "d@example.com")
        let passwordState = try await recorder.next { fresh.submitCode(code: code, delegate: recorder) }.outcome.state(
            SignUpPasswordRequiredState.self)
        let weak = try await recorder.next { passwordState.submitPassword(password: "weak", delegate: recorder) }
        #expect(try weak.outcome.error(PasswordRequiredError.self).passwordPolicyViolation == .tooShort)
        let attributesState = try await recorder.next {
            passwordState.submitPassword(password: EmulatorHarness.password, delegate: recorder)
        }.outcome.state(SignUpAttributesRequiredState.self)
        let after = try await recorder.next {
            attributesState.submitAttributes(attributes: ["city": "Oslo"], delegate: recorder)
        }.outcome.state(SignInAfterSignUpState.self)
        try await recorder.next { after.signIn(delegate: recorder) }
        #expect(
            recorder.calls.map(\.method) == [
                "onSignUpCodeRequired", "onSignUpVerifyCodeError", "onSignUpResendCodeCodeRequired",
                "onSignUpPasswordRequired", "onSignUpPasswordRequiredError", "onSignUpAttributesRequired",
                "onSignUpCompleted", "onSignInCompleted",
            ])
        #expect(recorder.calls.allSatisfy { $0.onMainQueue })
    }

    @Test func signUpStartOutcomesThroughDelegates() async throws {
        harness.tenant.configure { $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "age", type: "int")] }
        let recorder = FlowDelegateRecorder()
        let client = harness.client
        let invalid = try await recorder.next {
            client.signUp(
                parameters: SignUpParameters(username: "d@example.com", attributes: ["age": "old"]), delegate: recorder)
        }
        guard case .attributesInvalid(let names) = invalid.outcome else { throw TestFailure("\(invalid.outcome)") }
        #expect(names == ["age"])
        let taken = try await recorder.next {
            client.signUp(parameters: SignUpParameters(username: "ada@example.com"), delegate: recorder)
        }
        #expect(try taken.outcome.error(SignUpStartError.self).isUserAlreadyExists)
    }

    @Test func resetThroughDelegates() async throws {
        let recorder = FlowDelegateRecorder()
        let client = harness.client
        let codeState = try await recorder.next {
            client.resetPassword(parameters: ResetPasswordParameters(username: "ada@example.com"), delegate: recorder)
        }.outcome.state(ResetPasswordCodeRequiredState.self)
        let fresh = try await recorder.next { codeState.resendCode(delegate: recorder) }.outcome.state(
            ResetPasswordCodeRequiredState.self)
        try await recorder.next { fresh.submitCode(code: "0", delegate: recorder) }
        let code = try harness.code(for: "ada@example.com")
        let required = try await recorder.next { fresh.submitCode(code: code, delegate: recorder) }.outcome.state(
            ResetPasswordRequiredState.self)
        harness.tenant.configure { $0.resetPollsBeforeCompletion = 0 }
        let mover = advanceWhileSleeping(harness.clock)
        let after = try await recorder.next {
            required.submitPassword(password: "N3w-Secure-Pass!", delegate: recorder)
        }.outcome.state(SignInAfterResetPasswordState.self)
        mover.cancel()
        try await recorder.next { after.signIn(delegate: recorder) }
        let refused = try await recorder.next {
            client.resetPassword(parameters: ResetPasswordParameters(username: "grace@example.com"), delegate: recorder)
        }
        #expect(try refused.outcome.error(ResetPasswordStartError.self).isUserDoesNotHavePassword)
        #expect(
            recorder.calls.map(\.method) == [
                "onResetPasswordCodeRequired", "onResetPasswordResendCodeRequired", "onResetPasswordVerifyCodeError",
                "onPasswordRequired", "onResetPasswordCompleted", "onSignInCompleted", "onResetPasswordStartError",
            ])
    }

    @Test func mfaAndRegistrationThroughDelegates() async throws {
        let recorder = FlowDelegateRecorder()
        let client = harness.client
        let awaiting = try await recorder.next {
            client.signIn(
                parameters: SignInParameters(username: "alan@example.com", password: EmulatorHarness.password),
                delegate: recorder)
        }.outcome.state(AwaitingMFAState.self)
        let mfa = try await recorder.next {
            awaiting.requestChallenge(authMethod: awaiting.authMethods[0], delegate: recorder)
        }.outcome.state(MFARequiredState.self)
        let wrong = try await recorder.next { mfa.submitChallenge(challenge: "0", delegate: recorder) }
        #expect(try wrong.outcome.error(MFASubmitChallengeError.self).isInvalidChallenge)
        let code = try harness.code(for: "alan.backup@example.com")
        try await recorder.next { mfa.submitChallenge(challenge: code, delegate: recorder) }

        let register = try await recorder.next {
            client.signIn(
                parameters: SignInParameters(username: "joan@example.com", password: EmulatorHarness.password),
                delegate: recorder)
        }.outcome.state(RegisterStrongAuthState.self)
        let bad = try await recorder.next {
            register.challengeAuthMethod(
                authMethod: register.authMethods[0], verificationContact: "bad", delegate: recorder)
        }
        #expect(try bad.outcome.error(RegisterStrongAuthChallengeError.self).isInvalidInput)
        let verify = try await recorder.next {
            register.challengeAuthMethod(
                authMethod: register.authMethods[0], verificationContact: "joan.2@example.com", delegate: recorder)
        }.outcome.state(RegisterStrongAuthVerificationRequiredState.self)
        #expect(verify.codeLength == 8)
        try await recorder.next { verify.submitChallenge(challenge: "0", delegate: recorder) }
        let registrationCode = try harness.code(for: "joan.2@example.com")
        try await recorder.next { verify.submitChallenge(challenge: registrationCode, delegate: recorder) }
        #expect(
            recorder.calls.map(\.method) == [
                "onSignInAwaitingMFA", "onMFARequestChallengeVerificationRequired", "onMFASubmitChallengeError",
                "onSignInCompleted", "onSignInStrongAuthMethodRegistration", "onRegisterStrongAuthChallengeError",
                "onRegisterStrongAuthVerificationRequired", "onRegisterStrongAuthSubmitChallengeError",
                "onSignInCompleted",
            ])
        #expect(recorder.calls.allSatisfy { $0.onMainQueue })
    }
}
