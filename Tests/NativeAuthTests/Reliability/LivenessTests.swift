import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A transport that holds chosen requests forever and ignores cancellation, as a broken custom
/// transport would; the rest go to `inner`. `release()` lets the held ones end (with an error),
/// so nothing is left suspended after a test.
final class StuckTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let state = Locked<
        (stuck: Int, held: [CheckedContinuation<Void, Never>], arrived: Int, released: Bool)
    >((0, [], 0, false))
    /// Fulfilled when the first held request arrives, so a test waits for it without polling.
    let firstHeld = Latch<Void>()

    init(_ inner: any HTTPTransport, stuck: Int) {
        self.inner = inner
        state.withLock { $0.stuck = stuck }
    }

    var arrivedStuck: Int { state.current.arrived }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let hold = state.withLock { state -> Bool in
            guard state.stuck > 0 else { return false }
            state.stuck -= 1
            state.arrived += 1
            return true
        }
        guard hold else { return try await inner.send(request) }
        // Deliberately deaf to cancellation. The request is held before the test hears of it, and
        // one that arrives after `release()` is let go at once, so none is left suspended.
        await withCheckedContinuation { continuation in
            let released = state.withLock { state -> Bool in
                if !state.released { state.held.append(continuation) }
                return state.released
            }
            if released { continuation.resume() }
            firstHeld.fulfill(())
        }
        throw URLError(.resourceUnavailable)
    }

    func release() {
        for continuation in state.withLock({ state in
            defer { state.held = [] }
            state.released = true
            return state.held
        }) {
            continuation.resume()
        }
    }
}

/// Nothing waits forever: the SDK's own request deadline, and cancellation that ends a stuck call
/// at once; a shared refresh that nobody waits for any more runs on to its end (bounded by the
/// deadline), so that a refresh token the server rotated is stored.
@Suite("Reliability: nothing waits forever", .hangLimit)
struct LivenessTests {
    let scripted = ScriptedTransport()
    let clock = TestClock()
    let store = InMemoryCredentialStore()

    func makeClient(_ transport: any HTTPTransport, timeout: TimeInterval? = nil) -> NativeAuthClient {
        var configuration = testConfiguration()
        configuration.clock = clock
        configuration.requestTimeout = timeout
        return NativeAuthClient(configuration: configuration, transport: transport, credentialStore: store)
    }

    func signedIn(_ client: NativeAuthClient) async throws -> UserAccountResult {
        scripted.then("initiate", .token("ct1"))
        scripted.then("challenge", .password("ct2"))
        scripted.then("token", .tokens(access: "access-1", refresh: "refresh-1", expiresIn: 3600))
        guard case .completed(let account) = try await client.signIn(SignInParameters(username: "a@b.c", password: "p"))
        else { throw TestFailure("expected completed") }
        return account
    }

    /// Waits (bounded by `TestBounds.wait`, woken by the transport, not polling) until the first
    /// request is held by `transport`.
    func waitForStuck(_ transport: StuckTransport, sourceLocation: SourceLocation = #_sourceLocation) async {
        _ = await transport.firstHeld.wait(for: "the stuck request", sourceLocation: sourceLocation)
        #expect(transport.arrivedStuck >= 1, "the stuck request never arrived", sourceLocation: sourceLocation)
    }

