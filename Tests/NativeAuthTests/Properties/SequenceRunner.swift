import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport

/// Why a sequence failed: the first step where the SDK and the model disagree.
struct SequenceFailure: Sendable, CustomStringConvertible {
    let seed: UInt64
    /// 1-based.
    let step: Int
    let problems: [String]
    let transcript: String
    let replayable: Bool

    /// One line: the seed, the failing step and the first problem.
    var summary: String {
        let line = transcript.split(separator: "\n").dropFirst(step).first.map(String.init) ?? ""
        return "seed \(seed) step \(step): \(line.trimmingCharacters(in: .whitespaces)) — \(problems.first ?? "")"
    }

    var description: String {
        "Sequence seed \(seed) failed at step \(step):\n"
            + problems.map { "  - \($0)" }.joined(separator: "\n")
            + (replayable ? "\nReplay: NATIVEAUTH_PROPERTY_SEED=\(seed) swift test --filter Properties" : "") + "\n"
            + transcript
    }
}

/// Runs one scenario on a fresh emulated tenant and client, checking every step against the model.
final class SequenceRunner {
    let scenario: PropertyScenario
    let clock = ManualClock()
    let tenant: EmulatedTenant
    let probe: ActionProbe
    let store = CountingCredentialStore()
    let client: NativeAuthClient
    private var states: [Int: FlowState] = [:]
    private var codes: [Int: String] = [:]
    private var recorders: [FlowDelegateRecorder] = []
    private var checkedCompletions = 0

    init(_ scenario: PropertyScenario) {
        self.scenario = scenario
        tenant = EmulatedTenant(clock: clock, random: SeededRandomSource(seed: scenario.seed))
        scenario.plan.users.forEach(tenant.addUser)
        tenant.configure(scenario.plan.configure)
        probe = ActionProbe(tenant: tenant, clock: clock, protocolVersion: scenario.plan.protocolVersion)
        guard
            var configuration = try? NativeAuthConfiguration(
                clientId: tenant.clientId, authority: tenant.authority, challengeTypes: scenario.plan.challengeTypes,
                capabilities: scenario.plan.capabilities)
        else { preconditionFailure("the emulator's authority is valid") }
        configuration.clock = probe
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.protocolVersion = scenario.plan.protocolVersion
        client = NativeAuthClient(configuration: configuration, transport: probe, credentialStore: store)
    }

    /// Runs every step; the first disagreement with the model ends the run.
    func run() async -> SequenceFailure? {
        for (index, planned) in scenario.steps.enumerated() {
            let problems = await execute(planned)
            if !problems.isEmpty {
                return SequenceFailure(
                    seed: scenario.seed, step: index + 1, problems: problems, transcript: scenario.transcript,
                    replayable: scenario.isGenerated)
            }
        }
        if scenario.plan.useDelegates {
            let recorders = self.recorders
            let counts = await MainActor.run { recorders.map(\.calls.count) }
            if let index = counts.firstIndex(where: { $0 != 1 }) {
                return SequenceFailure(
                    seed: scenario.seed, step: scenario.steps.count,
                    problems: ["delegate action #\(index + 1) got \(counts[index]) callbacks instead of exactly one"],
                    transcript: scenario.transcript, replayable: scenario.isGenerated)
            }
        }
        return nil
    }

    // MARK: - One step

