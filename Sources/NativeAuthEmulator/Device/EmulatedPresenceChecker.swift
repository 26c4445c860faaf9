import AuthSupport
public import Foundation
public import NativeAuth

/// A person in front of the device, for the presence gate (``UserPresenceRequirement``) where no
/// Face ID, Touch ID or device passcode can be asked: in tests, previews, the simulator and on
/// Linux. It answers each confirmation from a script, records what it was asked, and can hold
/// confirmations until told to let them go, as a person who takes their time.
///
/// ```swift
/// let person = EmulatedPresenceChecker([.refuse(.cancelled), .confirm()])
/// configuration.userPresence = UserPresenceRequirement(
///     policy: .always, reason: "Unlock your account", checker: person)
/// ```
///
/// With the script used up, it answers ``Answer/confirm(biometryState:)`` with no biometry
/// state (or the `otherwise` answer it was made with). A held confirmation ends when its task is
/// cancelled (with ``UserPresenceError/cancelled``), as a system prompt does.
public final class EmulatedPresenceChecker: UserPresenceChecker, Sendable {
    /// What the person does when asked.
    public enum Answer: Sendable {
        /// Confirms; `biometryState` stands for the enrolled biometrics (change it between answers
        /// to play a face or finger added), `nil` when the checker cannot tell; `systemVersion`
        /// for the operating system that produced it (change it with the state to play an OS
        /// update: the SDK then asks ``EmulatedPresenceChecker/confirmOwner(reason:)``).
        case confirm(biometryState: Data? = nil, systemVersion: String? = nil)
        /// Does not confirm, for the reason given (cancelled, locked out, …).
        case refuse(UserPresenceError)
    }

    private enum Waiter {
        case pending
        case waiting(CheckedContinuation<Bool, Never>)
        case cancelled
    }

    private struct State {
        var script: [Answer]
        var calls = 0
        var ownerCalls = 0
        var reasons: [String] = []
        var holding = false
        var nextId = 0
        var held: [Int: Waiter] = [:]
        /// Tasks waiting in ``waitUntilHeld(_:)``: the count each waits for.
        var watchers: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Waits cancelled before they parked.
        var cancelledWatchers: Set<Int> = []
    }

    private let state: Locked<State>
    private let otherwise: Answer

    /// A person who answers `script` in order, then `otherwise` (a confirmation by default).
    public init(_ script: [Answer] = [], otherwise: Answer = .confirm()) {
        state = Locked(State(script: script))
        self.otherwise = otherwise
    }

    /// Adds an answer after those scripted.
    public func then(_ answer: Answer) { state.withLock { $0.script.append(answer) } }

    /// How many times the SDK asked, for the person's presence and for the owner's credential.
    public var calls: Int { state.current.calls }

    /// How many of ``calls`` asked for the device owner's credential
    /// (``confirmOwner(reason:)``).
    public var ownerCalls: Int { state.current.ownerCalls }

    /// The reasons the SDK showed, in order.
    public var reasons: [String] { state.current.reasons }

    /// How many confirmations are held now.
    public var heldCount: Int { state.current.held.count }

    /// Holds the confirmations asked from now on, until ``release()``.
    public func hold() { state.withLock { $0.holding = true } }

    /// Lets every held confirmation take its answer, and answers later ones at once.
    public func release() {
        let held = state.withLock { state in
            state.holding = false
            defer { state.held = [:] }
            return state.held
        }
        for case .waiting(let continuation) in held.values { continuation.resume(returning: true) }
    }

    /// Returns once `count` confirmations are held (at once if they are already), or as soon as
    /// the calling task is cancelled.
    public func waitUntilHeld(_ count: Int = 1) async {
        let id = state.withLock { state -> Int in
            defer { state.nextId += 1 }
            return state.nextId
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    guard state.held.count < count, !state.cancelledWatchers.contains(id) else { return true }
                    state.watchers.append((id, count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.watchers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledWatchers.insert(id)
                    return nil
                }
                return state.watchers.remove(at: index).continuation
            }
            waiting?.resume()
        }
        state.withLock { _ = $0.cancelledWatchers.remove(id) }
    }

    /// Answers with the next scripted answer, after a ``hold()`` once released.
    public func confirmPresence(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation {
        try await answer(reason: reason, owner: false)
    }

    /// Answers as ``confirmPresence(reason:)`` does, counted in ``ownerCalls`` too: the owner's
    /// credential after the biometry state changed with the system version.
    public func confirmOwner(reason: String) async throws(UserPresenceError) -> UserPresenceConfirmation {
        try await answer(reason: reason, owner: true)
    }

    private func answer(reason: String, owner: Bool) async throws(UserPresenceError) -> UserPresenceConfirmation {
        let (id, ready) = state.withLock { state -> (Int?, [CheckedContinuation<Void, Never>]) in
            state.calls += 1
            if owner { state.ownerCalls += 1 }
            state.reasons.append(reason)
            guard state.holding else { return (nil, []) }
            let id = state.nextId
            state.nextId += 1
            state.held[id] = .pending
            let count = state.held.count
            let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
            state.watchers.removeAll { $0.count <= count }
            return (id, ready)
        }
        ready.forEach { $0.resume() }
        if let id, await !released(id) { throw .cancelled }
        let answer = state.withLock { state in state.script.isEmpty ? otherwise : state.script.removeFirst() }
        switch answer {
        case .confirm(let biometryState, let systemVersion):
            return UserPresenceConfirmation(biometryState: biometryState, systemVersion: systemVersion)
        case .refuse(let error): throw error
        }
    }

    /// Waits until held confirmation `id` is released (`true`) or its task is cancelled (`false`).
    private func released(_ id: Int) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer = state.withLock { state -> Bool? in
                    switch state.held[id] {
                    case .pending?:
                        state.held[id] = .waiting(continuation)
                        return nil
                    case .cancelled?:
                        state.held[id] = nil
                        return false
                    case .waiting?:
                        return nil
                    case nil:
                        return true  // released before it waited
                    }
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                switch state.held[id] {
                case .waiting(let continuation)?:
                    state.held[id] = nil
                    return continuation
                case .pending?:
                    state.held[id] = .cancelled
                    return nil
                default:
                    return nil
                }
            }
            waiting?.resume(returning: false)
        }
    }
}
