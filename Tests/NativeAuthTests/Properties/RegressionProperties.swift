import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The SDK bugs the property run found, each replayed by the smallest sequences that showed it.
@Suite("State-machine properties: regressions of bugs found", .hangLimit)
struct RegressionProperties {
    typealias S = ScriptedProperties

    // MARK: - A failure after the server moved the flow spends the state

    /// Each sequence ends with an action whose first request moves the server's flow forward and
    /// whose later request fails transiently, then retries the action. The state must be spent
    /// (the server consumed its continuation token) and the retry refused with
    /// `isStateAlreadyUsed`, sending nothing. (The bug: the state said it was still usable, and
    /// the retry sent the consumed token and failed with `isFlowExpired`.)
    static let lateFailures: [(String, TenantPlan, [FlowStep])] = {
        var plain = TenantPlan()
        plain.resetPolls = 0
        var oobOnly = plain
        oobOnly.challengeTypes = [.oob]
        return [
            (
                "sign-in password, an HTML page on the MFA introspect", plain,
                [
                    S.signIn(TenantPlan.alan), S.current(.submitPassword(.correct), mode: .fault(.html, at: 2)),
                    S.on(0, .submitPassword(.correct)),
                ]
            ),
            (
                "sign-in code, an unknown 400 on the MFA introspect", oobOnly,
                [
                    S.signIn(TenantPlan.alan), S.current(.submitCode(.correct), mode: .fault(.unknown400, at: 2)),
                    S.on(0, .submitCode(.correct)),
                ]
            ),
            (
                "sign-in password, cancelled at the registration introspect", plain,
                [
                    S.signIn(TenantPlan.joan), S.current(.submitPassword(.correct), mode: .cancel(at: 2)),
                    S.on(0, .submitPassword(.correct)),
                ]
            ),
            (
                "sign-up code, cancelled at the password challenge after credential_required", plain,
                [
                    FlowStep(action: .signUp(username: TenantPlan.newbie, password: nil, attributes: .none)),
                    S.current(.submitCode(.correct), mode: .cancel(at: 2)), S.on(0, .submitCode(.correct)),
                ]
            ),
            (
                "registration of a verified contact, HTML on the final token request", plain,
                [
                    S.signIn(TenantPlan.joan, .correct),
                    S.current(.challengeContact(.ownEmail), mode: .fault(.html, at: 3)),
                    S.on(0, .challengeContact(.ownEmail)),
                ]
            ),
            (
                "registration code, network failure on the final token request", plain,
                [
                    S.signIn(TenantPlan.joan, .correct), S.current(.challengeContact(.newEmail)),
                    S.current(.submitCode(.correct), mode: .fault(.network, at: 2)), S.on(1, .submitCode(.correct)),
                ]
            ),
            (
                "sign-in after reset, unknown 400 on the MFA introspect", plain,
                [
                    FlowStep(action: .resetPassword(username: TenantPlan.alan)), S.current(.submitCode(.correct)),
                    S.current(.submitPassword(.fresh)), S.current(.signInAfter, mode: .fault(.unknown400, at: 2)),
                    S.on(2, .signInAfter),
                ]
            ),
        ]
    }()

    @Test(arguments: lateFailures.indices)
    func lateTransientFailureSpendsTheState(_ index: Int) async {
        let (name, plan, steps) = Self.lateFailures[index]
        let scenario = PropertyScenario(seed: 11, plan: plan, steps: steps)
        #expect(scenario.steps.count == steps.count)
        let failure = await SequenceRunner(scenario).run()
        #expect(failure == nil, "\(name):\n\(failure?.description ?? "")")
    }

