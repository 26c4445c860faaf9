import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// The one deadline timer: handlers run in deadline order, once, and never after a cancellation;
/// an earlier deadline scheduled after a later one re-arms the timer; cancelled entries do not pile
/// up. Each test uses a scheduler of its own, and its waits are bounded by latches.
@Suite("Deadline: the shared timer", .hangLimit)
struct DeadlineSchedulerTests {
    /// The order in which handlers ran.
    final class Record: Sendable {
        private let names = Locked<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var value: [String] { names.current }
    }

    @Test func handlersRunInDeadlineOrderOnceAndACancelledOneNever() async throws {
        let scheduler = DeadlineScheduler()
        let record = Record()
        let last = Latch<Void>()
        // Scheduled latest first: the timer must be re-armed for each earlier deadline. The
        // deadlines count from one instant, so a pause while scheduling cannot reorder them, and
        // the cancelled one is cancelled at once, 300 ms before it is due.
        let start = DispatchTime.now().uptimeNanoseconds
        let millisecond: UInt64 = 1_000_000
        _ = scheduler.schedule(at: start + 700 * millisecond) {
            record.add("c")
            last.fulfill(())
        }
        _ = scheduler.schedule(at: start + 500 * millisecond) { record.add("b") }
        let cancelled = scheduler.schedule(at: start + 300 * millisecond) { record.add("cancelled") }
        scheduler.cancel(cancelled)
        _ = scheduler.schedule(at: start + 100 * millisecond) { record.add("a") }
        _ = try await last.require("the last handler")
        #expect(record.value == ["a", "b", "c"])
        #expect(scheduler.pending == 0)
    }

    @Test func aHandlerScheduledAfterTheTimerWentIdleStillRuns() async throws {
        let scheduler = DeadlineScheduler()
        let first = Latch<Void>()
        _ = scheduler.schedule(after: 0) { first.fulfill(()) }
        _ = try await first.require("the first handler")
        let second = Latch<Void>()
        _ = scheduler.schedule(after: 0.01) { second.fulfill(()) }
        _ = try await second.require("a handler scheduled after the timer went idle")
    }

    @Test func cancelledEntriesDoNotPileUp() async throws {
        let scheduler = DeadlineScheduler()
        // A day away: only cancellation removes these.
        for _ in 0..<10_000 {
            scheduler.cancel(scheduler.schedule(after: 86_400) {})
        }
        #expect(scheduler.pending == 0)
        #expect(scheduler.heapCount <= 65, "the heap is rebuilt once cancelled entries outnumber live ones")
        let ran = Latch<Void>()
        _ = scheduler.schedule(after: 0.01) { ran.fulfill(()) }
        _ = try await ran.require("a handler after many cancellations")
    }

    @Test func oddDelaysAreClampedNotTrapped() async throws {
        let scheduler = DeadlineScheduler()
        let ran = Latch<Void>()
        _ = scheduler.schedule(after: -5) { ran.fulfill(()) }
        _ = try await ran.require("a handler with a negative delay")
        scheduler.cancel(scheduler.schedule(after: .nan) {})
        scheduler.cancel(scheduler.schedule(after: .infinity) {})
        #expect(scheduler.pending == 0)
    }

    @Test func theHeapYieldsDeadlinesInOrderAndCompactsToTheKeptIds() {
        var generator = SystemRandomNumberGenerator()
        var heap = DeadlineHeap<Int>()
        var inserted: [(at: Int, id: UInt64)] = []
        for id in 0..<500 {
            let at = Int.random(in: 0..<100, using: &generator)
            heap.insert(at: at, id: UInt64(id))
            inserted.append((at, UInt64(id)))
        }
        heap.compact { $0 % 3 != 0 }
        var popped: [Int] = []
        var ids: Set<UInt64> = []
        while let top = heap.first {
            popped.append(top.at)
            ids.insert(top.id)
            heap.removeFirst()
        }
        #expect(popped == popped.sorted())
        #expect(ids == Set(inserted.map(\.id).filter { $0 % 3 != 0 }))
        heap.removeFirst()  // empty: nothing happens
        #expect(heap.count == 0)
    }
}
