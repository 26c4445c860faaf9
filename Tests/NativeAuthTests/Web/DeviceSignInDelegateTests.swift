import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Records the device sign-in delegate calls, checking each arrives on the main queue.
@MainActor
final class DeviceRecordingDelegate: DeviceSignInStartDelegate, DeviceSignInWaitDelegate {
    var calls: [String] = []
    var state: DeviceSignInState?
    var account: UserAccountResult?
    var error: WebSignInError?
    var errorState: DeviceSignInState?
    var offMainThread = false
    private var waiter: Latch<Void>?

    private func record(_ name: String) {
        if !MainQueueCheck.isOnMainQueue { offMainThread = true }
        calls.append(name)
        waiter?.fulfill(())
        waiter = nil
    }

    /// Runs `action` and waits for the next delegate call, within `TestBounds.wait`.
    func next(sourceLocation: SourceLocation = #_sourceLocation, _ action: () -> Void) async throws {
        let latch = Latch<Void>()
        waiter = latch
        action()
        try await latch.require("a delegate call after \(calls)", sourceLocation: sourceLocation)
    }

    func onDeviceSignInStarted(newState: DeviceSignInState) {
        state = newState
        record("started")
    }
    func onDeviceSignInStartError(error: WebSignInError) {
        self.error = error
        record("startError")
    }
    func onDeviceSignInCompleted(result: UserAccountResult) {
        account = result
        record("completed")
    }
    func onDeviceSignInWaitError(error: WebSignInError, newState: DeviceSignInState?) {
        self.error = error
        errorState = newState
        record("waitError")
    }
}

@Suite("Device code sign-in: the delegate form", .hangLimit)
@MainActor
struct DeviceSignInDelegateTests {
    func client(_ provider: ScriptedOpenIDProvider, clock: any NativeAuthClock) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
    }

    @Test func startsWaitsAndCompletesOnTheMainActor() async throws {
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.pending, ScriptedOpenIDProvider.success()])
        let client = try client(provider, clock: TestClock(advancesOnSleep: true))
        let delegate = DeviceRecordingDelegate()
        try await delegate.next {
            client.startDeviceSignIn(parameters: WebDeviceSignInParameters(), delegate: delegate)
        }
        let state = try #require(delegate.state)
        #expect(state.userCode == ScriptedOpenIDProvider.userCode)
        try await delegate.next { state.waitForCompletion(delegate: delegate) }
        #expect(delegate.calls == ["started", "completed"])
        #expect(delegate.account?.account.username == "grace@example.com")
        #expect(!delegate.offMainThread)
    }

    @Test func aStartErrorGoesToTheStartErrorCallback() async throws {
        let provider = ScriptedOpenIDProvider(deviceEndpoint: false, steps: [])
        let client = try client(provider, clock: TestClock(advancesOnSleep: true))
        let delegate = DeviceRecordingDelegate()
        try await delegate.next {
            client.startDeviceSignIn(parameters: WebDeviceSignInParameters(), delegate: delegate)
        }
        #expect(delegate.calls == ["startError"])
        #expect(delegate.error?.isUnsupported == true)
    }

    @Test func cancellingTheWaitHandsBackTheStateToWaitAgain() async throws {
        let clock = ManualClock()
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.success()])
        let client = try client(provider, clock: clock)
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters())
        let delegate = DeviceRecordingDelegate()
        var task: Task<Void, Never>?
        task = state.waitForCompletion(delegate: delegate)
        try await requireUntil("the wait to sleep") { @Sendable in clock.sleepers == 1 }
        try await delegate.next { task?.cancel() }
        #expect(delegate.calls == ["waitError"])
        #expect(delegate.error?.isCancelled == true)
        #expect(delegate.errorState === state)
        #expect(provider.requests(to: "/token").isEmpty)
    }

    @Test func aRefusalHandsBackNoState() async throws {
        let provider = ScriptedOpenIDProvider(steps: [ScriptedOpenIDProvider.error("access_denied")])
        let client = try client(provider, clock: TestClock(advancesOnSleep: true))
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters())
        let delegate = DeviceRecordingDelegate()
        try await delegate.next { state.waitForCompletion(delegate: delegate) }
        #expect(delegate.error?.isAccessDenied == true)
        #expect(delegate.errorState == nil)
    }
}
