import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport

/// Stands between the SDK and the emulated tenant, as its transport and its clock, and sees every
/// event of the action under test: each request and each wait.
///
/// For the action under test it can force a server answer on its n-th event (through
/// `EmulatedTenant.force`, just before that request reaches the tenant), or hold its n-th event
/// until the test releases it or cancels the action's task. Waits advance the shared
/// `ManualClock` by their length at once, so polling moves model time and never sleeps.
final class ActionProbe: HTTPTransport, NativeAuthClock {
    let tenant: EmulatedTenant
    let clock: ManualClock

    private struct State {
        var events: [WireEvent] = []
        var holdAt: Int?
        var fault: (index: Int, answer: ForcedAnswer)?
        var held: CheckedContinuation<Void, any Error>?
        var isHeld = false
        var cancelledBeforeParking = false
        var finished = false
        var waiter: Latch<Bool>?
    }

    private let state = LockedValue(State())

    /// The protocol the client under test speaks: the forced answers are written for it.
    let protocolVersion: NativeAuthProtocol

    init(tenant: EmulatedTenant, clock: ManualClock, protocolVersion: NativeAuthProtocol = .v1) {
        self.tenant = tenant
        self.clock = clock
        self.protocolVersion = protocolVersion
    }

    /// Starts watching a new action run in `mode`.
    func begin(_ mode: StepMode) {
        state.withLock { state in
            state = State()
            switch mode {
            case .plain: break
            case .fault(let fault, let index): state.fault = (index, fault.answer(over: protocolVersion))
            case .concurrent: state.holdAt = 1
            case .cancel(let index): state.holdAt = index
            }
        }
    }

    /// The events of the current action so far (a held event included).
    var events: [WireEvent] { state.withLock { $0.events } }

    /// Waits until the action's held event is reached; `false` when the action ended first,
    /// `nil` when neither happened within `TestBounds.wait`.
    func waitUntilHeld() async -> Bool? {
        let latch = Latch<Bool>()
        let answer: Bool? = state.withLock { state in
            if state.isHeld { return true }
            if state.finished { return false }
            state.waiter = latch
            return nil
        }
        if let answer { return answer }
        return await latch.outcome().value
    }

    /// Tells the probe the action under test has ended.
    func actionFinished() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.fulfill(false)
    }

    /// Lets the held event go on.
    func release() {
        let held = state.withLock { state in
            state.isHeld = false
            defer { state.held = nil }
            return state.held
        }
        held?.resume()
    }

    private func park() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (cancelled, waiter) = state.withLock { state -> (Bool, Latch<Bool>?) in
                    if state.cancelledBeforeParking { return (true, nil) }
                    state.held = continuation
                    state.isHeld = true
                    defer { state.waiter = nil }
                    return (false, state.waiter)
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                waiter?.fulfill(true)
            }
        } onCancel: {
            let held = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let held = state.held else {
                    state.cancelledBeforeParking = true
                    return nil
                }
                state.held = nil
                state.isHeld = false
                return held
            }
            held?.resume(throwing: CancellationError())
        }
    }

    /// Records an event; says whether to hold it and which answer to force on it.
    private func arrive(_ event: WireEvent) -> (hold: Bool, fault: ForcedAnswer?) {
        state.withLock { state in
            state.events.append(event)
            let index = state.events.count
            let fault = state.fault?.index == index && event.isRequest ? state.fault?.answer : nil
            return (state.holdAt == index, fault)
        }
    }

    /// The tenant's endpoint `request` is for: its path ends with the endpoint's path, where a
    /// `{…}` segment of a V2 link (a method's type or id) stands for any one non-empty segment.
    static func endpoint(of request: HTTPRequest) -> EmulatorEndpoint? {
        let path = request.url.path
        if let fixed = EmulatorEndpoint.allCases.first(where: { path.hasSuffix("/" + $0.rawValue) }) { return fixed }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return EmulatorEndpoint.allCases.first { endpoint in
            guard endpoint.rawValue.contains("{"), endpoint.method == request.method.uppercased() else { return false }
            let pattern = endpoint.rawValue.split(separator: "/", omittingEmptySubsequences: false)
            guard segments.count > pattern.count else { return false }
            return zip(pattern, segments.suffix(pattern.count)).allSatisfy { expected, given in
                expected.hasPrefix("{") ? !given.isEmpty : expected == given
            }
        }
    }

    // MARK: HTTPTransport

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let endpoint = Self.endpoint(of: request)
        let (hold, fault) = arrive(endpoint.map(WireEvent.request) ?? .otherRequest(request.url.path))
        if hold { try await park() }
        if let fault, let endpoint { tenant.force(fault, on: endpoint) }
        return try await tenant.send(request)
    }

    // MARK: NativeAuthClock

    func now() -> Date { clock.now() }

    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        guard seconds > 0 else { return }
        let (hold, _) = arrive(.sleep(Int(seconds.rounded())))
        if hold { try await park() }
        clock.advance(by: seconds)
        try Task.checkCancellation()
    }
}

/// A credential store that counts its writes.
final class CountingCredentialStore: CredentialStore {
    private let inner = InMemoryCredentialStore()
    private let writeCount = LockedValue(0)

    var writes: Int { writeCount.withLock { $0 } }

    func data(forKey key: String) async throws -> Data? { try await inner.data(forKey: key) }

    func setData(_ data: Data, forKey key: String) async throws {
        writeCount.withLock { $0 += 1 }
        try await inner.setData(data, forKey: key)
    }

    func removeData(forKey key: String) async throws { try await inner.removeData(forKey: key) }
}
