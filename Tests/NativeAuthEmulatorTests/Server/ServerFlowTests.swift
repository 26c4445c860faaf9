import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import LoopbackHTTP

/// Every native flow of the SDK, through `URLSessionTransport`, against the tenant served on
/// loopback HTTP: the same answers as in process, over a real socket.
@Suite("Emulator server: native flows over loopback HTTP", .hangLimit)
struct ServerFlowTests {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test("the authority is http on 127.0.0.1 and the client accepts it")
    func authority() async throws {
        let served = try ServedTenant()
        #expect(served.server.authority.absoluteString == "http://127.0.0.1:\(served.port)/contoso.onmicrosoft.com")
        #expect(served.server.controlURL.absoluteString == "http://127.0.0.1:\(served.port)/emulator/v1")
        #expect(
            served.server.url(for: .token).absoluteString
                == "http://127.0.0.1:\(served.port)/contoso.onmicrosoft.com/oauth2/v2.0/token")
        let configuration = try NativeAuthConfiguration(clientId: "app", authority: served.server.authority)
        #expect(configuration.authority == served.server.authority)
        await served.server.stop()
    }

    @Test("a sign-in cancelled while the server holds its answer ends as cancelled, and the server serves on")
    func cancelledWhileAnswerHeld() async throws {
        var configuration = EmulatorServer.Configuration()
        configuration.latency = .seconds(600)  // every tenant answer is held
        configuration.drainTimeout = .zero
        let served = try ServedTenant(configuration: configuration)
        let client = try served.client()
        let signIn = Task { try await client.signIn(SignInParameters(username: Fixture.ada)) }
        #expect(await waitUntil("the sign-in's connection") { served.server.connectionCounts.accepted >= 1 })
        signIn.cancel()
        do {
            _ = try await signIn.value
            Issue.record("expected a cancellation")
        } catch let error as SignInStartError {
            #expect(error.isCancelled)
        }
        try await served.expectServing()
        await served.server.stop()
    }

    @Test("sign-up with a code, a password and attributes, then sign-in")
    func signUp() async throws {
        let served = try ServedTenant {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "displayName")]
        }
        let client = try served.client()
        let username = "new.user@contoso.com"
        guard case .codeRequired(let codeState, _, _, _) = try await client.signUp(SignUpParameters(username: username))
        else { throw Failure("expected codeRequired") }
        let code = try #require(served.tenant.lastCode(sentTo: username))
        guard case .passwordRequired(let passwordState) = try await codeState.submitCode(code) else {
            throw Failure("expected passwordRequired")
        }
        guard
            case .attributesRequired(_, let attributesState) = try await passwordState.submitPassword("Br4nd-New-Pass!")
        else { throw Failure("expected attributesRequired") }
        guard case .completed(let signIn) = try await attributesState.submitAttributes(["displayName": "New User"])
        else { throw Failure("expected completed") }
        guard case .completed(let account) = try await signIn.signIn() else { throw Failure("expected signed in") }
        #expect(account.account.username == username)
        #expect(served.tenant.user(named: username)?.attributes["displayName"] == "New User")
        await served.server.stop()
    }

    @Test("code sign-in, with the code read through the control API")
    func codeSignIn() async throws {
        let served = try ServedTenant()
        let client = try served.client()
        guard
            case .codeRequired(let state, _, _, _) = try await client.signIn(SignInParameters(username: Fixture.grace))
        else { throw Failure("expected codeRequired") }
        let sent = try await served.control("GET", "/codes/\(Fixture.grace)")
        let code = try #require(sent["code"] as? String)
        guard case .completed(let account) = try await state.submitCode(code) else {
            throw Failure("expected completed")
        }
        #expect(account.account.username == Fixture.grace)
        #expect(account.account.claims.tenantId == served.tenant.tenantId)
        await served.server.stop()
    }

    @Test("password sign-in, refresh, and the protected resource")
    func passwordSignInRefreshAndResource() async throws {
        let served = try ServedTenant()
        let client = try served.client()
        do {
            _ = try await client.signIn(SignInParameters(username: Fixture.ada, password: "not-the-password"))
            Issue.record("a wrong password must fail")
        } catch {
            #expect(error.isInvalidCredentials)
        }
        guard
            case .completed(let account) = try await client.signIn(
                SignInParameters(username: Fixture.ada, password: Fixture.adaPassword))
        else { throw Failure("expected completed") }
        let first = try await account.getAccessToken()
        served.harness.clock.advance(by: 3600)
        let refreshed = try await account.getAccessToken()
        #expect(refreshed.accessToken != first.accessToken)
        let forced = try await account.getAccessToken(forceRefresh: true)
        #expect(forced.accessToken != refreshed.accessToken)

        let me = try await account.send(HTTPRequest(method: "GET", url: served.server.url(for: .resource)))
        #expect(me.statusCode == 200)
        let body = try #require(try JSONSerialization.jsonObject(with: me.body) as? [String: Any])
        #expect(body["username"] as? String == Fixture.ada)
        let anonymous = try await served.transport.send(
            HTTPRequest(method: "GET", url: served.server.url(for: .resource)))
        #expect(anonymous.statusCode == 401)
        #expect(anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        await served.server.stop()
    }

    @Test("MFA: password, then a code to the chosen method")
    func mfa() async throws {
        let served = try ServedTenant()
        let client = try served.client()
        guard
            case .awaitingMFA(let awaiting, let methods) = try await client.signIn(
                SignInParameters(username: Fixture.alan, password: Fixture.alanPassword))
        else { throw Failure("expected awaitingMFA") }
        let method = try #require(methods.first { $0.channelTargetType == .email })
        let required = try await awaiting.requestChallenge(authMethod: method)
        let code = try #require(served.tenant.lastCode(sentTo: "alan.backup@example.org"))
        guard case .completed(let account) = try await required.submitChallenge(code) else {
            throw Failure("expected completed")
        }
        #expect(account.account.username == Fixture.alan)
        await served.server.stop()
    }

    @Test("strong authentication method registration during sign-in")
    func registration() async throws {
        let served = try ServedTenant()
        let client = try served.client()
        guard
            case .strongAuthRegistrationRequired(let state, let methods) = try await client.signIn(
                SignInParameters(username: Fixture.linus, password: Fixture.linusPassword))
        else { throw Failure("expected registration") }
        let method = try #require(methods.first)
        let challenge = try await state.challengeAuthMethod(
            authMethod: method, verificationContact: "linus.mfa@example.org")
        guard case .verificationRequired(let verify, _, _, _) = challenge else { throw Failure("expected a code") }
        let code = try #require(served.tenant.lastCode(sentTo: "linus.mfa@example.org"))
        guard case .completed = try await verify.submitChallenge(code) else { throw Failure("expected completed") }
        #expect(served.tenant.user(named: Fixture.linus)?.mfaMethods.isEmpty == false)
        await served.server.stop()
    }

    @Test("password reset with polling, then sign-in with the new password")
    func resetPassword() async throws {
        let served = try ServedTenant()
        let client = try served.client()
        guard
            case .codeRequired(let codeState, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: Fixture.ada))
        else { throw Failure("expected codeRequired") }
        let code = try #require(served.tenant.lastCode(sentTo: Fixture.ada))
        let passwordState = try await codeState.submitCode(code)
        // The SDK polls on the manual clock: move it whenever the poller sleeps.
        let mover = advanceWhileSleeping(served.harness.clock)
        defer { mover.cancel() }
        let signIn = try await passwordState.submitPassword("Fresh-Passw0rd-2024")
        guard case .completed(let account) = try await signIn.signIn() else { throw Failure("expected signed in") }
        #expect(account.account.username == Fixture.ada)
        #expect(served.tenant.user(named: Fixture.ada)?.password == "Fresh-Passw0rd-2024")
        await served.server.stop()
    }

    @Test("a forced error reaches the SDK over HTTP; a forced network fault drops the connection")
    func forcedAnswers() async throws {
        let served = try ServedTenant()
        let client = try served.client()
        served.tenant.force(.error("invalid_client", codes: [700016]), on: .initiate)
        do {
            _ = try await client.signIn(SignInParameters(username: Fixture.ada, password: Fixture.adaPassword))
            Issue.record("the forced error must fail the sign-in")
        } catch {
            #expect(error.errorCodes.contains(700016))
        }
        served.tenant.clearReceivedRequests()
        served.tenant.force(.networkFailure, on: .initiate)
        do {
            _ = try await client.signIn(SignInParameters(username: Fixture.ada, password: Fixture.adaPassword))
            Issue.record("a dropped connection must fail the sign-in")
        } catch {
            #expect(error.isNetworkError)
        }
        // Dropped once, and not sent again behind the SDK's back.
        #expect(served.tenant.receivedRequests.count == 1)
        guard
            case .completed = try await client.signIn(
                SignInParameters(username: Fixture.ada, password: Fixture.adaPassword))
        else { throw Failure("expected completed after the fault") }
        await served.server.stop()
    }
}
