import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite("ManualClock", .hangLimit)
struct ManualClockTests {
    /// Waits until `clock` has `count` sleepers parked (woken by them; the suite's time limit
    /// bounds it), then checks that exactly `count` are.
    func waitForSleepers(
        _ clock: ManualClock, _ count: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await clock.waitForSleepers(count)
        #expect(clock.sleepers == count, sourceLocation: sourceLocation)
    }

    @Test func waitingForSleepersIsWokenByThemAndReturnsAtOnceWhenEnoughAreParked() async throws {
        let clock = ManualClock(now: epoch)
        // Nobody needs to be parked for zero.
        try await clock.waitForSleepers(0)
        let waiter = Task { try await clock.waitForSleepers(2) }
        let first = Task { try await clock.sleep(seconds: 5) }
        let second = Task { try await clock.sleep(seconds: 7) }
        try await waiter.value
        #expect(clock.sleepers == 2)
        // Already parked: at once.
        try await clock.waitForSleepers(1)
        clock.advance(by: 7)
        try await first.value
        try await second.value
    }

    @Test func aCancelledWaitForSleepersThrows() async throws {
        let clock = ManualClock()
        let waiter = Task { try await clock.waitForSleepers() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.waitForSleepers()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }

    @Test func aMoverKeepsTimeMovingForSleepersOnly() async throws {
        let clock = ManualClock(now: epoch)
        let mover = Task {
            while (try? await clock.waitForSleepers()) != nil { clock.advance(by: 1) }
        }
        defer { mover.cancel() }
        try await clock.sleep(seconds: 10)
        #expect(clock.now() == epoch.addingTimeInterval(10))
        try await clock.sleep(seconds: 3)
        #expect(clock.now() == epoch.addingTimeInterval(13))
    }

    @Test func advanceAndSet() {
        let clock = ManualClock()
        #expect(clock.now() == Date(timeIntervalSince1970: 1_800_000_000))
        clock.advance(by: 90)
        #expect(clock.now() == Date(timeIntervalSince1970: 1_800_000_090))
        clock.set(Date(timeIntervalSince1970: 5))
        #expect(clock.now() == Date(timeIntervalSince1970: 5))
    }

    @Test func sleepReturnsOnlyOnceTheDeadlineIsReached() async throws {
        let clock = ManualClock(now: epoch)
        let sleeper = Task {
            try await clock.sleep(seconds: 10)
            return clock.now()
        }
        try await waitForSleepers(clock, 1)
        clock.advance(by: 9)
        #expect(clock.sleepers == 1)
        clock.advance(by: 1)
        #expect(try await sleeper.value == epoch.addingTimeInterval(10))
        #expect(clock.sleepers == 0)
    }

    @Test func setWakesSleepersAndSeveralWakeTogether() async throws {
        let clock = ManualClock(now: epoch)
        let short = Task { try await clock.sleep(seconds: 1) }
        let long = Task { try await clock.sleep(seconds: 100) }
        try await waitForSleepers(clock, 2)
        clock.set(epoch.addingTimeInterval(50))
        try await short.value
        #expect(clock.sleepers == 1)
        clock.set(epoch.addingTimeInterval(1000))
        try await long.value
    }

    @Test func zeroOrNegativeSleepReturnsAtOnce() async throws {
        let clock = ManualClock()
        try await clock.sleep(seconds: 0)
        try await clock.sleep(seconds: -3)
        #expect(clock.sleepers == 0)
    }

    @Test func cancellationWhileSleepingThrowsAndLeavesNoSleeper() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(seconds: 60) }
        try await waitForSleepers(clock, 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
        clock.advance(by: 120)  // Nothing left to resume.
    }

    @Test func cancellationBeforeSleepingThrows() async throws {
        let clock = ManualClock()
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(seconds: 60)
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleepers == 0)
    }

    @Test func manyRacingCancellationsNeverHang() async throws {
        let clock = ManualClock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                let task = Task { try await clock.sleep(seconds: 5) }
                group.addTask {
                    if index % 2 == 0 { await Task.yield() }
                    task.cancel()
                    _ = try? await task.value
                }
            }
            try await group.waitForAll()
        }
        #expect(clock.sleepers == 0)
    }
}

@Suite("Random sources", .hangLimit)
struct RandomSourceTests {
    @Test func seededSourceIsDeterministic() {
        let first = SeededRandomSource(seed: 7)
        let second = SeededRandomSource(seed: 7)
        let other = SeededRandomSource(seed: 8)
        let a = (0..<5).map { _ in first.next() }
        #expect(a == (0..<5).map { _ in second.next() })
        #expect(a != (0..<5).map { _ in other.next() })
        // SplitMix64 reference value for seed 0.
        #expect(SeededRandomSource(seed: 0).next() == 0xE220_A839_7B1D_CDAF)
    }

    @Test func systemSourceVaries() {
        let source = SystemRandomSource()
        #expect(Set((0..<4).map { _ in source.next() }).count > 1)
    }

    @Test func sameSeedSameCodesAndTokens() async throws {
        func run(seed: UInt64) async throws -> (codes: [String], token: String) {
            let harness = Harness(seed: seed) { $0.codeLength = 6 }
            let challenge = try await harness.startSignIn(Fixture.grace)
            _ = try await harness.post(
                .challenge, ["continuation_token": challenge["continuation_token"], "challenge_type": "oob redirect"])
            return (harness.tenant.outbox.map(\.code), challenge["continuation_token"])
        }
        let first = try await run(seed: 99)
        let second = try await run(seed: 99)
        let third = try await run(seed: 100)
        #expect(first.codes == second.codes && first.token == second.token)
        #expect(first.codes.allSatisfy { $0.count == 6 })
        #expect(first.codes != third.codes)
    }
}