    private func execute(_ planned: PlannedStep) async -> [String] {
        switch planned.step.action {
        case .advanceClock(let seconds):
            clock.advance(by: TimeInterval(seconds))
            return []
        case .removeUser(let username):
            tenant.removeUser(named: username)
            return []
        default:
            break
        }
        guard let primary = invocation(for: planned, planned.primary) else {
            return ["the test has no state object for \(planned.step.action)"]
        }
        var problems: [String] = []
        let requestsBefore = tenant.receivedRequests.count
        let codesBefore = tenant.outbox.count
        probe.begin(planned.step.mode)
        let observed: FlowOutcome
        switch planned.step.mode {
        case .plain, .fault:
            observed = await Self.outcome(of: await launch(primary))
        case .concurrent:
            let task = await launch(primary)
            let held = await probe.waitUntilHeld()
            guard held == true else {
                if held == nil {
                    problems.append(
                        "gave up after \(TestBounds.text(TestBounds.wait)) waiting for the action's first event")
                } else {
                    problems.append("the action ended without sending anything, so no second call could overlap it")
                }
                observed = await Self.outcome(of: task)
                break
            }
            if let secondInvocation = invocation(for: planned, planned.second) {
                let second = await perform(secondInvocation)
                if case .error(let error, _) = second, FlowErrorCategory(error) == .stateBusy {
                } else {
                    problems.append("a second action while one is in flight: expected stateBusy, got \(second.summary)")
                }
                let events = probe.events.count
                if events != 1 { problems.append("the busy second action made \(events - 1) event(s) of its own") }
                let sent = tenant.receivedRequests.count - requestsBefore
                if sent != 0 { problems.append("\(sent) request(s) reached the tenant while the first one was held") }
            }
            probe.release()
            observed = await Self.outcome(of: task)
        case .cancel:
            let task = await launch(primary)
            switch await probe.waitUntilHeld() {
            case true?: task.cancel()
            case false?: problems.append("the action ended before its event to cancel at was reached")
            case nil:
                problems.append(
                    "gave up after \(TestBounds.text(TestBounds.wait)) waiting for the event to cancel at")
            }
            observed = await Self.outcome(of: task)
        }
        problems += checkEvents(planned, requestsBefore: requestsBefore)
        let target = planned.target.flatMap { states[$0] }
        problems += await checkOutcome(planned, observed, codesBefore: codesBefore)
        problems += checkFlowIdentity(target: target, observed, requestsBefore: requestsBefore)
        problems += checkNoSecrets(primary, observed, requestsBefore: requestsBefore)
        problems += await checkCredentials(planned)
        return problems
    }

    /// The action's outcome, woken by the action's end; when it has not ended within
    /// `TestBounds.wait` (a hang), its task is cancelled and the outcome is an unknown one, which
    /// fails the step.
    private static func outcome(of task: Task<FlowOutcome, Never>) async -> FlowOutcome {
        let ended = Latch<FlowOutcome>()
        Task { ended.fulfill(await task.value) }
        if let observed = await ended.outcome(within: TestBounds.wait).value { return observed }
        task.cancel()
        return .unknown("the action did not end within \(TestBounds.text(TestBounds.wait))")
    }

    /// Starts the action on its own task, so the test can overlap or cancel it.
    private func launch(_ invocation: SDKInvocation) async -> Task<FlowOutcome, Never> {
        Self.spawn(invocation, recorder: await makeRecorder(), probe: probe)
    }

    private static func spawn(
        _ invocation: SDKInvocation, recorder: FlowDelegateRecorder?, probe: ActionProbe
    ) -> Task<FlowOutcome, Never> {
        Task {
            let observed = await perform(invocation, recorder: recorder)
            probe.actionFinished()
            return observed
        }
    }

    private func perform(_ invocation: SDKInvocation) async -> FlowOutcome {
        await Self.perform(invocation, recorder: await makeRecorder())
    }

    private func makeRecorder() async -> FlowDelegateRecorder? {
        guard scenario.plan.useDelegates else { return nil }
        let recorder = await MainActor.run { FlowDelegateRecorder() }
        recorders.append(recorder)
        return recorder
    }

    private static func perform(_ invocation: SDKInvocation, recorder: FlowDelegateRecorder?) async
        -> FlowOutcome
    {
        guard let recorder else { return await PropertyAsyncDriver.run(invocation) }
        return await PropertyDelegateDriver.run(invocation, recorder: recorder)
    }

    private func invocation(for planned: PlannedStep, _ resolved: ResolvedAction?) -> SDKInvocation? {
        switch planned.step.action {
        case .signIn(let username, _):
            return SDKInvocation(
                client: client, call: .signIn(SignInParameters(username: username, password: planned.startPassword)))
        case .signUp(let username, _, _):
            let attributes = UserAttributes(planned.startAttributes.mapValues(UserAttributeValue.string))
            return SDKInvocation(
                client: client,
                call: .signUp(
                    SignUpParameters(username: username, password: planned.startPassword, attributes: attributes)))
        case .resetPassword(let username):
            return SDKInvocation(client: client, call: .resetPassword(ResetPasswordParameters(username: username)))
        case .state:
            guard let target = planned.target, let state = states[target], let resolved else { return nil }
            var input = SDKInvocation.Input(action: resolved.action)
            input.code = code(resolved.code)
            input.password = resolved.password ?? ""
            input.attributes = UserAttributes((resolved.attributes ?? [:]).mapValues(UserAttributeValue.string))
            input.contact = resolved.contact ?? ""
            input.methodIndex = resolved.methodIndex ?? 0
            return SDKInvocation(client: client, call: .state(state, input))
        case .advanceClock, .removeUser:
            return nil
        }
    }

