import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Network faults: retried only where safe, bounded, state usable after", .hangLimit)
struct FaultTests {
    let harness = EmulatorHarness()

    /// Moves the manual clock whenever the SDK (or the emulator) waits on it, and counts the
    /// seconds it moved.
    final class ClockMover: Sendable {
        let task: Task<Void, Never>
        init(_ clock: ManualClock) {
            task = advanceWhileSleeping(clock, by: 0.5)
        }
        deinit { task.cancel() }
    }

    func requests(_ suffix: String) -> Int {
        harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix(suffix) }.count
    }

    func codeState() async throws -> SignInCodeRequiredState {
        guard
            case .codeRequired(let state, _, _, _) = try await harness.client.signIn(
                SignInParameters(username: "grace@example.com"))
        else { throw TestFailure("expected code") }
        return state
    }

    @Test func tooManyRequestsIsRetriedOnceAfterRetryAfter() async throws {
        let mover = ClockMover(harness.clock)
        let start = harness.clock.now()
        harness.tenant.force(.tooManyRequests(retryAfter: 3), on: .initiate)
        _ = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
        #expect(requests("initiate") == 2)
        #expect(harness.clock.now().timeIntervalSince(start) >= 3)
        _ = mover
    }

    @Test func retryAfterBeyondTheBoundIsReturnedAtOnce() async throws {
        harness.tenant.force(.tooManyRequests(retryAfter: 3600), on: .initiate)
        do {
            _ = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isUnexpectedResponse)
            #expect(error.details.httpStatusCode == 429)
        }
        #expect(requests("initiate") == 1)
    }

    @Test func twice429IsRetriedOnlyOnce() async throws {
        let mover = ClockMover(harness.clock)
        harness.tenant.force(.serviceUnavailable(retryAfter: 1), on: .challenge, times: 2)
        do {
            _ = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isUnexpectedResponse)
            #expect(error.details.httpStatusCode == 503)
        }
        #expect(requests("challenge") == 2)
        _ = mover
    }

    @Test func aConnectionNeverMadeIsRetried() async throws {
        let mover = ClockMover(harness.clock)
        let state = try await codeState()
        harness.tenant.force(.cannotConnect, on: .token)
        guard case .completed = try await state.submitCode(harness.code(for: "grace@example.com")) else {
            throw TestFailure("expected completed")
        }
        #expect(requests("token") == 2)
        _ = mover
    }

    @Test(arguments: [ForcedAnswer.timeout, .networkFailure, .error("server_error", status: 500)])
    func anActingStepIsNotRetriedAndTheStateStaysUsable(answer: ForcedAnswer) async throws {
        let state = try await codeState()
        harness.tenant.force(answer, on: .token)
        let code = try harness.code(for: "grace@example.com")
        do {
            _ = try await state.submitCode(code)
            Issue.record("expected an error")
        } catch {
            #expect(error.isNetworkError || error.isUnexpectedResponse)
            #expect(error.isStateStillUsable)
        }
        #expect(requests("token") == 1)
        guard case .completed = try await state.submitCode(harness.code(for: "grace@example.com")) else {
            throw TestFailure("expected completed on the second try")
        }
    }

    @Test func anAnswerLostAfterProcessingIsNotRepeated() async throws {
        let state = try await codeState()
        harness.tenant.force(.lostAfterProcessing, on: .token)
        let code = try harness.code(for: "grace@example.com")
        do {
            _ = try await state.submitCode(code)
        } catch {
            #expect(error.isNetworkError)
        }
        #expect(requests("token") == 1)
        // The server consumed the token: trying again says the flow must start over.
        do {
            _ = try await state.submitCode(code)
        } catch {
            #expect(error.isFlowExpired)
        }
    }

    @Test func aTruncatedAnswerIsAnUnexpectedResponse() async throws {
        harness.tenant.force(.truncatedAfterProcessing(keepingBytes: 20), on: .initiate)
        do {
            _ = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
        } catch {
            #expect(error.isUnexpectedResponse)
            #expect(error.details.httpStatusCode == 200)
        }
    }

    @Test func idempotentReadsAreRetriedOnServerErrors() async throws {
        let mover = ClockMover(harness.clock)
        harness.tenant.force(.error("server_error", status: 500), on: .introspect)
        let result = try await harness.client.signIn(
            SignInParameters(username: "alan@example.com", password: EmulatorHarness.password))
        guard case .awaitingMFA = result else { throw TestFailure("expected MFA") }
        #expect(requests("introspect") == 2)
        _ = mover
    }

    @Test func latencyOnTheClockChangesNothing() async throws {
        let mover = ClockMover(harness.clock)
        harness.tenant.configure { $0.latency = 2 }
        let state = try await codeState()
        guard case .completed = try await state.submitCode(harness.code(for: "grace@example.com")) else {
            throw TestFailure("expected completed")
        }
        _ = mover
    }
}

@Suite("Cancellation: prompt, nothing more sent, state usable", .hangLimit)
struct CancellationTests {
    /// Every state of the catalogue but a new password's (whose wait is the poller's own), its
    /// forward call cancelled while the tenant's latency holds it on the clock.
    @Test(arguments: FlowStateVariant.all.filter { $0.kind != .resetPassword })
    func cancellingAnyActionKeepsTheState(variant: FlowStateVariant) async throws {
        let name = variant.typeName
        let fixture = FlowFixture(protocolVersion: variant.protocolVersion)
        let tenant = fixture.harness.tenant
        let state = try await fixture.reach(variant.kind)
        tenant.configure { $0.latency = 5 }
        let before = tenant.receivedRequests.count
        let task = Task { await fixture.forward(state).outcome }
        try await requireUntil("\(name): the action to wait on the clock") { fixture.harness.clock.sleepers > 0 }
        task.cancel()
        let error = await task.value.failure
        #expect(error?.isCancelled == true, "\(name): \(String(describing: error))")
        #expect(error?.isStateStillUsable == true, "\(name)")
        #expect(tenant.receivedRequests.count == before, "\(name): nothing more sent")
        tenant.configure { $0.latency = 0 }
        let again = await fixture.forward(state).outcome.failure
        #expect(again == nil, "\(name): the state must work after a cancellation: \(String(describing: again))")
    }

    @Test func aCancelledTokenCallerLeavesAtOnceAndTheRefreshGoesOnForOthers() async throws {
        let harness = EmulatorHarness()
        guard
            case .completed(let account) = try await harness.client.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        else { throw TestFailure("expected completed") }
        harness.tenant.configure { $0.latency = 5 }
        let patient = Task { try await account.getAccessToken(forceRefresh: true) }
        try await requireUntil("the refresh to wait on the clock") { harness.clock.sleepers > 0 }
        let impatient = Task { try await account.getAccessToken(forceRefresh: true) }
        // Once the second caller has joined the refresh in flight, cancel it.
        try await requireEventually("both callers to wait for the one refresh") {
            await account.manager.coalescer.waiterCount == 2
        }
        impatient.cancel()
        do {
            _ = try await impatient.value
            Issue.record("expected a cancellation")
        } catch let error as RetrieveAccessTokenError {
            #expect(error.isCancelled)
        }
        harness.clock.advance(by: 5)
        let token = try await patient.value
        #expect(!token.accessToken.isEmpty)
        #expect(harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix("token") }.count == 2)
    }
}
