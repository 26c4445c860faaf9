import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// One code screen for every flow: the code-entry states of sign-in, sign-up, password reset and
/// the second factor, driven only through ``CodeRequiredState``.
@Suite("CodeRequiredState: one screen for every code step", .hangLimit)
struct CodeRequiredStateTests {
    let transport = ScriptedTransport()
    let client: NativeAuthClient

    init() {
        client = NativeAuthClient(
            configuration: testConfiguration(capabilities: [.mfaRequired]), transport: transport,
            credentialStore: InMemoryCredentialStore())
    }

    /// Where one flow's code step sends a new code and the code.
    struct Routes {
        let resend: String
        let submit: String
        let accepted: ScriptedTransport.Answer
    }

    /// What the screen does, through the protocol alone: shows where the code went, refuses an
    /// empty code without a request, asks for a new code, and submits the code on the new state.
    func runScreen<State: CodeRequiredState>(_ state: State, _ routes: Routes) async throws -> State.CodeResult {
        #expect(state.sentTo == "a***e@ex**e.com")
        #expect(state.channelTargetType == .email)
        #expect(state.codeLength == 6)
        #expect(state.description.contains("a***e@ex**e.com"))
        #expect(!state.description.contains("ct-"))

        let sent = transport.requests.count
        do {
            _ = try await state.submitCode("  ")
            Issue.record("an empty code was accepted")
        } catch {
            #expect(error.details.kind == .invalidCode)
            #expect(error.isStateStillUsable)
            #expect(error.correlationId == state.correlationId)
        }
        #expect(transport.requests.count == sent, "an empty code was sent")

        transport.then(routes.resend, .oob("ct-resent", length: 4))
        let fresh = try await state.resendCode()
        #expect(fresh !== state)
        #expect(fresh.codeLength == 4)
        #expect(fresh.correlationId == state.correlationId)
        #expect(formFields(transport.requests[transport.requests.count - 1]).contains("continuation_token=ct-code"))
        do {
            _ = try await state.resendCode()
            Issue.record("a spent state sent a new code")
        } catch {
            #expect(error.isStateAlreadyUsed)
        }

        transport.then(routes.submit, routes.accepted)
        let result = try await fresh.submitCode(" 1234 ")
        let form = formFields(transport.requests[transport.requests.count - 1])
        #expect(form.contains("continuation_token=ct-resent"))
        #expect(form.contains { $0.hasSuffix("=1234") })
        #expect(transport.remaining == 0)
        return result
    }

    @Test func signInCode() async throws {
        transport.then("initiate", .token("ct-start"))
        transport.then("challenge", .oob("ct-code", length: 6))
        guard case .codeRequired(let state, _, _, _) = try await client.signIn(SignInParameters(username: "ada@a.b"))
        else { throw TestFailure("expected a code") }
        let result = try await runScreen(state, Routes(resend: "challenge", submit: "token", accepted: .tokens()))
        guard case .completed = result else { throw TestFailure("expected completed") }
    }

    @Test func signUpCode() async throws {
        transport.then("signup/v1.0/start", .token("ct-start"))
        transport.then("signup/v1.0/challenge", .oob("ct-code", length: 6))
        guard case .codeRequired(let state, _, _, _) = try await client.signUp(SignUpParameters(username: "ada@a.b"))
        else { throw TestFailure("expected a code") }
        let result = try await runScreen(
            state,
            Routes(resend: "signup/v1.0/challenge", submit: "signup/v1.0/continue", accepted: .token("ct-done")))
        guard case .completed(let next) = result else { throw TestFailure("expected completed") }
        #expect(next.isSignInAvailable)
    }

    @Test func resetPasswordCode() async throws {
        transport.then("resetpassword/v1.0/start", .token("ct-start"))
        transport.then("resetpassword/v1.0/challenge", .oob("ct-code", length: 6))
        guard
            case .codeRequired(let state, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: "ada@a.b"))
        else { throw TestFailure("expected a code") }
        let next = try await runScreen(
            state,
            Routes(
                resend: "resetpassword/v1.0/challenge", submit: "resetpassword/v1.0/continue",
                accepted: .token("ct-password")))
        #expect(next.core.currentToken == Secret("ct-password"))
    }

    @Test func mfaCode() async throws {
        transport.then("initiate", .token("ct-start"))
        transport.then("challenge", .password("ct-password"))
        transport.then("token", .error("invalid_grant", suberror: "mfa_required", codes: [50076], token: "ct-mfa"))
        transport.then("introspect", .json(200, MFAAndRegistrationTests.methods))
        guard
            case .awaitingMFA(let awaiting, let methods) = try await client.signIn(
                SignInParameters(username: "ada@a.b", password: "pw"))
        else { throw TestFailure("expected MFA") }
        transport.then("challenge", .oob("ct-code", length: 6))
        let state = try await awaiting.requestChallenge(authMethod: methods[0])
        let result = try await runScreen(state, Routes(resend: "challenge", submit: "token", accepted: .tokens()))
        guard case .completed = result else { throw TestFailure("expected completed") }
        // The new code went to the method chosen first.
        let resend = transport.requests.first { formFields($0).contains("continuation_token=ct-code") }
        #expect(resend.map(formFields)?.contains("id=m-email") == true)
    }

    /// A list of states of different flows, held as one type.
    @Test func statesOfEveryFlowShareOneList() async throws {
        transport.then("initiate", .token("ct-start"))
        transport.then("challenge", .oob("ct-code", length: 6))
        transport.then("signup/v1.0/start", .token("ct-start"))
        transport.then("signup/v1.0/challenge", .oob("ct-code", length: 6))
        guard case .codeRequired(let signIn, _, _, _) = try await client.signIn(SignInParameters(username: "a@b.c")),
            case .codeRequired(let signUp, _, _, _) = try await client.signUp(SignUpParameters(username: "a@b.c"))
        else { throw TestFailure("expected codes") }
        let screens: [any CodeRequiredState] = [signIn, signUp]
        #expect(screens.map(\.sentTo) == ["a***e@ex**e.com", "a***e@ex**e.com"])
        #expect(screens.allSatisfy { $0.codeLength == 6 && $0.channelTargetType == .email })
    }
}
