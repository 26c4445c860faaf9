import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// A V2 password reset by the SDK over real loopback HTTP: the `PUT` of the new password, the polls
/// and the code exchange go through the server like every other route.
@Suite("Native Auth V2: password reset over HTTP", .hangLimit)
struct V2ResetPasswordServerTests {
    @Test("the SDK resets a password over HTTP and signs in with it")
    func resetOverHTTP() async throws {
        let served = try ServedTenant()
        var configuration = try NativeAuthConfiguration(
            clientId: served.tenant.clientId, authority: served.server.authority)
        configuration.protocolVersion = .v2
        configuration.clock = TestClock()  // the polls' sleeps return at once
        configuration.requestTimeout = TestBounds.requestDeadline
        let client = NativeAuthClient(
            configuration: configuration, transport: served.transport, credentialStore: InMemoryCredentialStore())

        guard
            case .codeRequired(let codeState, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: Fixture.ada))
        else { throw TestFailure("expected codeRequired") }
        let code = try #require(served.tenant.lastCode(sentTo: Fixture.ada))
        let password = try await codeState.submitCode(code)
        let newPassword = "Difference-Engine-1822"
        guard case .completed(let account) = try await password.submitPassword(newPassword).signIn() else {
            throw TestFailure("expected completed")
        }
        #expect(account.account.username == Fixture.ada)
        #expect(served.tenant.user(named: Fixture.ada)?.password == newPassword)
        let methods = served.tenant.receivedRequests.map(\.method)
        #expect(methods.filter { $0 == "PUT" }.count == 1)
        #expect(served.tenant.receivedRequests.filter { $0.url.path.hasSuffix("/pollUpdate") }.count == 3)
        await served.server.stop()
    }

    @Test("the SDK resets a password from the sign-in's password screen over HTTP: the recover link")
    func inlineResetOverHTTP() async throws {
        let served = try ServedTenant()
        defer { Task { await served.server.stop() } }
        var configuration = try NativeAuthConfiguration(
            clientId: served.tenant.clientId, authority: served.server.authority)
        configuration.protocolVersion = .v2
        configuration.clock = TestClock()
        configuration.requestTimeout = TestBounds.requestDeadline
        let client = NativeAuthClient(
            configuration: configuration, transport: served.transport, credentialStore: InMemoryCredentialStore())

        guard
            case .passwordRequired(let passwordState) = try await client.signIn(SignInParameters(username: Fixture.ada))
        else { throw TestFailure("expected passwordRequired") }
        let wrong = try await #require(throws: PasswordRequiredError.self) {
            try await passwordState.submitPassword("not-the-password")
        }
        #expect(wrong.isInvalidPassword && wrong.isStateStillUsable)
        guard case .codeRequired(let codeState, _, .email, _) = try await passwordState.resetPassword() else {
            throw TestFailure("expected codeRequired")
        }
        let code = try #require(served.tenant.lastCode(sentTo: Fixture.ada))
        let newPassword = "Analytical-Engine-1837"
        guard case .completed(let account) = try await codeState.submitCode(code).submitPassword(newPassword).signIn()
        else { throw TestFailure("expected completed") }
        #expect(account.account.username == Fixture.ada)
        #expect(served.tenant.user(named: Fixture.ada)?.password == newPassword)
        let paths = served.tenant.receivedRequests.map(\.url.path)
        // authorize-challenge, start, the wrong password, recover, the email method's challenge and
        // verify, the update and three polls, resume, token: the reset starts no authorization of its own.
        let ends = [
            "/authorize-challenge", "/signin/start", "/verify", "/recover", "/challenge", "/verify", "", "/pollUpdate",
            "/pollUpdate", "/pollUpdate", "/authorize-challenge", "/token",
        ]
        #expect(paths.count == ends.count && zip(paths, ends).allSatisfy { $0.hasSuffix($1) }, "\(paths)")
        #expect(paths[3].contains("/methods/password/") && paths[4].contains("/methods/email/"))
        #expect(served.tenant.receivedRequests[6].method == "PUT")
        #expect(served.tenant.receivedRequests.count == 12)
    }

    @Test("the user chooses the SMS method of a reset over HTTP: the code goes to the phone")
    func chosenSMSResetOverHTTP() async throws {
        let served = try ServedTenant { $0.nativeAuthV2RecoveryMethods = .emailAndSMS }
        defer { Task { await served.server.stop() } }
        let phone = "+15550100"
        served.tenant.addUser(
            EmulatedUser(
                username: "ida@example.com", password: "Old-Password-1",
                mfaMethods: [EmulatedAuthMethod(id: "ida-sms", channel: "sms", address: phone)]))
        var configuration = try NativeAuthConfiguration(
            clientId: served.tenant.clientId, authority: served.server.authority)
        configuration.protocolVersion = .v2
        configuration.clock = TestClock()
        configuration.requestTimeout = TestBounds.requestDeadline
        let client = NativeAuthClient(
            configuration: configuration, transport: served.transport, credentialStore: InMemoryCredentialStore())

        var parameters = ResetPasswordParameters(username: "ida@example.com")
        parameters.selectsAuthMethod = true
        guard case .authMethodSelectionRequired(let choice, let methods) = try await client.resetPassword(parameters)
        else { throw TestFailure("expected authMethodSelectionRequired") }
        #expect(methods.map(\.channelTargetType) == [.email, .sms])
        guard case .codeRequired(let codeState, _, .sms, _) = try await choice.selectAuthMethod(methods[1]) else {
            throw TestFailure("expected an SMS code")
        }
        let code = try #require(served.tenant.lastCode(sentTo: phone))
        #expect(served.tenant.lastCode(sentTo: "ida@example.com") == nil)
        let newPassword = "Jacquard-Loom-1804"
        guard case .completed(let account) = try await codeState.submitCode(code).submitPassword(newPassword).signIn()
        else { throw TestFailure("expected completed") }
        #expect(account.account.username == "ida@example.com")
        #expect(served.tenant.user(named: "ida@example.com")?.password == newPassword)
        let paths = served.tenant.receivedRequests.map(\.url.path)
        // authorize-challenge, start (the methods, offered for choice), the SMS method's challenge and
        // verify, the update and three polls, resume, token.
        let ends = [
            "/authorize-challenge", "/resetpassword/start", "/challenge", "/verify", "", "/pollUpdate", "/pollUpdate",
            "/pollUpdate", "/authorize-challenge", "/token",
        ]
        #expect(paths.count == ends.count && zip(paths, ends).allSatisfy { $0.hasSuffix($1) }, "\(paths)")
        #expect(paths[2].contains("/methods/sms/") && paths[3].contains("/methods/sms/"))
        #expect(served.tenant.receivedRequests[4].method == "PUT")
    }
}
