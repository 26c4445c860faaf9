import Foundation

/// Makes a failing sequence smaller while it keeps failing the same way: drops the steps after
/// the failing one, then drops single steps and plain-ifies modes, re-planning with the model
/// each time.
enum SequenceShrinker {
    static func signature(_ failure: SequenceFailure, in scenario: PropertyScenario) -> String {
        let first = failure.problems.first ?? ""
        return String(first.prefix { $0 != ":" && $0 != "," }.prefix(40))
    }

    static func shrink(_ scenario: PropertyScenario, _ failure: SequenceFailure) async -> (
        PropertyScenario, SequenceFailure
    ) {
        let wanted = signature(failure, in: scenario)
        var best = (scenario, failure)
        var steps = scenario.steps.prefix(failure.step).map(\.step)

        func attempt(_ candidate: [FlowStep]) async -> Bool {
            let planned = PropertyScenario(seed: scenario.seed, plan: scenario.plan, steps: candidate)
            guard let found = await SequenceRunner(planned).run(), signature(found, in: planned) == wanted
            else { return false }
            best = (planned, found)
            steps = Array(planned.steps.prefix(found.step).map(\.step))
            return true
        }

        var progress = true
        var rounds = 0
        while progress, rounds < 20 {
            progress = false
            rounds += 1
            for index in stride(from: steps.count - 1, through: 0, by: -1) where index < steps.count {
                var candidate = steps
                candidate.remove(at: index)
                if await attempt(candidate) { progress = true }
            }
            for index in steps.indices.dropLast() where steps[index].mode != .plain {
                var candidate = steps
                candidate[index].mode = .plain
                if await attempt(candidate) { progress = true }
            }
        }
        return best
    }
}
