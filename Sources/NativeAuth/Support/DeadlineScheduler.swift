import AuthSupport
import Foundation

/// Runs handlers at deadlines on one dispatch timer for the whole process.
///
/// Every request has a deadline, and nearly every request ends long before it. A dispatch timer
/// per request is made, started and cancelled each time, and starting one wakes dispatch's
/// manager thread; here a request adds an entry to a heap and removes it, and the one timer is
/// re-armed only when a new deadline is earlier than the one it is armed for. Requests of one
/// client share one timeout, so their deadlines come in order and the timer is armed about once
/// per timeout, not once per request.
///
/// A cancelled entry leaves the heap lazily: when it reaches the top, or when cancelled entries
/// outnumber live ones, the heap is rebuilt from the live ones.
final class DeadlineScheduler: Sendable {
    static let shared = DeadlineScheduler()

    /// A scheduled handler, to cancel.
    struct Token: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private struct State {
        /// The deadlines in uptime nanoseconds, live and cancelled entries alike.
        var heap = DeadlineHeap<UInt64>()
        /// The live entries' handlers, in the order of their ids: ids only grow, so a new entry
        /// goes at the end, and an entry is found by halving.
        var handlers: [(id: UInt64, run: @Sendable () -> Void)] = []
        var nextID: UInt64 = 0
        /// The deadline the timer is armed for; `nil` when it is not armed.
        var armed: UInt64?

        /// Where the live entry `id` is in ``handlers``; `nil` when it ran or was cancelled.
        func index(of id: UInt64) -> Int? {
            var low = 0
            var high = handlers.count
            while low < high {
                let middle = (low + high) / 2
                if handlers[middle].id < id { low = middle + 1 } else { high = middle }
            }
            return low < handlers.count && handlers[low].id == id ? low : nil
        }
    }

    private let state = Locked(State())
    /// Safe to share: a dispatch source may be scheduled and cancelled from any thread.
    nonisolated(unsafe) private let timer: any DispatchSourceTimer

    init() {
        let queue = DispatchQueue(label: "nativeauth.deadlines")
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler { [weak self] in self?.fireDue() }
        timer.activate()
    }

    deinit { timer.cancel() }

    /// Runs `handler` once, `seconds` from now (at most a day), unless cancelled first.
    func schedule(after seconds: TimeInterval, _ handler: @escaping @Sendable () -> Void) -> Token {
        let delay = UInt64(max(0, min(seconds.isNaN ? 0 : seconds, 86_400)) * 1_000_000_000)
        return schedule(at: DispatchTime.now().uptimeNanoseconds &+ delay, handler)
    }

    /// Runs `handler` once at `deadline` (uptime nanoseconds), unless cancelled first; tests give
    /// several handlers deadlines from one instant, so that the time taken to schedule them cannot
    /// change their order.
    func schedule(at deadline: UInt64, _ handler: @escaping @Sendable () -> Void) -> Token {
        // The timer is set while the lock is held, so that two threads arming it cannot leave it
        // set for the later of their deadlines.
        return state.withLock { state in
            state.nextID &+= 1
            let id = state.nextID
            state.handlers.append((id, handler))
            state.heap.insert(at: deadline, id: id)
            if state.armed.map({ deadline < $0 }) ?? true {
                state.armed = deadline
                timer.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline))
            }
            return Token(id: id)
        }
    }

    /// Cancels the handler of `token`; nothing happens when it ran already.
    func cancel(_ token: Token) {
        state.withLock { state in
            guard let index = state.index(of: token.id) else { return }
            state.handlers.remove(at: index)
            if state.heap.count > 64, state.heap.count > 4 * state.handlers.count {
                let live = state
                state.heap.compact { live.index(of: $0) != nil }
            }
        }
    }

    /// How many handlers are waiting, for tests.
    var pending: Int { state.withLock { $0.handlers.count } }

    /// How many entries the heap holds, cancelled ones included, for tests.
    var heapCount: Int { state.withLock { $0.heap.count } }

    /// Runs the handlers whose deadline has come, then arms the timer for the next live one.
    private func fireDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [@Sendable () -> Void] in
            var due: [@Sendable () -> Void] = []
            while let top = state.heap.first {
                guard let index = state.index(of: top.id) else {
                    state.heap.removeFirst()
                    continue
                }
                guard top.at <= now else { break }
                state.heap.removeFirst()
                due.append(state.handlers.remove(at: index).run)
            }
            state.armed = state.heap.first?.at
            timer.schedule(deadline: state.armed.map { DispatchTime(uptimeNanoseconds: $0) } ?? .distantFuture)
            return due
        }
        for handler in due { handler() }
    }
}
