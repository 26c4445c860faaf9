import Foundation
import Testing

@testable import NativeAuth

/// The fuzz harness itself: the watchdog catches an action that never ends, and a seed always
/// generates the same case.
@Suite("Fuzz: harness")
struct FuzzHarnessTests {
    @Test func watchdogReportsAnActionThatNeverEnds() async {
        let hung = await Watchdog.race(limit: 10_000) { () async -> Int in
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
