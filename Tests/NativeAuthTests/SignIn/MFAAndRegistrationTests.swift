import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("MFA and strong-auth registration after sign-in", .hangLimit)
struct MFAAndRegistrationTests {
    let transport = ScriptedTransport()
    let logger = InMemoryLogger()
    let client: NativeAuthClient

    init() {
        client = NativeAuthClient(
            configuration: testConfiguration(capabilities: [.mfaRequired, .registrationRequired], logger: logger),
            transport: transport, credentialStore: InMemoryCredentialStore())
    }

    static let methods =
        "{\"continuation_token\":\"ct4\",\"methods\":[{\"id\":\"m-email\",\"challenge_type\":\"oob\",\"challenge_channel\":\"email\",\"login_hint\":\"a***e@ex**e.com\"},{\"id\":\"m-sms\",\"challenge_type\":\"oob\",\"challenge_channel\":\"sms\",\"login_hint\":\"+1******99\"},{\"no_id\":true}]}"

    func awaitingMFA() async throws -> (AwaitingMFAState, [AuthMethod]) {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", .error("invalid_grant", suberror: "mfa_required", codes: [50076], token: "ct3"))
        transport.then("introspect", .json(200, Self.methods))
        let result = try await client.signIn(SignInParameters(username: "ada@example.com", password: "pw"))
        guard case .awaitingMFA(let state, let methods) = result else { throw TestFailure("expected awaitingMFA") }
        return (state, methods)
    }

    @Test func mfaRequiredIsAResultNotAnError() async throws {
        let (state, methods) = try await awaitingMFA()
        #expect(methods.map(\.id) == ["m-email", "m-sms"])
        #expect(methods.map(\.channelTargetType) == [.email, .sms])
        #expect(state.authMethods == methods)
        #expect(formFields(transport.requests[3]).contains("continuation_token=ct3"))
    }

    @Test func mfaChallengeAndSubmit() async throws {
        let (state, methods) = try await awaitingMFA()
        transport.then("challenge", .oob("ct5", length: 6))
        let required = try await state.requestChallenge(authMethod: methods[1])
        #expect(required.codeLength == 6)
        let challengeForm = formFields(transport.requests.last!)
        #expect(challengeForm.contains("id=m-sms"))
        #expect(challengeForm.contains("continuation_token=ct4"))
        transport.then("token", .error("invalid_grant", suberror: "invalid_oob_value"))
        do {
            _ = try await required.submitChallenge("000000")
        } catch {
            #expect(error.isInvalidChallenge)
        }
        transport.then("token", .tokens())
        let result = try await required.submitChallenge("123456")
        guard case .completed = result else { throw TestFailure("expected completed") }
        #expect(formFields(transport.requests.last!).contains("grant_type=mfa_oob"))
        #expect(formFields(transport.requests.last!).contains("oob=123456"))
    }

    @Test func blockedMethodLeavesAwaitingStateUsable() async throws {
        let (state, methods) = try await awaitingMFA()
        transport.then("challenge", .error("access_denied", suberror: "provider_blocked_by_rep", codes: [550024]))
        do {
            _ = try await state.requestChallenge(authMethod: methods[1])
            Issue.record("expected blocked")
        } catch {
            #expect(error.isMethodBlocked)
        }
        transport.then("challenge", .oob("ct5"))
        _ = try await state.requestChallenge(authMethod: methods[0])
    }

    @Test func mfaWithoutCapabilityIsBrowserRequired() async throws {
        let plain = NativeAuthClient(
            configuration: testConfiguration(), transport: transport, credentialStore: InMemoryCredentialStore())
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", .redirect("mfa"))
        do {
            _ = try await plain.signIn(SignInParameters(username: "u", password: "p"))
        } catch {
            #expect(error.isBrowserRequired)
        }
    }

    func registrationState() async throws -> (RegisterStrongAuthState, [AuthMethod]) {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .oob("ct2"))
        let start = try await client.signIn(SignInParameters(username: "ada@example.com"))
        guard case .codeRequired(let codeState, _, _, _) = start else { throw TestFailure("expected code") }
        transport.then("token", .error("invalid_grant", suberror: "registration_required", token: "ct3"))
        transport.then(
            "register/v1.0/introspect",
            .json(
                200,
                "{\"continuation_token\":\"ct4\",\"methods\":[{\"id\":\"email\",\"challenge_type\":\"oob\",\"challenge_channel\":\"email\",\"login_hint\":\"a***e@ex**e.com\"}]}"
            ))
        let result = try await codeState.submitCode("12345678")
        guard case .strongAuthRegistrationRequired(let state, let methods) = result else {
            throw TestFailure("expected registration")
        }
        return (state, methods)
    }

    @Test func registrationWithCode() async throws {
        let (state, methods) = try await registrationState()
        #expect(methods.first?.id == "email")
        transport.then("register/v1.0/challenge", .error("invalid_request", codes: [901001]))
        do {
            _ = try await state.challengeAuthMethod(authMethod: methods[0], verificationContact: "not-an-email")
        } catch {
            #expect(error.isInvalidInput)
        }
        let before = transport.requests.count
        do {
            _ = try await state.challengeAuthMethod(authMethod: methods[0], verificationContact: " ")
        } catch {
            #expect(error.isInvalidInput)
        }
        #expect(transport.requests.count == before)
        transport.then(
            "register/v1.0/challenge",
            .json(
                200,
                "{\"continuation_token\":\"ct5\",\"challenge_type\":\"oob\",\"binding_method\":\"prompt\",\"challenge_target\":\"ada.backup@example.com\",\"challenge_channel\":\"email\",\"code_length\":8}"
            ))
        let challenge = try await state.challengeAuthMethod(
            authMethod: methods[0], verificationContact: "ada.backup@example.com")
        guard case .verificationRequired(let verify, let sentTo, _, let length) = challenge else {
            throw TestFailure("expected verification")
        }
        #expect(sentTo == "ada.backup@example.com")
        #expect(length == 8)
        transport.then("register/v1.0/continue", .token("ct6"))
        transport.then("token", .tokens())
        let done = try await verify.submitChallenge("87654321")
        guard case .completed = done else { throw TestFailure("expected completed") }
        let requests = transport.requests.suffix(2).map(formFields)
        #expect(requests[0].contains("grant_type=oob") && requests[0].contains("oob=87654321"))
        #expect(requests[1].contains("grant_type=continuation_token") && requests[1].contains("continuation_token=ct6"))
        #expect(requests[1].contains("username=ada@example.com"))
    }

    @Test func registrationPreverifiedShortcut() async throws {
        let (state, methods) = try await registrationState()
        transport.then(
            "register/v1.0/challenge", .json(200, "{\"continuation_token\":\"ct5\",\"challenge_type\":\"preverified\"}")
        )
        transport.then("register/v1.0/continue", .token("ct6"))
        transport.then("token", .tokens())
        let result = try await state.challengeAuthMethod(authMethod: methods[0], verificationContact: "ada@example.com")
        guard case .completed = result else { throw TestFailure("expected completed") }
        #expect(formFields(transport.requests[transport.requests.count - 2]).contains("grant_type=continuation_token"))
    }

    @Test func blockedContact() async throws {
        let (state, methods) = try await registrationState()
        transport.then("register/v1.0/challenge", .error("access_denied", suberror: "provider_blocked_by_rep"))
        do {
            _ = try await state.challengeAuthMethod(authMethod: methods[0], verificationContact: "x@y.z")
        } catch {
            #expect(error.isMethodBlocked)
        }
    }
}
