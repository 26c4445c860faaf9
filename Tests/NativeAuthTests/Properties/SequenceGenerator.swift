import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport

/// One sequence: the tenant's set-up and the planned steps.
struct PropertyScenario: Sendable {
    let seed: UInt64
    let plan: TenantPlan
    let steps: [PlannedStep]
    /// Made by the generator from `seed` alone, so `NATIVEAUTH_PROPERTY_SEED` replays it.
    var isGenerated = false

    /// Plans `steps` on `plan` with the reference model; steps that do not apply are left out.
    init(seed: UInt64, plan: TenantPlan, steps: [FlowStep]) {
        self.seed = seed
        self.plan = plan
        var model = ReferenceModel(plan: plan)
        self.steps = steps.compactMap { model.apply($0) }
    }

    init(seed: UInt64, plan: TenantPlan, planned: [PlannedStep]) {
        self.seed = seed
        self.plan = plan
        steps = planned
    }

    /// The steps, one a line, with what the model expects of each.
    var transcript: String {
        var lines = [(isGenerated ? "seed \(seed)" : "written sequence (emulator seed \(seed))") + ": \(plan)"]
        for (index, step) in steps.enumerated() {
            let events = step.events.isEmpty ? "nothing sent" : step.events.map(\.description).joined(separator: " → ")
            lines.append("  \(index + 1). \(step.step)  ⇒  \(step.outcome)  [\(events)]")
        }
        return lines.joined(separator: "\n")
    }
}

/// Random walks over the flows: valid and invalid input, resends, reuse of spent states,
/// concurrent calls, cancellations, forced server errors and clock jumps.
enum SequenceGenerator {
    /// The sequence of `seed`, for a client speaking `protocolVersion`: the same tenant plan and
    /// the same draws of steps, planned by the model for that protocol.
    static func scenario(seed: UInt64, protocolVersion: NativeAuthProtocol = .v1) -> PropertyScenario {
        var rng = PropertyRandom(seed: seed)
        var plan = TenantPlan.random(&rng)
        plan.protocolVersion = protocolVersion
        var model = ReferenceModel(plan: plan)
        let length = rng.inRange(1...12)
        var planned: [PlannedStep] = []
        var attempts = 0
        while planned.count < length, attempts < length * 20 {
            attempts += 1
            let step = randomStep(model, &rng)
            if let next = model.apply(step) { planned.append(next) }
        }
        var scenario = PropertyScenario(seed: seed, plan: plan, planned: planned)
        scenario.isGenerated = true
        return scenario
    }

    static func randomStep(_ model: ReferenceModel, _ rng: inout PropertyRandom) -> FlowStep {
        let spent = model.handles.indices.filter { !model.handles[$0].usable }
        let olderUsable = model.handles.indices.dropLast().filter { model.handles[$0].usable }
        if let last = model.handles.last, last.usable {
            switch rng.below(100) {
            case 0..<6: return clockJump(&rng)
            case 6..<11 where !spent.isEmpty: return reuse(rng.element(of: spent), model, &rng)
            case 11..<14 where !olderUsable.isEmpty:
                let index = rng.element(of: olderUsable)
                return withMode(
                    FlowAction.state(.handle(index), stateAction(model.handles[index], model, &rng)), model, &rng)
            case 14..<18: return withMode(startAction(model, &rng), model, &rng)
            case 18..<20 where model.users[last.username.lowercased()] != nil:
                return FlowStep(action: .removeUser(last.username))
            default: return withMode(.state(.current, stateAction(last, model, &rng)), model, &rng)
            }
        }
        switch rng.below(100) {
        case 0..<8 where !model.handles.isEmpty: return clockJump(&rng)
        case 8..<14 where !spent.isEmpty: return reuse(rng.element(of: spent), model, &rng)
        case 14..<16:
            return FlowStep(action: .removeUser(rng.element(of: [TenantPlan.ada, TenantPlan.alan, TenantPlan.newbie])))
        default: return withMode(startAction(model, &rng), model, &rng)
        }
    }

    static func clockJump(_ rng: inout PropertyRandom) -> FlowStep {
        FlowStep(
            action: .advanceClock(seconds: rng.chance(percent: 70) ? rng.inRange(30...300) : rng.inRange(601...1200)))
    }

    /// Any action of a spent state: it must refuse at once and send nothing.
    static func reuse(_ index: Int, _ model: ReferenceModel, _ rng: inout PropertyRandom) -> FlowStep {
        FlowStep(action: .state(.handle(index), stateAction(model.handles[index], model, &rng)))
    }

