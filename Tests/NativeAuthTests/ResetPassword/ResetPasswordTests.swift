import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Password reset end to end on the emulator", .hangLimit)
struct ResetPasswordEmulatorTests {
    let harness = EmulatorHarness()
    static let newPassword = "N3w-Secure-Pass!"

    func requiredState() async throws -> ResetPasswordRequiredState {
        let start = try await harness.client.resetPassword(ResetPasswordParameters(username: "ada@example.com"))
        guard case .codeRequired(let state, let sentTo, _, _) = start else { throw TestFailure("expected code") }
        #expect(sentTo.contains("***"))
        do {
            _ = try await state.submitCode("00000000")
        } catch {
            #expect(error.isInvalidCode)
        }
        return try await state.submitCode(harness.code(for: "ada@example.com"))
    }

    /// Submits the password while moving the manual clock each time the poller sleeps.
    func submit(_ password: String, on state: ResetPasswordRequiredState) async throws(PasswordRequiredError)
        -> SignInAfterResetPasswordState
    {
        let mover = advanceWhileSleeping(harness.clock)
        defer { mover.cancel() }
        return try await state.submitPassword(password)
    }

    @Test func resetThenSignInWithOneRequest() async throws {
        let state = try await requiredState()
        let signIn = try await submit(Self.newPassword, on: state)
        let polls = harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix("poll_completion") }
        #expect(polls.count == 3)  // two in progress, then succeeded
        #expect(harness.tenant.user(named: "ada@example.com")?.password == Self.newPassword)
        let before = harness.tenant.receivedRequests.count
        guard case .completed(let account) = try await signIn.signIn() else { throw TestFailure("expected signed in") }
        #expect(harness.tenant.receivedRequests.count == before + 1)
        #expect(account.account.username == "ada@example.com")
        // The old password no longer works; the new one does.
        do {
            _ = try await harness.client.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
            Issue.record("the old password must fail")
        } catch {
            #expect(error.isInvalidCredentials)
        }
    }

    @Test func policyErrorsLeaveTheStateUsable() async throws {
        let state = try await requiredState()
        do {
            _ = try await submit("short", on: state)
        } catch {
            #expect(error.passwordPolicyViolation == .tooShort)
        }
        do {
            _ = try await submit(EmulatorHarness.password, on: state)
        } catch {
            #expect(error.passwordPolicyViolation == .recentlyUsed)
        }
        _ = try await submit(Self.newPassword, on: state)
    }

    @Test func failedJobAllowsSubmittingAgain() async throws {
        harness.tenant.configure { $0.resetJobOutcome = .fail }
        let state = try await requiredState()
        do {
            _ = try await submit(Self.newPassword, on: state)
            Issue.record("expected failure")
        } catch {
            #expect(error.isPasswordResetFailed)
        }
        harness.tenant.configure { $0.resetJobOutcome = .succeed }
        _ = try await submit(Self.newPassword, on: state)
    }

    @Test func pollingIsBounded() async throws {
        harness.tenant.configure { $0.resetPollsBeforeCompletion = 100 }
        let state = try await requiredState()
        do {
            _ = try await submit(Self.newPassword, on: state)
            Issue.record("expected to give up")
        } catch {
            #expect(error.isPasswordResetPending)
            #expect(!error.isPasswordResetFailed)
        }
        let polls = harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix("poll_completion") }
        #expect(polls.count == ResetPasswordFlow.maximumPolls)
    }

    @Test func cancellingWhilePollingEndsPromptlyAndKeepsTheState() async throws {
        let state = try await requiredState()
        let task = Task { try await state.submitPassword(Self.newPassword) }
        try await requireUntil("the reset's poller to sleep") { harness.clock.sleepers > 0 }
        let before = harness.tenant.receivedRequests.count
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("expected cancellation")
        } catch let error as PasswordRequiredError {
            #expect(error.isCancelled)
            #expect(error.isPasswordResetPending)
        }
        #expect(harness.tenant.receivedRequests.count == before)
        // The state is usable again.
        _ = try await submit(Self.newPassword, on: state)
    }

    @Test func aWaitInterruptedByTheNetworkIsPendingAndResumes() async throws {
        let state = try await requiredState()
        // Twice, so the SDK's one retry of the poll also fails.
        harness.tenant.force(.networkFailure, on: .resetPollCompletion, times: 2)
        do {
            _ = try await submit(Self.newPassword, on: state)
            Issue.record("expected a network error")
        } catch {
            #expect(error.isNetworkError)
            #expect(error.isPasswordResetPending)
            #expect(error.isStateStillUsable)
        }
        let submits = harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix("submit") }.count
        _ = try await submit("any-other-password", on: state)
        // The wait resumed: the password was not submitted again.
        #expect(harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix("submit") }.count == submits)
        #expect(harness.tenant.user(named: "ada@example.com")?.password == Self.newPassword)
    }

    @Test func startErrors() async throws {
        do {
            _ = try await harness.client.resetPassword(ResetPasswordParameters(username: "nobody@example.com"))
        } catch {
            #expect(error.isUserNotFound)
        }
        do {
            _ = try await harness.client.resetPassword(ResetPasswordParameters(username: "grace@example.com"))
        } catch {
            #expect(error.isUserDoesNotHavePassword)
            #expect(error.errorCodes.contains(500222))
        }
        let before = harness.tenant.receivedRequests.count
        do {
            _ = try await harness.client.resetPassword(ResetPasswordParameters(username: " "))
        } catch {
            #expect(error.isInvalidUsername)
        }
        #expect(harness.tenant.receivedRequests.count == before)
    }

    @Test func resendInvalidatesTheOldCode() async throws {
        let start = try await harness.client.resetPassword(ResetPasswordParameters(username: "ada@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else { throw TestFailure("expected code") }
        let old = try harness.code(for: "ada@example.com")
        let fresh = try await state.resendCode()
        let new = try harness.code(for: "ada@example.com")
        if old != new {
            do {
                _ = try await fresh.submitCode(old)
            } catch {
                #expect(error.isInvalidCode)
            }
        }
        _ = try await fresh.submitCode(new)
    }

    @Test func resetWithMFAOnThenSignInAsksForTheSecondFactor() async throws {
        let start = try await harness.client.resetPassword(ResetPasswordParameters(username: "alan@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else { throw TestFailure("expected code") }
        let required = try await state.submitCode(harness.code(for: "alan@example.com"))
        let signIn = try await submit(Self.newPassword, on: required)
        guard case .awaitingMFA(let awaiting, let methods) = try await signIn.signIn() else {
            throw TestFailure("expected MFA")
        }
        let mfa = try await awaiting.requestChallenge(authMethod: methods[0])
        guard case .completed = try await mfa.submitChallenge(harness.code(for: "alan.backup@example.com")) else {
            throw TestFailure("expected signed in")
        }
    }
}

@Suite("Password reset: server answers decode to the right outcome", .hangLimit)
struct ResetPasswordWireTests {
    let transport = ScriptedTransport()
    let clock = TestClock()
    var client: NativeAuthClient {
        var configuration = testConfiguration()
        configuration.clock = clock
        return NativeAuthClient(
            configuration: configuration, transport: transport, credentialStore: InMemoryCredentialStore())
    }

    func requiredState() async throws -> ResetPasswordRequiredState {
        transport.then("resetpassword/v1.0/start", .token("ct1"))
        transport.then("resetpassword/v1.0/challenge", .oob("ct2"))
        transport.then("resetpassword/v1.0/continue", .json(200, "{\"continuation_token\":\"ct3\",\"expires_in\":600}"))
        guard
            case .codeRequired(let state, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: "u@x.y"))
        else { throw TestFailure("expected code") }
        return try await state.submitCode("1")
    }

    /// Every poll sends the token `submit` returned (as Microsoft's clients do), never a poll's own.
    @Test func pollsSendTheSubmitTokenAndPasswordErrorsAtPollKeepTheState() async throws {
        let state = try await requiredState()
        transport.then("resetpassword/v1.0/submit", .json(200, "{\"continuation_token\":\"ct4\",\"poll_interval\":2}"))
        transport.then(
            "resetpassword/v1.0/poll_completion",
            .json(200, "{\"status\":\"in_progress\",\"continuation_token\":\"ct5\"}"))
        transport.then("resetpassword/v1.0/poll_completion", .error("invalid_grant", suberror: "password_banned"))
        do {
            _ = try await state.submitPassword("password1")
        } catch {
            #expect(error.passwordPolicyViolation == .banned)
        }
        let bodies = transport.requests.suffix(3).map(formFields)
        #expect(bodies[0].contains("new_password=password1"))
        #expect(bodies[1].contains("continuation_token=ct4"))
        #expect(bodies[2].contains("continuation_token=ct4"))
        // A new submission uses the submit's token: polls consumed nothing.
        transport.then("resetpassword/v1.0/submit", .json(200, "{\"continuation_token\":\"ct6\"}"))
        transport.then(
            "resetpassword/v1.0/poll_completion",
            .json(200, "{\"status\":\"succeeded\",\"continuation_token\":\"ct7\"}"))
        let after = try await state.submitPassword("Better-Passw0rd")
        #expect(formFields(transport.requests[transport.requests.count - 2]).contains("continuation_token=ct4"))
        transport.then("token", .tokens())
        _ = try await after.signIn()
        #expect(formFields(transport.requests.last!).contains("continuation_token=ct7"))
    }

    @Test func threePollsAllSendTheSubmitToken() async throws {
        let state = try await requiredState()
        transport.then("resetpassword/v1.0/submit", .json(200, "{\"continuation_token\":\"ct4\",\"poll_interval\":1}"))
        transport.then(
            "resetpassword/v1.0/poll_completion",
            .json(200, "{\"status\":\"not_started\",\"continuation_token\":\"p1\"}"))
        transport.then(
            "resetpassword/v1.0/poll_completion",
            .json(200, "{\"status\":\"in_progress\",\"continuation_token\":\"p2\"}"))
        transport.then(
            "resetpassword/v1.0/poll_completion", .json(200, "{\"status\":\"succeeded\",\"continuation_token\":\"p3\"}")
        )
        let after = try await state.submitPassword("Better-Passw0rd")
        let polls = transport.requests.suffix(3).map(formFields)
        #expect(polls.allSatisfy { $0.contains("continuation_token=ct4") })
        #expect(after.isSignInAvailable)
        transport.then("token", .tokens())
        _ = try await after.signIn()
        #expect(formFields(transport.requests.last!).contains("continuation_token=p3"))
    }

    /// `succeeded` without a token: the password was changed; only sign-in after it is unavailable.
    @Test func succeededWithoutTokenCompletesWithSignInUnavailable() async throws {
        let state = try await requiredState()
        transport.then("resetpassword/v1.0/submit", .json(200, "{\"continuation_token\":\"ct4\",\"poll_interval\":1}"))
        transport.then("resetpassword/v1.0/poll_completion", .json(200, "{\"status\":\"succeeded\"}"))
        let after = try await state.submitPassword("Better-Passw0rd")
        #expect(!after.isSignInAvailable)
        let sent = transport.requests.count
        do {
            _ = try await after.signIn()
            Issue.record("sign-in after the reset has no token")
        } catch {
            #expect(error.isSignInUnavailable)
            #expect(!error.isStateStillUsable)
            #expect(!error.isFlowExpired)
        }
        #expect(transport.requests.count == sent)
    }

    @Test func unknownPollStatusIsUnexpected() async throws {
        let state = try await requiredState()
        transport.then("resetpassword/v1.0/submit", .json(200, "{\"continuation_token\":\"ct4\",\"poll_interval\":1}"))
        transport.then("resetpassword/v1.0/poll_completion", .json(200, "{\"status\":\"weird\"}"))
        do {
            _ = try await state.submitPassword("x")
        } catch {
            #expect(error.isUnexpectedResponse)
        }
    }

    @Test func expiredDuringPolling() async throws {
        let state = try await requiredState()
        transport.then("resetpassword/v1.0/submit", .json(200, "{\"continuation_token\":\"ct4\"}"))
        transport.then("resetpassword/v1.0/poll_completion", .error("expired_token", codes: [552003]))
        do {
            _ = try await state.submitPassword("x")
        } catch {
            #expect(error.isFlowExpired)
        }
    }

    @Test func userNotFoundMidFlow() async throws {
        let state = try await requiredState()
        transport.then("resetpassword/v1.0/submit", .json(200, "{\"continuation_token\":\"ct4\"}"))
        transport.then("resetpassword/v1.0/poll_completion", .error("user_not_found"))
        do {
            _ = try await state.submitPassword("x")
        } catch {
            #expect(error.isUserNotFound)
        }
    }
}