    /// The code the user types, from the codes the tenant sent.
    private func code(_ source: CodeSource?) -> String {
        switch source {
        case .of(let index)?: return codes[index] ?? "00000000"
        case .wrongFor(let index)?: return Self.wrong(codes[index] ?? "00000000")
        case .stale(let previous, let current)?:
            let stale = codes[previous] ?? "00000000"
            return stale == codes[current] ? Self.wrong(stale) : stale
        case .empty?, nil: return ""
        }
    }

    /// `code` with its last digit changed.
    static func wrong(_ code: String) -> String {
        guard let last = code.last, let digit = last.wholeNumberValue else { return code + "0" }
        return String(code.dropLast()) + String((digit + 1) % 10)
    }

    // MARK: - Checks

    private func checkEvents(_ planned: PlannedStep, requestsBefore: Int) -> [String] {
        var problems: [String] = []
        let events = probe.events
        if events != planned.events {
            let expected =
                planned.events.isEmpty ? "nothing" : planned.events.map(\.description).joined(separator: " → ")
            let actual = events.isEmpty ? "nothing" : events.map(\.description).joined(separator: " → ")
            problems.append("events: expected \(expected), got \(actual)")
        }
        var forwarded = planned.events.filter(\.isRequest).count
        if case .cancel = planned.step.mode, planned.events.last?.isRequest == true { forwarded -= 1 }
        let sent = tenant.receivedRequests.count - requestsBefore
        if sent != forwarded { problems.append("the tenant received \(sent) request(s), expected \(forwarded)") }
        return problems
    }

    private func checkOutcome(_ planned: PlannedStep, _ observed: FlowOutcome, codesBefore: Int) async -> [String] {
        var problems: [String] = []
        switch (planned.outcome, observed) {
        case (.state(let kind), .state(let state)) where state.kind == kind:
            guard let handle = planned.newHandle else { return ["the model gave no new state"] }
            states[handle.index] = state
            if let address = handle.codeAddress {
                if let code = tenant.lastCode(sentTo: address) {
                    codes[handle.index] = code
                } else {
                    problems.append("no code was sent to \(address)")
                }
            }
            if let channel = handle.channel, let actual = state.channel, actual.description != channel {
                problems.append("the code went by \(actual), expected \(channel)")
            }
            if let count = handle.methodCount, let methods = state.methods, methods.count != count {
                problems.append("the state offers \(methods.count) method(s), expected \(count)")
            }
        case (.completed(let username), .completed(let account)):
            if account.account.username.lowercased() != username.lowercased() {
                problems.append("signed in as \(account.account.username), expected \(username)")
            }
        case (.attributesInvalid(let names), .attributesInvalid(let actual)):
            if Set(names) != Set(actual) { problems.append("invalid attributes \(actual), expected \(names)") }
        case (.error(let category, let usable), .error(let error, let newStateGiven)):
            let actual = FlowErrorCategory(error)
            if actual != category { problems.append("expected error \(category), got \(observed.summary)") }
            if let usable {
                if error.isStateStillUsable != usable {
                    problems.append(
                        "isStateStillUsable is \(error.isStateStillUsable), expected \(usable) (\(observed.summary))")
                }
                if let newStateGiven, newStateGiven != usable {
                    let given = newStateGiven ? "given" : "nil"
                    problems.append(
                        "the delegate's newState is \(given) for a state that is \(usable ? "usable" : "spent") "
                            + "(\(observed.summary))")
                }
            }
        default:
            problems.append("expected \(planned.outcome), got \(observed.summary)")
        }
        let codesSent = tenant.outbox.count - codesBefore
        let expectedCodes = planned.newHandle?.codeAddress == nil ? 0 : 1
        if codesSent != expectedCodes, problems.isEmpty {
            problems.append("\(codesSent) code(s) sent, expected \(expectedCodes)")
        }
        return problems
    }

