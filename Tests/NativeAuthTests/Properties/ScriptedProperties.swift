import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Hand-written sequences for behaviours a random walk reaches rarely, checked step by step
/// against the same reference model as the random ones.
@Suite("State-machine properties: scripted sequences", .hangLimit)
struct ScriptedProperties {
    typealias S = FlowStep

    static func run(_ steps: [FlowStep], plan: TenantPlan = TenantPlan(), seed: UInt64 = 42) async -> SequenceFailure? {
        let scenario = PropertyScenario(seed: seed, plan: plan, steps: steps)
        #expect(scenario.steps.count == steps.count, "every scripted step applies:\n\(scenario.transcript)")
        return await SequenceRunner(scenario).run()
    }

    static func signIn(_ username: String, _ password: PasswordChoice? = nil, mode: StepMode = .plain) -> FlowStep {
        FlowStep(action: .signIn(username: username, password: password), mode: mode)
    }

    static func current(_ action: StateAction, mode: StepMode = .plain) -> FlowStep {
        FlowStep(action: .state(.current, action), mode: mode)
    }

    static func on(_ index: Int, _ action: StateAction, mode: StepMode = .plain) -> FlowStep {
        FlowStep(action: .state(.handle(index), action), mode: mode)
    }

    static let scripts: [(String, TenantPlan, [FlowStep])] = {
        var plain = TenantPlan()
        plain.resetPolls = 2
        plain.resetInterval = 2
        var delegates = plain
        delegates.useDelegates = true
        var city = plain
        city.cityRequired = true
        var oobOnly = plain
        oobOnly.challengeTypes = [.oob]
        var noCapabilities = plain
        noCapabilities.capabilities = []
        var failingReset = plain
        failingReset.resetFails = true
        var slowReset = plain
        slowReset.resetPolls = 7
        slowReset.resetInterval = 1
        return [
            (
                "a resent code replaces the old one; the old state is spent", plain,
                [
                    signIn(TenantPlan.grace), current(.resendCode), current(.submitCode(.stale)),
                    on(0, .submitCode(.correct)), current(.submitCode(.correct)),
                ]
            ),
            (
                "tokens expire 600 s after they were issued", plain,
                [
                    signIn(TenantPlan.ada), S(action: .advanceClock(seconds: 599)), current(.submitPassword(.wrong)),
                    S(action: .advanceClock(seconds: 1)), current(.submitPassword(.correct)),
                    current(.submitPassword(.correct)),
                ]
            ),
            (
                "sign-up asks for the password, then the attributes, then signs in", city,
                [
                    S(action: .signUp(username: TenantPlan.newbie, password: nil, attributes: .none)),
                    current(.submitCode(.correct)), current(.submitPassword(.tooWeak)),
                    current(.submitPassword(.fresh)), current(.submitAttributes(.invalid)),
                    current(.submitAttributes(.unrelated)), current(.submitAttributes(.valid)), current(.signInAfter),
                    signIn(TenantPlan.newbie, .correct),
                ]
            ),
            (
                "a reset interrupted while polling resumes without submitting again", plain,
                [
                    S(action: .resetPassword(username: TenantPlan.ada)), current(.submitCode(.correct)),
                    current(.submitPassword(.fresh), mode: .cancel(at: 3)),
                    current(.submitPassword(.fresh), mode: .cancel(at: 2)),
                    current(.submitPassword(.fresh)), current(.signInAfter),
                    signIn(TenantPlan.ada, .previous), signIn(TenantPlan.ada, .correct),
                ]
            ),
            (
                "a reset still running after six polls fails the call; the next call resumes", slowReset,
                [
                    S(action: .resetPassword(username: TenantPlan.ada)), current(.submitCode(.correct)),
                    current(.submitPassword(.fresh)), current(.submitPassword(.empty)),
                    current(.submitPassword(.fresh)), current(.signInAfter), signIn(TenantPlan.ada, .correct),
                ]
            ),
            (
                "a failed reset may be submitted again", failingReset,
                [
                    S(action: .resetPassword(username: TenantPlan.alan)), current(.submitCode(.correct)),
                    current(.submitPassword(.fresh)), current(.submitPassword(.correct)),
                    current(.submitPassword(.fresh)),
                ]
            ),
            (
                "registration adds a method; the next sign-in asks for it", plain,
                [
                    signIn(TenantPlan.joan, .correct), current(.challengeContact(.invalid)),
                    current(.challengeContact(.blocked)), current(.challengeContact(.newEmail)),
                    current(.submitCode(.wrong)), current(.submitCode(.correct)), signIn(TenantPlan.joan, .correct),
                    current(.requestChallenge(method: 0)), current(.submitCode(.correct)),
                ]
            ),
            (
                "MFA: a blocked method, a switch of method, a stale code",
                {
                    var p = plain; p.blockSMS = true; return p
                }(),
                [
                    signIn(TenantPlan.alan, .correct), current(.requestChallenge(method: 1)),
                    current(.requestChallenge(method: 0)), current(.requestChallenge(method: 0)),
                    current(.submitCode(.stale)), current(.submitCode(.correct)),
                ]
            ),
            (
                "without capabilities, MFA and registration need the browser", noCapabilities,
                [signIn(TenantPlan.alan, .correct), signIn(TenantPlan.joan), current(.submitPassword(.correct))]
            ),
            (
                "an app that offers only codes signs a password user in with a code", oobOnly,
                [
                    signIn(TenantPlan.ada, .correct), current(.submitCode(.correct)),
                    S(action: .signUp(username: TenantPlan.newbie, password: nil, attributes: .none)),
                    current(.submitCode(.correct)), current(.signInAfter),
                    S(action: .resetPassword(username: TenantPlan.newbie)),
                ]
            ),
            (
                "busy and spent states refuse at once, through delegates", delegates,
                [
                    signIn(TenantPlan.grace), current(.submitCode(.correct), mode: .concurrent(.resendCode)),
                    on(0, .resendCode), S(action: .resetPassword(username: TenantPlan.ada)),
                    current(.resendCode, mode: .concurrent(.submitCode(.empty))), current(.submitCode(.correct)),
                    current(.submitPassword(.fresh), mode: .fault(.server500, at: 1)), current(.submitPassword(.fresh)),
                    current(.signInAfter),
                ]
            ),
        ]
    }()

    @Test(arguments: scripts.indices)
    func scriptedSequenceFollowsTheModel(_ index: Int) async {
        let (name, plan, steps) = Self.scripts[index]
        let failure = await Self.run(steps, plan: plan)
        #expect(failure == nil, "\(name):\n\(failure?.description ?? "")")
    }
}