    @Test func requestDeadlineEndsAStuckStep() async throws {
        let stuck = StuckTransport(scripted, stuck: 1)
        defer { stuck.release() }
        do {
            _ = try await makeClient(stuck, timeout: 0.2).signIn(SignInParameters(username: "a@b.c"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isNetworkError)
            #expect((error.details.underlyingError as? URLError)?.code == .timedOut)
        }
    }

    /// A transport that blocks its thread (a semaphore around a legacy client) until the test
    /// lets it go: the deadline must still end the step, since the transport runs on a thread of
    /// its own task, not on the caller's.
    @Test func requestDeadlineEndsAStepWhoseTransportBlocksItsThread() async throws {
        let blocked = DispatchSemaphore(value: 0)
        let blocking = BlockingTransport(blocked)
        defer { blocked.signal() }
        do {
            _ = try await makeClient(blocking, timeout: 0.2).signIn(SignInParameters(username: "a@b.c"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isNetworkError)
            #expect((error.details.underlyingError as? URLError)?.code == .timedOut)
        }
    }

    @Test func cancellationEndsAStuckStepAtOnce() async throws {
        let stuck = StuckTransport(scripted, stuck: 1)
        defer { stuck.release() }
        let client = makeClient(stuck, timeout: 600)
        let task = Task { try await client.signIn(SignInParameters(username: "a@b.c")) }
        await waitForStuck(stuck)
        // The transport never answers and ignores cancellation: without the SDK's own handling this
        // waits until the suite's time limit fails it.
        task.cancel()
        let result = await task.result
        guard case .failure(let error as SignInStartError) = result else {
            Issue.record("expected a cancellation, got \(result)")
            return
        }
        #expect(error.isCancelled)
    }

    /// The refresh requests sent so far, by the refresh token each redeemed.
    func refreshesSent() -> [String] {
        scripted.requests.compactMap { request in
            formFields(request).first { $0.hasPrefix("refresh_token=") }
        }
    }

    @Test func aRefreshLeftByEveryCallerRunsOnAndItsRotatedRefreshTokenIsStored() async throws {
        let gated = GatedTransport(scripted)
        let client = makeClient(gated, timeout: 600)
        let account = try await signedIn(client)
        clock.advance(by: 4000)
        gated.close()
        scripted.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        let first = Task { try await account.getAccessToken() }
        await gated.waitUntilHeld(1)
        first.cancel()
        guard case .failure(let error as RetrieveAccessTokenError) = await first.result else {
            Issue.record("expected a cancellation")
            return
        }
        #expect(error.isCancelled)
        // The request was sent: the server may have rotated the refresh token. The refresh goes
        // on, and the next call gets its token, joining it or from the cache, with no second
        // redemption of refresh-1 (nothing else is scripted: a second request would fail).
        gated.open()
        #expect(try await account.getAccessToken().accessToken == "access-2")
        #expect(refreshesSent() == ["refresh_token=refresh-1"])
        // The rotated refresh token is in the store.
        scripted.then("token", .tokens(access: "access-3", refresh: "refresh-3"))
        let restored = try #require(try await makeClient(scripted).currentAccount())
        #expect(try await restored.getAccessToken(forceRefresh: true).accessToken == "access-3")
        #expect(refreshesSent() == ["refresh_token=refresh-1", "refresh_token=refresh-2"])
    }

    @Test func aCallerWhoJoinsAStuckRefreshLeavesAtOnceWhenCancelled() async throws {
        let client = makeClient(scripted, timeout: 600)
        _ = try await signedIn(client)
        clock.advance(by: 4000)
        let stuck = StuckTransport(scripted, stuck: 1)
        defer { stuck.release() }
        let stuckAccount = try #require(try await makeClient(stuck, timeout: 600).currentAccount())
        let first = Task { try await stuckAccount.getAccessToken() }
        await waitForStuck(stuck)
        first.cancel()
        let second = Task { try await stuckAccount.getAccessToken() }
        second.cancel()
        for task in [first, second] {
            guard case .failure(let error as RetrieveAccessTokenError) = await task.result else {
                Issue.record("expected a cancellation")
                continue
            }
            #expect(error.isCancelled)
        }
        // One refresh was sent, and it is still the one in flight (held until the deadline).
        #expect(stuck.arrivedStuck == 1)
    }

    @Test func aStuckRefreshTimesOutForEveryWaiter() async throws {
        let gated = StuckTransport(scripted, stuck: 0)
        defer { gated.release() }
        // Only the stuck refresh has the short deadline: a sign-in step on a loaded machine can
        // take longer than 0.2 s of real time.
        let client = makeClient(gated, timeout: 600)
        let account = try await signedIn(client)
        clock.advance(by: 4000)
        let stuck = StuckTransport(scripted, stuck: 1)
        defer { stuck.release() }
        let waiting = try #require(try await makeClient(stuck, timeout: 0.2).currentAccount())
        let timedOut = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    do {
                        _ = try await waiting.getAccessToken()
                        return false
                    } catch {
                        return (error as? RetrieveAccessTokenError)?.isNetworkError == true
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(timedOut == [true, true])
        #expect(stuck.arrivedStuck == 1, "the two callers shared one refresh")
        // The account survives a timeout.
        #expect(try await client.currentAccount() != nil)
        _ = account
    }
}

/// A transport that blocks the thread it runs on until `semaphore` is signalled, then fails.
final class BlockingTransport: HTTPTransport, Sendable {
    let semaphore: DispatchSemaphore

    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        blockThread()
        throw URLError(.resourceUnavailable)
    }

    /// Synchronous on purpose: it stands for a client that blocks whatever thread calls it.
    private func blockThread() { semaphore.wait() }
}
