import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The rules of DESIGN.md, for every state of every flow: while an action runs a second one
/// fails at once and sends nothing; a successful action spends the state; a spent state refuses
/// and sends nothing.
@Suite("Every state is single-flight and spent after success", .timeLimit(.minutes(1)))
struct AllStatesRulesTests {
    /// Performs a state's forward action; `nil` on success, the error otherwise.
    typealias Action = @Sendable () async -> (any NativeAuthError)?

    final class Setup: Sendable {
        let harness = EmulatorHarness()
        let gate: GatedTransport
        let client: NativeAuthClient

        init() {
            gate = GatedTransport(harness.tenant)
            var configuration = try? NativeAuthConfiguration(
                clientId: harness.tenant.clientId, authority: harness.tenant.authority,
                capabilities: [.mfaRequired, .registrationRequired])
            configuration?.clock = harness.clock
            guard let configuration else { preconditionFailure("configuration") }
            client = NativeAuthClient(
                configuration: configuration, transport: gate, credentialStore: InMemoryCredentialStore())
            harness.tenant.configure {
                $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "city")]
                $0.resetPollsBeforeCompletion = 0
            }
        }

        func code(_ address: String) -> String { harness.tenant.lastCode(sentTo: address) ?? "" }
    }

    static func run<T, E: NativeAuthError>(_ body: () async throws(E) -> T) async -> (any NativeAuthError)? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    static let newUser = "rules@example.com"
    static let password = EmulatorHarness.password

    /// Each case brings the flow to one state and returns its forward action.
    static let cases: [(String, @Sendable (Setup) async throws -> Action)] = [
        (
            "SignInCodeRequiredState",
            { s in
                guard
                    case .codeRequired(let state, _, _, _) = try await s.client.signIn(
                        SignInParameters(username: "grace@example.com"))
                else { throw TestFailure("code") }
                return {
                    await run { () async throws(VerifyCodeError) in
                        try await state.submitCode(s.code("grace@example.com"))
                    }
                }
            }
        ),
        (
            "SignInPasswordRequiredState",
            { s in
                guard
                    case .passwordRequired(let state) = try await s.client.signIn(
                        SignInParameters(username: "ada@example.com"))
                else { throw TestFailure("password") }
                return {
                    await run { () async throws(PasswordRequiredError) in try await state.submitPassword(password) }
                }
            }
        ),
        (
            "AwaitingMFAState",
            { s in
                guard
                    case .awaitingMFA(let state, let methods) = try await s.client.signIn(
                        SignInParameters(username: "alan@example.com", password: password))
                else { throw TestFailure("mfa") }
                return {
                    await run { () async throws(MFARequestChallengeError) in
                        try await state.requestChallenge(authMethod: methods[0])
                    }
                }
            }
        ),
        (
            "MFARequiredState",
            { s in
                guard
                    case .awaitingMFA(let awaiting, let methods) = try await s.client.signIn(
                        SignInParameters(username: "alan@example.com", password: password))
                else { throw TestFailure("mfa") }
                let state = try await awaiting.requestChallenge(authMethod: methods[0])
                return {
                    await run { () async throws(MFASubmitChallengeError) in
                        try await state.submitChallenge(s.code("alan.backup@example.com"))
                    }
                }
            }
        ),
        (
            "RegisterStrongAuthState",
            { s in
                guard
                    case .strongAuthRegistrationRequired(let state, let methods) = try await s.client.signIn(
                        SignInParameters(username: "joan@example.com", password: password))
                else { throw TestFailure("registration") }
                return {
                    await run { () async throws(RegisterStrongAuthChallengeError) in
                        try await state.challengeAuthMethod(
                            authMethod: methods[0], verificationContact: "joan.x@example.com")
                    }
                }
            }
        ),
        (
            "RegisterStrongAuthVerificationRequiredState",
            { s in
                guard
                    case .strongAuthRegistrationRequired(let register, let methods) = try await s.client.signIn(
                        SignInParameters(username: "joan@example.com", password: password)),
                    case .verificationRequired(let state, _, _, _) = try await register.challengeAuthMethod(
                        authMethod: methods[0], verificationContact: "joan.x@example.com")
                else { throw TestFailure("registration") }
                return {
                    await run { () async throws(RegisterStrongAuthSubmitChallengeError) in
                        try await state.submitChallenge(s.code("joan.x@example.com"))
                    }
                }
            }
        ),
        (
            "SignUpCodeRequiredState",
            { s in
                guard
                    case .codeRequired(let state, _, _, _) = try await s.client.signUp(
                        SignUpParameters(username: newUser))
                else { throw TestFailure("sign-up code") }
                return { await run { () async throws(VerifyCodeError) in try await state.submitCode(s.code(newUser)) } }
            }
        ),
        (
            "SignUpPasswordRequiredState",
            { s in
                guard
                    case .codeRequired(let codeState, _, _, _) = try await s.client.signUp(
                        SignUpParameters(username: newUser)),
                    case .passwordRequired(let state) = try await codeState.submitCode(s.code(newUser))
                else { throw TestFailure("sign-up password") }
                return {
                    await run { () async throws(PasswordRequiredError) in try await state.submitPassword(password) }
                }
            }
        ),
        (
            "SignUpAttributesRequiredState",
            { s in
                guard
                    case .codeRequired(let codeState, _, _, _) = try await s.client.signUp(
                        SignUpParameters(username: newUser, password: password)),
                    case .attributesRequired(_, let state) = try await codeState.submitCode(s.code(newUser))
                else { throw TestFailure("sign-up attributes") }
                return {
                    await run { () async throws(AttributesRequiredError) in
                        try await state.submitAttributes(["city": "Oslo"])
                    }
                }
            }
        ),
        (
            "SignInAfterSignUpState",
            { s in
                guard
                    case .codeRequired(let codeState, _, _, _) = try await s.client.signUp(
                        SignUpParameters(username: newUser, password: password, attributes: ["city": "Oslo"])),
                    case .completed(let state) = try await codeState.submitCode(s.code(newUser))
                else { throw TestFailure("sign-up done") }
                return { await run { () async throws(SignInAfterSignUpError) in try await state.signIn() } }
            }
        ),
        (
            "ResetPasswordCodeRequiredState",
            { s in
                guard
                    case .codeRequired(let state, _, _, _) = try await s.client.resetPassword(
                        ResetPasswordParameters(username: "ada@example.com"))
                else { throw TestFailure("reset code") }
                return {
                    await run { () async throws(VerifyCodeError) in
                        try await state.submitCode(s.code("ada@example.com"))
                    }
                }
            }
        ),
        (
            "ResetPasswordRequiredState",
            { s in
                guard
                    case .codeRequired(let codeState, _, _, _) = try await s.client.resetPassword(
                        ResetPasswordParameters(username: "ada@example.com"))
                else { throw TestFailure("reset code") }
                let state = try await codeState.submitCode(s.code("ada@example.com"))
                return {
                    let clock = s.harness.clock
                    let mover = Task {
                        while (try? await clock.waitForSleepers()) != nil { clock.advance(by: 1) }
                    }
                    defer { mover.cancel() }
                    return await run { () async throws(PasswordRequiredError) in
                        try await state.submitPassword("N3w-Secure-Pass!")
                    }
                }
            }
        ),
        (
            "SignInAfterResetPasswordState",
            { s in
                guard
                    case .codeRequired(let codeState, _, _, _) = try await s.client.resetPassword(
                        ResetPasswordParameters(username: "ada@example.com"))
                else { throw TestFailure("reset code") }
                let required = try await codeState.submitCode(s.code("ada@example.com"))
                let clock = s.harness.clock
                let mover = Task {
                    while (try? await clock.waitForSleepers()) != nil { clock.advance(by: 1) }
                }
                let state = try await required.submitPassword("N3w-Secure-Pass!")
                mover.cancel()
                return { await run { () async throws(SignInAfterResetPasswordError) in try await state.signIn() } }
            }
        ),
    ]

    @Test(arguments: cases.indices)
    func singleFlightAndSpent(index: Int) async throws {
        let (name, reach) = Self.cases[index]
        let setup = Setup()
        let act = try await reach(setup)
        setup.gate.close()
        let before = setup.harness.tenant.receivedRequests.count
        let first = Task { await act() }
        await setup.gate.waitUntilHeld(1)
        let second = await act()
        #expect(second?.isStateBusy == true, "\(name): a second action while busy must fail at once")
        #expect(setup.gate.heldCount == 1, "\(name): the busy action must send nothing")
        setup.gate.open()
        let firstError = await first.value
        #expect(firstError == nil, "\(name): the action must succeed: \(String(describing: firstError))")
        let sent = setup.harness.tenant.receivedRequests.count
        #expect(sent > before)
        let third = await act()
        #expect(third?.isStateAlreadyUsed == true, "\(name): a spent state must refuse")
        #expect(setup.harness.tenant.receivedRequests.count == sent, "\(name): a spent state sends nothing")
    }
}