    /// Every request of one step carries the flow's correlation id, and the state or error the
    /// step leads to names the same one (Docs/Protocol.md: `client-request-id` is the flow's id).
    private func checkFlowIdentity(target: FlowState?, _ observed: FlowOutcome, requestsBefore: Int) -> [String] {
        let requests = tenant.receivedRequests.dropFirst(requestsBefore)
        let ids = Set(requests.map { $0.headers["client-request-id"]?.lowercased() ?? "missing" })
        guard ids.count <= 1 else { return ["one step sent several client-request-ids: \(ids.sorted())"] }
        guard let flowId = target?.correlationId.uuidString.lowercased() ?? ids.first else { return [] }
        if let sent = ids.first, sent != flowId {
            return ["requests carry client-request-id \(sent), the flow's is \(flowId)"]
        }
        let reported: UUID?
        switch observed {
        case .state(let state): reported = state.correlationId
        case .error(let error, _): reported = error.correlationId
        default: reported = nil
        }
        if let reported, reported.uuidString.lowercased() != flowId {
            return ["the outcome names correlation id \(reported), the flow's is \(flowId)"]
        }
        return []
    }

    /// No code, password or continuation token of the step shows in what the app can print
    /// (DESIGN rule 7).
    private func checkNoSecrets(_ invocation: SDKInvocation, _ observed: FlowOutcome, requestsBefore: Int)
        -> [String]
    {
        var secrets: Set<String> = []
        switch invocation.call {
        case .signIn(let parameters): secrets.insert(parameters.password ?? "")
        case .signUp(let parameters): secrets.insert(parameters.password ?? "")
        case .resetPassword: break
        case .state(_, let input): secrets.formUnion([input.code, input.password])
        }
        for request in tenant.receivedRequests.dropFirst(requestsBefore) {
            let data = request.body ?? Data()
            // V2's JSON bodies: the continuation token, a code, a password, a new password.
            if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                for key in ["continuationToken", "otp", "password", "newPassword"] {
                    if let value = object[key] as? String { secrets.insert(value) }
                }
                if let attributes = object["attributes"] as? [String: Any],
                    let value = attributes["password"] as? String
                {
                    secrets.insert(value)
                }
                continue
            }
            let body = String(decoding: data, as: UTF8.self)
            for field in body.split(separator: "&") {
                let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                let names = ["continuation_token", "oob", "password", "new_password", "code"]
                guard pair.count == 2, names.contains(pair[0]) else { continue }
                secrets.insert(pair[1].removingPercentEncoding ?? pair[1])
            }
        }
        secrets = secrets.filter { $0.count >= 6 }
        guard !secrets.isEmpty else { return [] }
        var texts: [String] = []
        switch observed {
        case .state(let state): texts.append(state.description)
        case .error(let error, _):
            texts += [error.description, error.debugDescription, error.errorDescription ?? ""]
        default: break
        }
        let leaked = texts.contains { text in secrets.contains { text.contains($0) } }
        return leaked ? ["a code, password or continuation token shows in the outcome's description"] : []
    }

    /// Credentials reach the store only with a completed sign-in, and the current account is the
    /// last user signed in.
    private func checkCredentials(_ planned: PlannedStep) async -> [String] {
        let writes = store.writes
        // Reading the account decodes its ID token: only when a sign-in may have changed it.
        let isLast = planned.step == scenario.steps.last?.step
        guard planned.completions == 0 || planned.completions != checkedCompletions || isLast else {
            return writes == 0 ? ["a sign-in completed but nothing was written to the credential store"] : []
        }
        checkedCompletions = planned.completions
        let current = try? await client.currentAccount()
        if planned.completions == 0 {
            var problems: [String] = []
            if writes != 0 {
                problems.append("\(writes) write(s) to the credential store before any sign-in completed")
            }
            if let current {
                problems.append("currentAccount() is \(current.account.username) before any sign-in completed")
            }
            return problems
        }
        var problems: [String] = []
        if writes == 0 { problems.append("a sign-in completed but nothing was written to the credential store") }
        let expected = planned.lastSignedIn?.lowercased()
        if current?.account.username.lowercased() != expected {
            problems.append("currentAccount() is \(current?.account.username ?? "nil"), expected \(expected ?? "nil")")
        }
        return problems
    }
}
