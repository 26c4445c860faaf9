import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// How many sequences to run, or which one seed.
struct PropertyRunConfiguration: Sendable {
    static let defaultSequences = 10_000
    static let baseSeed: UInt64 = 0x4E41_5449_5645_4155  // "NATIVEAU"
    static let lanes = 8

    var seeds: [UInt64]

    static func fromEnvironment() -> PropertyRunConfiguration {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["NATIVEAUTH_PROPERTY_SEED"], let seed = parseSeed(text) {
            return PropertyRunConfiguration(seeds: [seed])
        }
        let count = environment["NATIVEAUTH_PROPERTY_SEQUENCES"].flatMap { Int($0) } ?? defaultSequences
        return PropertyRunConfiguration(
            seeds: (0..<max(0, count)).map { PropertyRandom.sequenceSeed(base: baseSeed, index: $0) })
    }

    static func parseSeed(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased().hasPrefix("0x") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }
}

/// What a run of many sequences found.
struct PropertyRunReport: Sendable {
    var sequences = 0
    var steps = 0
    var failures: [SequenceFailure] = []
    var outcomes: [String: Int] = [:]

    mutating func merge(_ other: PropertyRunReport) {
        sequences += other.sequences
        steps += other.steps
        failures += other.failures
        outcomes.merge(other.outcomes) { $0 + $1 }
    }
}

enum PropertyRun {
    /// Runs every seed on `lanes` parallel lanes; each sequence gets its own tenant and client,
    /// speaking `protocolVersion`.
    static func run(
        _ seeds: [UInt64], protocolVersion: NativeAuthProtocol = .v1, lanes: Int = PropertyRunConfiguration.lanes
    ) async -> PropertyRunReport {
        await withTaskGroup(of: PropertyRunReport.self) { group in
            for lane in 0..<max(1, lanes) {
                group.addTask {
                    var report = PropertyRunReport()
                    var index = lane
                    while index < seeds.count {
                        await runOne(seeds[index], protocolVersion: protocolVersion, into: &report)
                        index += lanes
                        // An in-process tenant answers without suspending the caller: give the
                        // other suites' tasks their turn on the cooperative pool between sequences.
                        await Task.yield()
                    }
                    return report
                }
            }
            var total = PropertyRunReport()
            for await report in group { total.merge(report) }
            total.failures.sort { $0.seed < $1.seed }
            return total
        }
    }

    static func runOne(_ seed: UInt64, protocolVersion: NativeAuthProtocol, into report: inout PropertyRunReport) async
    {
        let scenario = SequenceGenerator.scenario(seed: seed, protocolVersion: protocolVersion)
        report.sequences += 1
        report.steps += scenario.steps.count
        for step in scenario.steps {
            switch step.step.mode {
            case .plain: break
            case .fault(let fault, let index): report.outcomes["mode fault \(fault) at #\(index)", default: 0] += 1
            case .concurrent: report.outcomes["mode concurrent", default: 0] += 1
            case .cancel(let index): report.outcomes["mode cancel at #\(index)", default: 0] += 1
            }
            if case .state(.handle, _) = step.step.action { report.outcomes["target older state", default: 0] += 1 }
            if scenario.plan.useDelegates { report.outcomes["api delegate steps", default: 0] += 1 }
            let key: String
            switch step.outcome {
            case .state(let kind): key = "state \(kind)"
            case .error(let category, _): key = "error \(category)"
            case .completed: key = "completed"
            case .attributesInvalid: key = "attributesInvalid"
            case .nothing: key = "\(step.step.action)".hasPrefix("tenant") ? "user removed" : "clock jump"
            }
            report.outcomes[key, default: 0] += 1
        }
        guard let failure = await SequenceRunner(scenario).run() else { return }
        report.failures.append(failure)
    }
}

/// Environment:
/// - `NATIVEAUTH_PROPERTY_SEQUENCES=<n>`: how many random sequences (default 10,000).
/// - `NATIVEAUTH_PROPERTY_SEED=<seed>` (decimal or `0x…`): run just that sequence, print its steps
///   and, when it fails, the failure and its smallest form.
/// - `NATIVEAUTH_PROPERTY_LIST=1`: list every failing seed and the counts of outcomes and modes.
/// - The V1 and V2 runs take turns (`.serialized`): each already runs its sequences on
///   `PropertyRunConfiguration.lanes` lanes, and side by side on two cores they took longer than
///   one after the other.
@Suite(
    "State-machine properties: random flows against the reference model", .hangLimit, .cpuHeavy,
    .serialized)
