import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The fuzz harness itself: the watchdog catches an action that never ends, and a seed always
/// generates the same case.
@Suite("Fuzz: harness", .hangLimit)
struct FuzzHarnessTests {
    /// A small yield budget is enough to see the watchdog fire; it keeps the test at a second or
    /// so even when the cooperative pool is crowded by the other fuzz suites, where each yield can
    /// wait milliseconds for a thread (a budget of 10,000 took over a minute there).
    @Test func watchdogReportsAnActionThatNeverEnds() async {
        let hung = await Watchdog.race(limit: 200) { () async -> Int in
            // Never ends by itself; stops once the watchdog cancels it.
            while !Task.isCancelled { await Task.yield() }
            return 0
        }
        #expect(hung == nil)
        let quick = await Watchdog.race(limit: 10_000) { () async -> Int in 42 }
        #expect(quick == 42)
    }

    @Test func sameSeedSameCase() {
        for target in FuzzTarget.allCases {
            #expect(FuzzSettings.seed(for: target, index: 7) == FuzzSettings.seed(for: target, index: 7))
        }
        var first = Gen(seed: 0x1234)
        var second = Gen(seed: 0x1234)
        let a = first.successBody(.token).render(spacing: true, using: &first.rng)
        let b = second.successBody(.token).render(spacing: true, using: &second.rng)
        #expect(a == b)
    }
}
