import AuthSupport
import Foundation

/// Decides when a refresh needs the person's confirmation, asks the checker once for every
/// refresh waiting at the time, and remembers a confirmation as long as the policy lets it count.
///
/// One per client. A waiter whose task is cancelled leaves at once; when the last waiter has
/// left, the check's task is cancelled and its answer, whenever it comes, counts for nothing. The
/// gate sets no deadline of its own: a person answers in their own time.
final class UserPresenceGate: Sendable {
    /// Indirect: a value is one reference to its case's fields, so copying it, and the code
    /// that copies and destroys it, stay small.
    indirect enum Outcome: Sendable, Equatable {
        case confirmed
        case refused(UserPresenceError)
        /// The waiter's task was cancelled.
        case cancelled
    }

    /// What a new confirmation's check decided.
    enum Verdict: Sendable, Equatable {
        /// It counts.
        case accepted
        /// It is refused (the enrolled biometry changed).
        case refused(UserPresenceError)
        /// Its biometry state changed together with the system: it counts once the device owner
        /// confirms with their credential.
        case ownerConfirmationNeeded
    }

    /// Checks a new confirmation before it counts; `ownerConfirmed` says the device owner has
    /// confirmed with their credential since.
    typealias Verify = @Sendable (UserPresenceConfirmation, _ ownerConfirmed: Bool) async -> Verdict

    let requirement: UserPresenceRequirement?
    private let clock: any NativeAuthClock
    private let state = Locked(State())

    private struct State: Sendable {
        /// The last confirmation that may count: when it was given, and in which session.
        var last: (at: Date, session: String?)?
        var check: Check?
        var nextId = 0
    }

    /// The check under way and the tasks waiting for it. A class, so that the state holds one
    /// reference; `@unchecked Sendable`: it is read and changed only under the gate's lock.
    private final class Check: @unchecked Sendable {
        let id: Int
        let session: String?
        var task: Task<Void, Never>?
        /// In the order they came; few, so a list.
        var waiters: [(id: Int, continuation: HandedContinuation<Outcome>)] = []

        init(id: Int, session: String?) {
            self.id = id
            self.session = session
        }
    }

    init(requirement: UserPresenceRequirement?, clock: any NativeAuthClock) {
        self.requirement = requirement
        self.clock = clock
    }

    /// Whether refreshes need a confirmation at all.
    var isActive: Bool { requirement != nil }

    /// How many refreshes wait for the check under way (for tests).
    var waiterCount: Int { state.withLock { $0.check?.waiters.count ?? 0 } }

    /// Forgets the last confirmation: the next refresh asks again. A check under way goes on.
    func reset() { state.withLock { $0.last = nil } }

    /// Returns once the person has confirmed for a refresh in `session`: at once when an earlier
    /// confirmation still counts, otherwise with the outcome of the check under way, or of one
    /// started now.
    func confirm(session: String?, verify: @escaping Verify) async -> Outcome {
        guard let requirement else { return .confirmed }
        let waiter = state.withLock { state in
            state.nextId += 1
            return state.nextId
        }
        // Read before taking the lock: the clock is the app's code.
        let now = clock.now()
        return await withTaskCancellationHandler {
            await withHandedContinuation(of: Outcome.self) { continuation in
                let answer: Outcome? = state.withLock { state in
                    if Task.isCancelled { return .cancelled }
                    if let last = state.last,
                        requirement.policy.stillCounts(
                            confirmedAt: last.at, confirmedIn: last.session, now: now, session: session)
                    {
                        return .confirmed
                    }
                    let check: Check
                    if let running = state.check {
                        check = running
                    } else {
                        state.nextId += 1
                        let id = state.nextId
                        check = Check(id: id, session: session)
                        state.check = check
                        check.task = Task { await self.run(id, requirement: requirement, verify: verify) }
                    }
                    check.waiters.append((waiter, continuation))
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            leave(waiter)
        }
    }

    private func run(_ id: Int, requirement: UserPresenceRequirement, verify: Verify) async {
        // The asking is a function of its own, so that its awaits under conditions (which have
        // the compiler copy what follows them) copy none of what follows here.
        let outcome = await ask(requirement, verify: verify)
        // A confirmation lasts from when it was given, that is, from now.
        let now = clock.now()
        let waiting: [HandedContinuation<Outcome>] = state.withLock { state in
            guard let check = state.check, check.id == id else { return [] }
            state.check = nil
            if outcome == .confirmed, requirement.policy != .always { state.last = (now, check.session) }
            return check.waiters.map(\.continuation)
        }
        waiting.forEach { $0.resume(returning: outcome) }
    }

    /// Asks the checker, and the owner when the verdict says so; a cancelled check counts for
    /// nothing, so its confirmation is not verified.
    private func ask(_ requirement: UserPresenceRequirement, verify: Verify) async -> Outcome {
        do {
            let confirmation = try await requirement.checker.confirmPresence(reason: requirement.reason)
            var verdict = Task.isCancelled ? .accepted : await verify(confirmation, false)
            if verdict == .ownerConfirmationNeeded, !Task.isCancelled {
                _ = try await requirement.checker.confirmOwner(reason: requirement.reason)
                verdict = Task.isCancelled ? .accepted : await verify(confirmation, true)
            }
            switch verdict {
            case .accepted: return .confirmed
            case .refused(let problem): return .refused(problem)
            case .ownerConfirmationNeeded: return .refused(.biometryChanged)
            }
        } catch {
            return .refused(error)
        }
    }

    /// A waiter whose task was cancelled leaves; the last one to leave ends the check.
    private func leave(_ waiter: Int) {
        typealias Left = (continuation: HandedContinuation<Outcome>, abandoned: Task<Void, Never>?)
        let left: Left? = state.withLock { state in
            guard let check = state.check, let index = check.waiters.firstIndex(where: { $0.id == waiter }) else {
                return nil
            }
            let continuation = check.waiters.remove(at: index).continuation
            guard check.waiters.isEmpty else { return (continuation, nil) }
            state.check = nil
            return (continuation, check.task)
        }
        left?.abandoned?.cancel()
        left?.continuation.resume(returning: .cancelled)
    }
}
