import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

// The fuzz suite's machinery: the case budget, and a runner that races every
// case against a watchdog and reports a failing case with the seed that replays it.
//
//   swift test --filter Fuzz
//       the default share: 8,000 cases over the targets, plus a sweep of every status code
//   NATIVEAUTH_FUZZ_CASES=100000 swift test --filter Fuzz
//       the full run: that many cases in all, shared by the targets (FuzzTarget.share)
//   NATIVEAUTH_FUZZ_SEED=0x… swift test --filter "Fuzz.*<target>"
//       replays the one case of that seed (as printed by a failure) with the same generator code
//   NATIVEAUTH_FUZZ_BASE_SEED=…
//       generates other cases than the default ones
//   NATIVEAUTH_FUZZ_V2_CASES=<n>
//       the hostile V2 documents (FuzzV2FlowTests): n cases instead of the default 600 (a tenth of
//       NATIVEAUTH_FUZZ_CASES when only that is set)
//
// Each target prints one summary line: its cases, failures, hangs and time.

/// The targets, with their share of the case budget.
enum FuzzTarget: String, CaseIterable, Sendable {
    case jsonParse, classify, decoders, serverError, jwtClaims, base64url, httpDate, flows
    /// Hostile HAL documents through the V2 flows; its count is its own (`FuzzSettings.v2FlowCases`).
    case v2Flows

    /// Per mille of the total budget; the shares add up to 1,000.
    var share: Int {
        switch self {
        case .jsonParse: 200
        case .classify: 180
        case .decoders: 150
        case .serverError: 100
        case .jwtClaims: 100
        case .base64url: 100
        case .httpDate: 30
        case .flows: 140
        case .v2Flows: 0
        }
    }