struct StateMachineProperties {
    /// The main property: thousands of random sequences (flows, valid and invalid input, resends,
    /// spent and busy states, cancellations, forced server errors, clock jumps, removed users),
    /// each checked step by step against the reference model.
    @Test func randomSequencesFollowTheModel() async {
        await Self.check(.v1)
    }

    /// The same sequences with a client speaking Native Auth V2 (`protocolVersion = .v2`), against
    /// the same model with V2's differences (`ReferenceModel+V2.swift`).
    @Test func randomSequencesFollowTheModelOverV2() async {
        await Self.check(.v2)
    }

    static func check(_ version: NativeAuthProtocol) async {
        let configuration = PropertyRunConfiguration.fromEnvironment()
        let started = ContinuousClock.now
        let report = await PropertyRun.run(configuration.seeds, protocolVersion: version)
        let elapsed = ContinuousClock.now - started
        let time = elapsed.formatted(.units(allowed: [.seconds, .milliseconds]))
        print(
            "[Properties \(version)] \(report.sequences) sequences, \(report.steps) steps in \(time); "
                + "\(report.failures.count) failing")
        if configuration.seeds.count == 1, let seed = configuration.seeds.first {
            await Self.explain(seed, version)
        }
        if ProcessInfo.processInfo.environment["NATIVEAUTH_PROPERTY_LIST"] != nil {
            for failure in report.failures { print("[Properties] \(failure.summary)") }
            for (key, count) in report.outcomes.sorted(by: { $0.key < $1.key }) {
                print("[Properties]   \(count)\t\(key)")
            }
        }
        for failure in report.failures.prefix(5) {
            let text = await Self.withSmallestForm(failure, version)
            print("[Properties] " + text)
            Issue.record(Comment(rawValue: text))
        }
        if report.failures.count > 5 {
            let seeds = report.failures.dropFirst(5).prefix(50).map(\.seed)
            Issue.record("\(report.failures.count - 5) more failing sequences; seeds: \(seeds)")
        }
    }

    /// Prints one sequence's steps and, when it fails, why.
    static func explain(_ seed: UInt64, _ version: NativeAuthProtocol) async {
        let scenario = SequenceGenerator.scenario(seed: seed, protocolVersion: version)
        print("[Properties] " + scenario.transcript)
        guard let failure = await SequenceRunner(scenario).run() else { return }
        print("[Properties] " + (await withSmallestForm(failure, version)))
    }

    /// The failure, followed by the smallest sequence found that fails the same way.
    static func withSmallestForm(_ failure: SequenceFailure, _ version: NativeAuthProtocol) async -> String {
        let scenario = SequenceGenerator.scenario(seed: failure.seed, protocolVersion: version)
        let (small, smallFailure) = await SequenceShrinker.shrink(scenario, failure)
        return failure.description + "\nSmallest form found (steps re-planned by the model):\n"
            + smallFailure.problems.map { "  - \($0)" }.joined(separator: "\n") + "\n" + small.transcript
    }

    /// The generator is a pure function of the seed: the same seed plans the same steps.
    @Test func sequencesAreReproducibleFromTheirSeed() {
        for index in 0..<50 {
            let seed = PropertyRandom.sequenceSeed(base: PropertyRunConfiguration.baseSeed, index: index)
            #expect(
                SequenceGenerator.scenario(seed: seed).transcript == SequenceGenerator.scenario(seed: seed).transcript)
        }
    }

    /// The checks can fail: a model that expects the wrong outcome is caught.
    @Test func aWrongExpectationIsCaught() async {
        let scenario = PropertyScenario(
            seed: 7, plan: TenantPlan(), steps: [FlowStep(action: .signIn(username: TenantPlan.ada, password: nil))])
        var steps = scenario.steps
        steps[0].outcome = .state(.signInCode)
        let failure = await SequenceRunner(PropertyScenario(seed: 7, plan: TenantPlan(), planned: steps)).run()
        #expect(failure != nil)
    }
}