    /// Shown directly: after a late failure the state says it is spent, and a retry sends nothing.
    @Test func aLateFailureSpendsTheStateAndARetrySendsNothing() async throws {
        let scenario = PropertyScenario(seed: 12, plan: TenantPlan(), steps: [])
        let runner = SequenceRunner(scenario)
        guard
            case .passwordRequired(let state) = try await runner.client.signIn(
                SignInParameters(username: TenantPlan.alan))
        else { throw PropertyTestFailure("expected the password step") }
        runner.tenant.force(
            .raw(status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>maintenance</html>".utf8)),
            on: .introspect)
        let first: PasswordRequiredError
        do {
            _ = try await state.submitPassword(TenantPlan.password)
            throw PropertyTestFailure("the forced HTML page must fail the action")
        } catch let error as PasswordRequiredError {
            first = error
        }
        #expect(first.isUnexpectedResponse)
        #expect(!first.isStateStillUsable)
        let requests = runner.tenant.receivedRequests.count
        do {
            _ = try await state.submitPassword(TenantPlan.password)
            throw PropertyTestFailure("a spent state must refuse")
        } catch let error as PasswordRequiredError {
            #expect(error.isStateAlreadyUsed)
        }
        #expect(runner.tenant.receivedRequests.count == requests)
    }

    // MARK: - user_not_found and user_already_exists are answered on every step

    /// Each sequence ends with a step the server answers with `user_not_found` or
    /// `user_already_exists`: the error must say so and the state must be spent. (The bug: these
    /// step's error types had no such question and some claimed the state was still usable.)
    static let unanswerable: [(String, TenantPlan, [FlowStep])] = {
        let plain = TenantPlan()
        return [
            (
                "sign-up code: the user was created by another sign-up meanwhile (VerifyCodeError)", plain,
                [
                    FlowStep(action: .signUp(username: TenantPlan.newbie, password: .correct, attributes: .none)),
                    FlowStep(action: .signUp(username: TenantPlan.newbie, password: .correct, attributes: .none)),
                    S.on(1, .submitCode(.correct)), S.on(0, .submitCode(.correct)),
                ]
            ),
            (
                "resend after the user was removed (ResendCodeError)", plain,
                [S.signIn(TenantPlan.grace), FlowStep(action: .removeUser(TenantPlan.grace)), S.current(.resendCode)]
            ),
            (
                "MFA challenge after the user was removed (MFARequestChallengeError)", plain,
                [
                    S.signIn(TenantPlan.alan, .correct), FlowStep(action: .removeUser(TenantPlan.alan)),
                    S.current(.requestChallenge(method: 0)),
                ]
            ),
            (
                "MFA code after the user was removed (MFASubmitChallengeError)", plain,
                [
                    S.signIn(TenantPlan.alan, .correct), S.current(.requestChallenge(method: 0)),
                    FlowStep(action: .removeUser(TenantPlan.alan)), S.current(.submitCode(.correct)),
                ]
            ),
            (
                "sign-in after sign-up after the user was removed (SignInAfterSignUpError)", plain,
                [
                    FlowStep(action: .signUp(username: TenantPlan.newbie, password: .correct, attributes: .none)),
                    S.current(.submitCode(.correct)), FlowStep(action: .removeUser(TenantPlan.newbie)),
                    S.current(.signInAfter),
                ]
            ),
        ]
    }()

    @Test(arguments: unanswerable.indices)
    func userErrorsAreAnswered(_ index: Int) async {
        let (name, plan, steps) = Self.unanswerable[index]
        let scenario = PropertyScenario(seed: 13, plan: plan, steps: steps)
        #expect(scenario.steps.count == steps.count)
        let failure = await SequenceRunner(scenario).run()
        #expect(failure == nil, "\(name):\n\(failure?.description ?? "")")
    }
}

extension RegressionProperties {
    // MARK: - Found over V2

    /// The sequences of the V2 property run that found a bug, replayed over V2. (The bugs: a
    /// sign-up username that is not an email address came back as `.attributesInvalid(["email"])`;
    /// a poll answered with a server error left the state usable but dropped the wait, so the next
    /// call sent the new password again with the poll's token and was refused.)
    static let v2Findings: [(String, [FlowStep])] = [
        (
            "sign-up with a username that is not an email address",
            [FlowStep(action: .signUp(username: TenantPlan.notAnEmail, password: .fresh, attributes: .none))]
        ),
        (
            "reset, a 500 on the first poll, then the next call polls on",
            [
                FlowStep(action: .resetPassword(username: TenantPlan.ada)), S.current(.submitCode(.correct)),
                S.current(.submitPassword(.fresh), mode: .fault(.server500, at: 3)), S.on(1, .submitPassword(.fresh)),
            ]
        ),
        (
            "reset, an unknown 400 on a later poll, then the next call polls on",
            [
                FlowStep(action: .resetPassword(username: TenantPlan.ada)), S.current(.submitCode(.correct)),
                S.current(.submitPassword(.fresh), mode: .fault(.unknown400, at: 5)), S.on(1, .submitPassword(.fresh)),
            ]
        ),
    ]

    @Test(arguments: v2Findings.indices)
    func v2FindingsFollowTheModel(_ index: Int) async {
        let (name, steps) = Self.v2Findings[index]
        var plan = TenantPlan()
        plan.protocolVersion = .v2
        plan.resetPolls = 3
        let scenario = PropertyScenario(seed: 14, plan: plan, steps: steps)
        #expect(scenario.steps.count == steps.count)
        let failure = await SequenceRunner(scenario).run()
        #expect(failure == nil, "\(name):\n\(failure?.description ?? "")")
    }
}

/// A test precondition that did not hold.
struct PropertyTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