    var salt: UInt64 {
        rawValue.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}

/// The budget and seeds, from the environment.
enum FuzzSettings {
    static let defaultTotal = 8_000
    static let defaultBaseSeed: UInt64 = 0x5EED_F022_2026_0001

    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The total number of cases over all targets.
    static var totalCases: Int {
        environment["NATIVEAUTH_FUZZ_CASES"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            .map { max($0, FuzzTarget.allCases.count) } ?? defaultTotal
    }

    /// The one case to replay, when set.
    static var replaySeed: UInt64? { environment["NATIVEAUTH_FUZZ_SEED"].flatMap(parseSeed) }

    static var baseSeed: UInt64 {
        environment["NATIVEAUTH_FUZZ_BASE_SEED"].flatMap(parseSeed) ?? defaultBaseSeed
    }

    static func parseSeed(_ text: String) -> UInt64? {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    /// The cases of `target`: its share of the total, rounded up.
    static func cases(for target: FuzzTarget) -> Int {
        if target == .v2Flows { return v2FlowCases }
        return (totalCases * target.share + 999) / 1000
    }

    static let defaultV2FlowCases = 600

    /// The hostile V2 documents' cases: `NATIVEAUTH_FUZZ_V2_CASES`, else a tenth of
    /// `NATIVEAUTH_FUZZ_CASES` when that is set, else ``defaultV2FlowCases``. Each case runs a whole
    /// flow on a fresh emulated tenant, so they are fewer than the other targets' cases.
    static var v2FlowCases: Int {
        if let text = environment["NATIVEAUTH_FUZZ_V2_CASES"],
            let count = Int(text.trimmingCharacters(in: .whitespaces))
        {
            return max(1, count)
        }
        if environment["NATIVEAUTH_FUZZ_CASES"] != nil { return max(1, totalCases / 10) }
        return defaultV2FlowCases
    }

    /// The seed of case `index` of `target`.
    static func seed(for target: FuzzTarget, index: Int) -> UInt64 {
        SplitMix64.mix((baseSeed ^ target.salt) &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
    }

    static func hex(_ seed: UInt64) -> String { "0x" + String(seed, radix: 16) }
}

/// One generated case: its size (for the watchdog) and the check to run.
struct FuzzCase: Sendable {
    /// Bytes of generated input; a larger input gets a larger watchdog budget.
    var size: Int
    /// Whether the case races each of its steps against its own watchdog (and reports a hang as a
    /// problem starting with "hang"); the runner then adds none.
    var guardsItself = false
    /// Runs the target on the case and returns what went wrong, nothing when all is well.
    var run: @Sendable () async -> [String]

    init(size: Int, guardsItself: Bool = false, run: @escaping @Sendable () async -> [String]) {
        self.size = size
        self.guardsItself = guardsItself
        self.run = run
    }
}

/// Races one action against a counter of yields: a hang is the counter reaching its limit first.
///
/// No wall clock is used. The action runs in its own task, so a case that never returns is reported
/// and left behind instead of blocking the suite.
enum Watchdog {
    /// Yields allowed for every case, plus `yieldsPerKilobyte` for each kilobyte of generated input.
    ///
    /// An uncontended `Task.yield()` takes some tens of nanoseconds here, so the counter reaches
    /// these limits in about a second for a small case (a slow machine slows both sides alike);
    /// the slowest cases seen use a few percent of their budget (printed with each summary).
    static let baseYields = 20_000_000
    static let yieldsPerKilobyte = 50_000

    static func limit(forSize size: Int) -> Int { baseYields + size / 1024 * yieldsPerKilobyte }

    /// The most yields any finished action let the counter make: how close a run came to the limit.
    static let mostYieldsUsed = Locked(0)

    /// The action's value, or `nil` when the counter won (a hang). `credit` raises the limit while
    /// the action runs.
    static func race<T: Sendable>(
        limit: Int, credit: Locked<Int>? = nil, _ action: @escaping @Sendable () async -> T
    ) async -> T? {
        let finished = Locked(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let claim: @Sendable () -> Bool = {
                finished.withLock { done in
                    defer { done = true }
                    return !done
                }
            }
            let work = Task {
                let value = await action()
                if claim() { continuation.resume(returning: value) }
            }
            Task {
                var count = 0
                while count < limit + (credit?.current ?? 0) {
                    if finished.current {
                        mostYieldsUsed.withLock { $0 = max($0, count) }
                        return
                    }
                    await Task.yield()
                    count += 1
                }
                // A hung action is cancelled before the runner goes on to the next case.
                if claim() {
                    work.cancel()
                    continuation.resume(returning: nil)
                }
            }
        }
    }
}

/// Runs the cases of one target and reports.
struct FuzzRunner {
    let target: FuzzTarget
    /// At most this many failing cases are reported as issues; the rest are counted.
    let reportLimit = 10

    struct Summary {
        var cases = 0
        var failures = 0
        var hangs = 0
        var seconds = 0.0
    }

    /// Generates and runs the target's cases (or the one case of `NATIVEAUTH_FUZZ_SEED`) and
    /// prints one summary line.
    @discardableResult
    func run(
        sourceLocation: SourceLocation = #_sourceLocation, _ generate: @escaping @Sendable (UInt64) -> FuzzCase
    ) async -> Summary {
        let seeds: [UInt64]
        if let replay = FuzzSettings.replaySeed {
            seeds = [replay]
        } else {
            seeds = (0..<FuzzSettings.cases(for: target)).map { FuzzSettings.seed(for: target, index: $0) }
        }
        var summary = Summary()
        let start = ContinuousClock.now
        for seed in seeds {
            // In-process answers do not suspend the caller: let other suites run between cases.
            await Task.yield()
            let fuzzCase = generate(seed)
            summary.cases += 1
            let outcome: [String]?
            if fuzzCase.guardsItself {
                outcome = await fuzzCase.run()
            } else {
                outcome = await Watchdog.race(limit: Watchdog.limit(forSize: fuzzCase.size), fuzzCase.run)
            }
            guard let problems = outcome, !problems.contains(where: { $0.hasPrefix("hang") }) else {
                summary.hangs += 1
                summary.failures += 1
                report(seed: seed, outcome ?? ["hang: the watchdog's yield counter finished first"], sourceLocation)
                // A hung case keeps a thread of the cooperative pool; stop this target.
                break
            }
            if !problems.isEmpty {
                summary.failures += 1
                if summary.failures <= reportLimit { report(seed: seed, problems, sourceLocation) }
            }
        }
        let elapsed = ContinuousClock.now - start
        summary.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let seedText =
            FuzzSettings.replaySeed.map { "replay " + FuzzSettings.hex($0) } ?? "base seed "
            + FuzzSettings.hex(FuzzSettings.baseSeed)
        print(
            "fuzz \(target.rawValue): \(summary.cases) cases, \(summary.failures) failing, \(summary.hangs) hangs, "
                + String(format: "%.2f s", summary.seconds) + ", \(seedText); most watchdog yields used so far "
                + "\(Watchdog.mostYieldsUsed.current) of \(Watchdog.baseYields)")
        return summary
    }

    private func report(seed: UInt64, _ problems: [String], _ sourceLocation: SourceLocation) {
        let hex = FuzzSettings.hex(seed)
        let text =
            "fuzz \(target.rawValue) seed \(hex): " + problems.prefix(6).joined(separator: "; ")
            + " — replay: NATIVEAUTH_FUZZ_SEED=\(hex) swift test --filter \"Fuzz.*\(target.rawValue)\""
        print(text)
        Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
    }
}

/// Collects problems of one case.
struct Problems {
    private(set) var list: [String] = []

    mutating func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { list.append(message()) }
    }

    mutating func add(_ message: String) { list.append(message) }
}