    static func startAction(_ model: ReferenceModel, _ rng: inout PropertyRandom) -> FlowAction {
        switch rng.weighted([(45, 0), (30, 1), (25, 2)]) {
        case 0:
            let username = rng.weighted([
                (20, TenantPlan.ada), (18, TenantPlan.grace), (22, TenantPlan.alan), (16, TenantPlan.joan),
                (10, TenantPlan.newbie), (8, TenantPlan.nobody), (3, ""),
            ])
            let password: PasswordChoice? = rng.weighted([
                (60, nil), (22, .correct), (8, .wrong), (4, .previous), (6, .empty),
            ])
            return .signIn(username: username, password: password)
        case 1:
            let username = rng.weighted([
                (65, TenantPlan.newbie), (15, TenantPlan.ada), (10, TenantPlan.notAnEmail), (5, ""),
            ])
            let password: PasswordChoice? = rng.weighted([
                (40, nil), (15, .correct), (15, .fresh), (8, .tooShort), (8, .tooWeak), (8, .banned), (6, .empty),
            ])
            let attributes: AttributesChoice = rng.weighted([
                (45, .none), (30, .valid), (15, .invalid), (10, .unrelated),
            ])
            return .signUp(username: username, password: password, attributes: attributes)
        default:
            let username = rng.weighted([
                (30, TenantPlan.ada), (15, TenantPlan.alan), (15, TenantPlan.joan), (15, TenantPlan.grace),
                (10, TenantPlan.newbie), (10, TenantPlan.nobody), (5, ""),
            ])
            return .resetPassword(username: username)
        }
    }

    static func code(_ handle: ReferenceModel.Handle, _ rng: inout PropertyRandom) -> CodeChoice {
        let stale = handle.previous == nil ? 0 : 15
        return rng.weighted([(55, .correct), (20, .wrong), (10, .empty), (stale, .stale)])
    }

    static func stateAction(
        _ handle: ReferenceModel.Handle, _ model: ReferenceModel, _ rng: inout PropertyRandom
    ) -> StateAction {
        switch handle.kind {
        case .signInCode, .signUpCode, .resetCode, .signUpOrSignInCode:
            // (The reference model starts no sign-up-or-sign-in; its own tests cover it.)
            return rng.chance(percent: 75) ? .submitCode(code(handle, &rng)) : .resendCode
        case .signInPassword:
            return .submitPassword(rng.weighted([(55, .correct), (20, .wrong), (10, .empty), (15, .previous)]))
        case .awaitingMFA:
            return .requestChallenge(method: rng.below(max(1, handle.methods.count)))
        case .mfaRequired:
            return rng.chance(percent: 70)
                ? .submitCode(code(handle, &rng)) : .requestChallenge(method: rng.below(max(1, handle.methods.count)))
        case .registerStrongAuth:
            return .challengeContact(contact(&rng))
        case .registerVerification:
            return rng.chance(percent: 70) ? .submitCode(code(handle, &rng)) : .challengeContact(contact(&rng))
        case .signUpPassword:
            return .submitPassword(
                rng.weighted([(55, .fresh), (10, .tooShort), (10, .tooWeak), (10, .banned), (15, .empty)]))
        case .signUpAttributes:
            return .submitAttributes(rng.weighted([(55, .valid), (25, .invalid), (10, .none), (10, .unrelated)]))
        case .signInAfterSignUp, .signInAfterReset:
            return .signInAfter
        case .authMethodSelection, .resetAuthMethodSelection:
            // Never reached: the model's tenant offers one first factor and one recovery method, and
            // its flows do not ask to choose.
            return .requestChallenge(method: 0)
        case .resetPassword:
            return .submitPassword(
                rng.weighted([
                    (55, .fresh), (10, .correct), (5, .previous), (7, .tooShort), (7, .tooWeak), (6, .banned),
                    (10, .empty),
                ]))
        }
    }

    static func contact(_ rng: inout PropertyRandom) -> ContactChoice {
        rng.weighted([(45, .newEmail), (20, .ownEmail), (12, .invalid), (8, .empty), (15, .blocked)])
    }

    /// Picks how to run `action`: plainly, with a fault on one of its requests, with a concurrent
    /// second call, or cancelled at one of its events.
    static func withMode(_ action: FlowAction, _ model: ReferenceModel, _ rng: inout PropertyRandom) -> FlowStep {
        var dryRun = model
        guard let plain = dryRun.apply(FlowStep(action: action)), !plain.events.isEmpty else {
            return FlowStep(action: action)
        }
        let isState: Bool
        if case .state = action { isState = true } else { isState = false }
        let roll = rng.below(100)
        if roll < 18 {
            let requests = plain.events.indices.filter { plain.events[$0].isRequest }
            let index = rng.element(of: requests)
            var fault: ForcedFault = rng.weighted([
                (20, .server500), (20, .network), (12, .redirect), (10, .invalidClient), (12, .expiredToken),
                (10, .html), (16, .unknown400),
            ])
            // An unknown error while polling a reset leaves the reset's fate unknown: not modelled.
            if fault == .unknown400, plain.events[index] == .request(.resetPollCompletion) { fault = .server500 }
            return FlowStep(action: action, mode: .fault(fault, at: index + 1))
        }
        if roll < 27, isState {
            guard let target = plain.target else { return FlowStep(action: action) }
            return FlowStep(action: action, mode: .concurrent(stateAction(model.handles[target], model, &rng)))
        }
        if roll < 35, !model.plan.useDelegates {
            return FlowStep(action: action, mode: .cancel(at: rng.inRange(1...plain.events.count)))
        }
        return FlowStep(action: action)
    }
}
