import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport

/// The small tenant every sequence runs on, and how it is set up for one sequence.
struct TenantPlan: Sendable, CustomStringConvertible {
    static let password = "Corr3ct-Horse!"
    static let ada = "ada@example.com"  // password
    static let grace = "grace@example.com"  // passwordless: email code
    static let alan = "alan@example.com"  // password + two MFA methods
    static let joan = "joan@example.com"  // password, must register a strong auth method
    static let nobody = "nobody@example.com"  // no such user
    static let newbie = "newbie@example.com"  // signs up
    static let notAnEmail = "not-an-email"
    static let alanEmail = "alan.backup@example.com"
    static let alanPhone = "+15550100"
    static let blockedContact = "blocked@example.com"
    static let cityPattern = "[A-Za-z ]+"

    var challengeTypes: Set<ChallengeType> = [.oob, .password]
    var capabilities: Set<Capability> = [.mfaRequired, .registrationRequired]
    /// Sign-up requires `city`, matching ``cityPattern``.
    var cityRequired = false
    /// Alan's SMS method is blocked.
    var blockSMS = false
    /// `in_progress` answers before a reset ends, the poll interval, and how the reset ends.
    var resetPolls = 1
    var resetInterval = 1
    var resetFails = false
    /// Drive the sequence through the delegate API.
    var useDelegates = false
    /// The protocol the client speaks (`NativeAuthConfiguration.protocolVersion`); the tenant
    /// serves both.
    var protocolVersion: NativeAuthProtocol = .v1

    static func random(_ rng: inout PropertyRandom) -> TenantPlan {
        var plan = TenantPlan()
        plan.challengeTypes = rng.weighted([(80, [.oob, .password]), (12, [.oob]), (8, [.password])])
        plan.capabilities = rng.weighted([
            (80, [.mfaRequired, .registrationRequired]), (8, []), (6, [.mfaRequired]), (6, [.registrationRequired]),
        ])
        plan.cityRequired = rng.chance(percent: 40)
        plan.blockSMS = rng.chance(percent: 40)
        plan.resetPolls = rng.chance(percent: 85) ? rng.inRange(0...3) : rng.inRange(5...8)
        plan.resetInterval = rng.inRange(1...3)
        plan.resetFails = rng.chance(percent: 15)
        plan.useDelegates = rng.chance(percent: 10)
        return plan
    }

    var users: [EmulatedUser] {
        [
            EmulatedUser(username: Self.ada, password: Self.password, attributes: ["displayName": "Ada"]),
            EmulatedUser(username: Self.grace),
            EmulatedUser(
                username: Self.alan, password: Self.password,
                mfaMethods: [
                    EmulatedAuthMethod(id: "alan-email", channel: "email", address: Self.alanEmail),
                    EmulatedAuthMethod(id: "alan-sms", channel: "sms", address: Self.alanPhone),
                ]),
            EmulatedUser(username: Self.joan, password: Self.password, requiresMethodRegistration: true),
        ]
    }

    func configure(_ settings: inout EmulatorSettings) {
        settings.requiredSignUpAttributes =
            cityRequired ? [EmulatedRequiredAttribute(name: "city", regex: Self.cityPattern)] : []
        settings.blockedMethodIds = blockSMS ? ["alan-sms", Self.blockedContact] : [Self.blockedContact]
        settings.resetPollsBeforeCompletion = resetPolls
        settings.resetPollInterval = resetInterval
        settings.resetJobOutcome = resetFails ? .fail : .succeed
        // V1 sign-up asks for a password when the client offers the password challenge type; a V2
        // client sends no challenge types, and the tenant's user flow decides. The tenant is set up
        // so that the same plans ask for one either way.
        settings.signUpCollectsPassword = challengeTypes.contains(.password)
    }

    var description: String {
        let types = ChallengeType.allCases.filter(challengeTypes.contains).map(\.rawValue)
        let caps = Capability.allCases.filter(capabilities.contains).map(\.rawValue)
        return
            "challengeTypes=\(types) capabilities=\(caps) cityRequired=\(cityRequired) blockSMS=\(blockSMS) "
            + "resetPolls=\(resetPolls) resetInterval=\(resetInterval)s resetFails=\(resetFails) "
            + "api=\(useDelegates ? "delegate" : "async") protocol=\(protocolVersion)"
    }
}

/// The reference model of the flows, written from Docs/Protocol.md and Docs/Design.md ("Rules the
/// states keep") and the tenant's settings; it uses nothing of the SDK but its public names.
///
/// It keeps its own view of the tenant (users, passwords, methods, the clock) and of every state
/// object handed out in the sequence (its kind, whether it is still usable, when its continuation
/// token was issued, where its code went, what the server's flow holds). For each step it says
/// which requests go out (and which waits), what the step leads to, and whether the acted-on state
/// is spent or stays usable.
///
/// The rules it applies:
/// - A state that is spent refuses at once and sends nothing; a busy one too (DESIGN rules 2, 3).
/// - Empty input is refused before any request, and the state stays usable.
/// - A continuation token expires `tokenLifetime` seconds after it was issued: the next request
///   with it gets `expired_token` (flow expired), and the state is spent.
/// - A wrong code or password, a refused password or attribute, a blocked method or an invalid
///   contact leave the flow where it was: the state stays usable.
/// - A forced server answer or a cancellation on the first request of an action leaves the flow
///   where it was: transient failures (network, 5xx, unusable body, unknown 400, cancellation)
///   leave the state usable; browser required, configuration errors and expired tokens spend it.
/// - Once the server has moved the flow forward (the first request of a state's action succeeded),
///   a failure later in the same action cannot be retried on that state: it is spent. The one
///   exception is documented on `ResetPasswordRequiredState.submitPassword`: after the new
///   password was accepted, a transient failure while waiting for the reset leaves the state
///   usable and the next call resumes polling without submitting again.
///
/// Over Native Auth V2 (`TenantPlan.protocolVersion`) the same rules hold, on V2's requests; where
/// V2 differs from V1 the model says so in `ReferenceModel+V2.swift`, which lists each difference.
struct ReferenceModel {
    static let tokenLifetime = 600
    /// How many times one `submitPassword` call polls a running reset before it gives up
    /// (Docs/Protocol.md, "poll_completion": six polls at most, as MSAL for iOS).
    static let pollsPerCall = 6

    struct Method: Equatable {
        var channel: String
        var address: String
        var blocked: Bool
    }

    struct User {
        var password: String?
        var history: [String] = []
        var methods: [Method] = []
        var requiresRegistration = false
    }

    struct Handle {
        var kind: FlowStateKind
        var usable = true
        var issuedAt: Int
        var username: String
        var codeAddress: String?
        var channel: String?
        /// The state this one was resent from (for a stale code).
        var previous: Int?
        var methods: [Method] = []
        // The server's sign-up flow.
        var signUpPassword: String?
        var signUpAttributes: [String: String] = [:]
        // The server's reset job.
        var pending = false
        var serverPolls = 0
        var jobPassword: String?
    }

    enum Interrupt: Equatable {
        case fault(ForcedFault)
        case cancel
    }

    /// The events of one action as it runs, stopping where a fault or a cancellation hits.
    struct Sim {
        var events: [WireEvent] = []
        let stopAt: Int?
        let interrupt: Interrupt?
        let hasState: Bool
        var interruptedAt: Int?
        /// After a reset's new password was accepted: transient failures leave the state usable.
        var resumable = false
        var newHandle: ExpectedHandle?
        /// The protocol the action speaks: which reads are retried, which error a fault is.
        let protocolVersion: NativeAuthProtocol

        init(
            stopAt: Int? = nil, interrupt: Interrupt? = nil, hasState: Bool, protocolVersion: NativeAuthProtocol = .v1
        ) {
            self.stopAt = stopAt
            self.interrupt = interrupt
            self.hasState = hasState
            self.protocolVersion = protocolVersion
        }

        /// Seconds the SDK waited before retrying, added to the model's clock after the action.
        var retrySeconds = 0

        /// Reads that change nothing, which the SDK retries once, 1 s later, after a 500 or a
        /// dropped connection (the SDK's retry policy; Docs/Transport.md). V2 has none: every V2
        /// request, a poll included, spends its continuation token and is never repeated.
        var retriedReads: Set<EmulatorEndpoint> {
            protocolVersion == .v2 ? [] : [.introspect, .registerIntrospect, .resetPollCompletion]
        }

        /// Records a request; `false` when it is the one the fault or cancellation hits.
        mutating func request(_ endpoint: EmulatorEndpoint) -> Bool {
            events.append(.request(endpoint))
            if events.count == stopAt, case .fault(let fault) = interrupt, [.server500, .network].contains(fault),
                retriedReads.contains(endpoint)
            {
                // The forced answer is used up; the retry gets the real one.
                events += [.sleep(1), .request(endpoint)]
                retrySeconds += 1
                return true
            }
            if events.count == stopAt, interrupt != nil {
                interruptedAt = events.count
                return false
            }
            return true
        }

        /// Records a wait on the clock (none for zero seconds); `false` when it is cancelled there.
        mutating func sleep(_ seconds: Int, now: inout Int) -> Bool {
            guard seconds > 0 else { return true }
            events.append(.sleep(seconds))
            if events.count == stopAt, interrupt == .cancel {
                interruptedAt = events.count
                return false
            }
            now += seconds
            return true
        }

        func error(_ category: FlowErrorCategory, usable: Bool) -> ModelOutcome {
            .error(category, usable: hasState ? usable : nil)
        }

        /// The outcome of the action the fault or cancellation stopped.
        func interrupted() -> ModelOutcome {
            let category: FlowErrorCategory
            switch interrupt {
            case .fault(let fault): category = fault.category(over: protocolVersion)
            case .cancel, nil: category = .cancelled
            }
            let flowWhereItWas = interruptedAt == 1 || resumable
            return error(category, usable: category.isTransient && flowWhereItWas)
        }
    }

    let plan: TenantPlan
    var users: [String: User]
    var handles: [Handle] = []
    var now = 0
    var freshPasswords = 0
    var completions = 0
    var lastSignedIn: String?

    init(plan: TenantPlan) {
        self.plan = plan
        users = [
            TenantPlan.ada: User(password: TenantPlan.password),
            TenantPlan.grace: User(password: nil),
            TenantPlan.alan: User(
                password: TenantPlan.password,
                methods: [
                    Method(channel: "email", address: TenantPlan.alanEmail, blocked: false),
                    Method(channel: "sms", address: TenantPlan.alanPhone, blocked: plan.blockSMS),
                ]),
            TenantPlan.joan: User(password: TenantPlan.password, requiresRegistration: true),
        ]
    }

    // MARK: - Planning a step

    /// Plans `step`: its inputs, events and outcome, and moves the model past it. `nil` when the
    /// step does not apply here (no such state, an action the state does not offer, a fault on an
    /// event the action does not have); the model is then unchanged.
    mutating func apply(_ step: FlowStep) -> PlannedStep? {
        switch step.action {
        case .advanceClock(let seconds):
            guard step.mode == .plain, seconds > 0 else { return nil }
            now += seconds
            return PlannedStep(step: step, outcome: .nothing, completions: completions, lastSignedIn: lastSignedIn)
        case .removeUser(let username):
            guard step.mode == .plain, users[username.lowercased()] != nil else { return nil }
            users[username.lowercased()] = nil
            return PlannedStep(step: step, outcome: .nothing, completions: completions, lastSignedIn: lastSignedIn)
        case .signIn, .signUp, .resetPassword:
            if case .concurrent = step.mode { return nil }
            var resolved = self
            let inputs = resolved.resolveStart(step.action)
            return resolved.plan(step) { model, sim in
                model.start(step.action, inputs: inputs, sim: &sim)
            } finish: { planned in
                planned.startPassword = inputs.password
                planned.startAttributes = inputs.attributes
            } commit: {
                self = $0
            }
        case .state(let target, let action):
            let index: Int
            switch target {
            case .current: index = handles.count - 1
            case .handle(let number): index = number
            }
            guard handles.indices.contains(index), action.isOffered(by: handles[index].kind) else { return nil }
            if case .requestChallenge(let method) = action, !handles[index].methods.indices.contains(method) {
                return nil
            }
            var second: ResolvedAction?
            if case .concurrent(let other) = step.mode {
                guard handles[index].usable, other.isOffered(by: handles[index].kind) else { return nil }
                if case .requestChallenge(let method) = other, !handles[index].methods.indices.contains(method) {
                    return nil
                }
            }
            var resolved = self
            let primary = resolved.resolve(action, on: index)
            if case .concurrent(let other) = step.mode { second = resolved.resolve(other, on: index) }
            return resolved.plan(step) { model, sim in
                model.act(on: index, primary, sim: &sim)
            } finish: { planned in
                planned.target = index
                planned.primary = primary
                planned.second = second
            } commit: {
                self = $0
            }
        }
    }

    /// Runs `body` plainly to learn the action's events, checks the mode fits them, then runs it
    /// for real (with the fault or cancellation) and commits the model.
    private func plan(
        _ step: FlowStep, _ body: (inout ReferenceModel, inout Sim) -> ModelOutcome,
        finish: (inout PlannedStep) -> Void, commit: (ReferenceModel) -> Void
    ) -> PlannedStep? {
        let hasState: Bool
        if case .state = step.action { hasState = true } else { hasState = false }
        let version = plan.protocolVersion
        var dryRun = self
        var dry = Sim(hasState: hasState, protocolVersion: version)
        _ = body(&dryRun, &dry)
        var sim: Sim
        switch step.mode {
        case .plain:
            sim = Sim(hasState: hasState, protocolVersion: version)
        case .concurrent:
            guard !dry.events.isEmpty else { return nil }
            sim = Sim(hasState: hasState, protocolVersion: version)
        case .fault(let fault, let at):
            guard dry.events.indices.contains(at - 1), dry.events[at - 1].isRequest else { return nil }
            sim = Sim(stopAt: at, interrupt: .fault(fault), hasState: hasState, protocolVersion: version)
        case .cancel(let at):
            guard dry.events.indices.contains(at - 1) else { return nil }
            sim = Sim(stopAt: at, interrupt: .cancel, hasState: hasState, protocolVersion: version)
        }
        var model = self
        let outcome = body(&model, &sim)
        model.now += sim.retrySeconds
        commit(model)
        var planned = PlannedStep(
            step: step, events: sim.events, outcome: outcome, newHandle: sim.newHandle,
            completions: model.completions, lastSignedIn: model.lastSignedIn)
        finish(&planned)
        return planned
    }

    // MARK: - Inputs

    struct StartInputs {
        var password: String?
        var attributes: [String: String] = [:]
    }

    private mutating func resolveStart(_ action: FlowAction) -> StartInputs {
        switch action {
        case .signIn(let username, let password):
            return StartInputs(password: password.map { signInPassword($0, username: username) })
        case .signUp(_, let password, let attributes):
            return StartInputs(password: password.map { newPassword($0, username: nil) }, attributes: attributes.values)
        default:
            return StartInputs()
        }
    }

    private mutating func resolve(_ action: StateAction, on index: Int) -> ResolvedAction {
        let handle = handles[index]
        var resolved = ResolvedAction(action: action)
        switch action {
        case .submitCode(let choice):
            switch choice {
            case .correct: resolved.code = .of(index)
            case .wrong: resolved.code = .wrongFor(index)
            case .empty: resolved.code = .empty
            case .stale:
                if let previous = handle.previous, handles[previous].kind.hasCode {
                    resolved.code = .stale(previous: previous, current: index)
                } else {
                    resolved.code = .wrongFor(index)
                }
            }
        case .submitPassword(let choice):
            resolved.password =
                handle.kind == .signInPassword
                ? signInPassword(choice, username: handle.username)
                : newPassword(choice, username: handle.kind == .resetPassword ? handle.username : nil)
        case .submitAttributes(let choice):
            resolved.attributes = choice.values
        case .requestChallenge(let method):
            resolved.methodIndex = method
        case .challengeContact(let choice):
            switch choice {
            case .newEmail: resolved.contact = "backup-" + handle.username
            case .ownEmail: resolved.contact = handle.username
            case .invalid: resolved.contact = TenantPlan.notAnEmail
            case .empty: resolved.contact = ""
            case .blocked: resolved.contact = TenantPlan.blockedContact
            }
            resolved.methodIndex = 0
        case .resendCode, .signInAfter:
            break
        }
        return resolved
    }

    static let wrongPassword = "Wr0ng-Horse!"

    /// A password typed to sign in.
    private mutating func signInPassword(_ choice: PasswordChoice, username: String) -> String {
        let user = users[username.lowercased()]
        switch choice {
        case .correct: return user?.password ?? TenantPlan.password
        case .previous: return user?.history.last ?? Self.wrongPassword
        default: return newPassword(choice, username: nil)
        }
    }

    /// A new password typed at sign-up (`username` nil) or for a reset.
    private mutating func newPassword(_ choice: PasswordChoice, username: String?) -> String {
        let user = username.flatMap { users[$0.lowercased()] }
        switch choice {
        case .correct: return user?.password ?? TenantPlan.password
        case .wrong: return Self.wrongPassword
        case .empty: return ""
        case .previous: return user?.history.last ?? Self.wrongPassword
        case .fresh:
            freshPasswords += 1
            return "Fresh-\(freshPasswords)-Pw!"
        case .tooShort: return "Ab1!xyz"
        case .tooWeak: return "onlylowercaseletters"
        case .banned: return "password1!"
        }
    }

    /// The tenant's password policy (EmulatorSettings defaults): at least 8 characters, not on the
    /// banned list, three kinds of characters, not the current or an earlier password.
    static func violation(of password: String, previous: [String]) -> PasswordPolicyViolation? {
        if password.count < 8 { return .tooShort }
        if password.count > 256 { return .tooLong }
        let banned = ["password", "password1", "password1!", "password123", "p@ssw0rd", "12345678", "qwerty123"]
        if banned.contains(password.lowercased()) { return .banned }
        var kinds = 0
        if password.contains(where: \.isLowercase) { kinds += 1 }
        if password.contains(where: \.isUppercase) { kinds += 1 }
        if password.contains(where: \.isNumber) { kinds += 1 }
        if password.contains(where: { !$0.isLetter && !$0.isNumber }) { kinds += 1 }
        if kinds < 3 { return .tooWeak }
        if previous.contains(password) { return .recentlyUsed }
        return nil
    }

    func attributesInvalid(_ attributes: [String: String]) -> Bool {
        guard plan.cityRequired, let city = attributes["city"] else { return false }
        return city.isEmpty || !city.allSatisfy { $0 == " " || ($0.isASCII && $0.isLetter) }
    }

    static func isEmailAddress(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !value.contains(where: \.isWhitespace) else { return false }
        return parts[1].contains(".") && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
    }

    // MARK: - Helpers

    func expired(_ index: Int) -> Bool { now - handles[index].issuedAt >= Self.tokenLifetime }

    /// The flow's user was removed from the tenant since the flow started.
    func userIsGone(_ handle: Handle) -> Bool { users[handle.username.lowercased()] == nil }

    /// The first factor the server asks of `user`: the password when the app offers it and the
    /// user has one, else an email code when the app offers codes; `nil` means a browser is needed.
    private func firstFactor(_ user: User) -> ChallengeType? {
        if user.password != nil, plan.challengeTypes.contains(.password) { return .password }
        if plan.challengeTypes.contains(.oob) { return .oob }
        return nil
    }

    mutating func newHandle(_ handle: Handle, sim: inout Sim) -> ModelOutcome {
        handles.append(handle)
        sim.newHandle = ExpectedHandle(
            index: handles.count - 1, kind: handle.kind, codeAddress: handle.codeAddress, channel: handle.channel,
            methodCount: [.awaitingMFA, .mfaRequired, .registerStrongAuth, .registerVerification].contains(handle.kind)
                ? handle.methods.count : nil)
        return .state(handle.kind)
    }

    func handle(_ kind: FlowStateKind, for username: String, from source: Handle? = nil) -> Handle {
        var handle = source ?? Handle(kind: kind, issuedAt: now, username: username)
        handle.kind = kind
        handle.usable = true
        handle.issuedAt = now
        handle.username = username
        handle.previous = nil
        handle.codeAddress = nil
        handle.channel = nil
        handle.pending = false
        handle.serverPolls = 0
        handle.jobPassword = nil
        return handle
    }

    mutating func complete(_ username: String) -> ModelOutcome {
        completions += 1
        lastSignedIn = username
        return .completed(username)
    }

    /// What follows a verified first factor (a password, a code, a finished sign-up or reset):
    /// method registration, MFA, or the tokens. The token request has been made.
    private mutating func afterFirstFactor(_ username: String, sim: inout Sim) -> ModelOutcome {
        guard let user = users[username.lowercased()] else { return sim.error(.userNotFound, usable: false) }
        if user.requiresRegistration {
            guard plan.capabilities.contains(.registrationRequired) else {
                return sim.error(.browserRequired, usable: false)
            }
            guard sim.request(.registerIntrospect) else { return sim.interrupted() }
            var next = handle(.registerStrongAuth, for: username)
            next.methods = [Method(channel: "email", address: username, blocked: false)]
            return newHandle(next, sim: &sim)
        }
        if !user.methods.isEmpty {
            guard plan.capabilities.contains(.mfaRequired) else { return sim.error(.browserRequired, usable: false) }
            guard sim.request(.introspect) else { return sim.interrupted() }
            var next = handle(.awaitingMFA, for: username)
            next.methods = user.methods
            return newHandle(next, sim: &sim)
        }
        return complete(username)
    }

    // MARK: - Starting a flow

    private mutating func start(_ action: FlowAction, inputs: StartInputs, sim: inout Sim) -> ModelOutcome {
        if plan.protocolVersion == .v2 { return startV2(action, inputs: inputs, sim: &sim) }
        switch action {
        case .signIn(let username, _):
            return signInStart(username, password: inputs.password, sim: &sim)
        case .signUp(let username, _, _):
            return signUpStart(username, password: inputs.password, attributes: inputs.attributes, sim: &sim)
        case .resetPassword(let username):
            return resetStart(username, sim: &sim)
        default:
            return .nothing
        }
    }

    private mutating func signInStart(_ username: String, password: String?, sim: inout Sim) -> ModelOutcome {
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            return sim.error(.invalidUsername, usable: false)
        }
        if password == "" { return sim.error(.invalidCredentials, usable: false) }
        guard sim.request(.initiate) else { return sim.interrupted() }
        guard let user = users[username.lowercased()] else { return sim.error(.userNotFound, usable: false) }
        guard let factor = firstFactor(user) else { return sim.error(.browserRequired, usable: false) }
        guard sim.request(.challenge) else { return sim.interrupted() }
        if factor == .oob {
            // A password given up front is ignored when the server chooses a code.
            var next = handle(.signInCode, for: username)
            next.codeAddress = username
            next.channel = "email"
            return newHandle(next, sim: &sim)
        }
        guard let password else { return newHandle(handle(.signInPassword, for: username), sim: &sim) }
        guard sim.request(.token) else { return sim.interrupted() }
        guard password == user.password else { return sim.error(.invalidCredentials, usable: false) }
        return afterFirstFactor(username, sim: &sim)
    }

    private mutating func signUpStart(
        _ username: String, password: String?, attributes: [String: String], sim: inout Sim
    ) -> ModelOutcome {
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            return sim.error(.invalidUsername, usable: false)
        }
        if password == "" { return sim.error(.invalidPassword(nil), usable: false) }
        guard sim.request(.signUpStart) else { return sim.interrupted() }
        guard Self.isEmailAddress(username) else { return sim.error(.invalidUsername, usable: false) }
        guard users[username.lowercased()] == nil else { return sim.error(.userAlreadyExists, usable: false) }
        if let password, let violation = Self.violation(of: password, previous: []) {
            return sim.error(.invalidPassword(violation), usable: false)
        }
        if attributesInvalid(attributes) { return .attributesInvalid(["city"]) }
        guard plan.challengeTypes.contains(.oob) else { return sim.error(.browserRequired, usable: false) }
        guard sim.request(.signUpChallenge) else { return sim.interrupted() }
        var next = handle(.signUpCode, for: username)
        next.codeAddress = username
        next.channel = "email"
        next.signUpPassword = password
        next.signUpAttributes = attributes
        return newHandle(next, sim: &sim)
    }

    private mutating func resetStart(_ username: String, sim: inout Sim) -> ModelOutcome {
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            return sim.error(.invalidUsername, usable: false)
        }
        guard sim.request(.resetStart) else { return sim.interrupted() }
        guard let user = users[username.lowercased()] else { return sim.error(.userNotFound, usable: false) }
        guard user.password != nil else { return sim.error(.userHasNoPassword, usable: false) }
        guard sim.request(.resetChallenge) else { return sim.interrupted() }
        var next = handle(.resetCode, for: username)
        next.codeAddress = username
        next.channel = "email"
        return newHandle(next, sim: &sim)
    }

    // MARK: - Acting on a state

    private mutating func act(on index: Int, _ action: ResolvedAction, sim: inout Sim) -> ModelOutcome {
        guard handles[index].usable else { return .error(.stateSpent, usable: false) }
        let outcome = perform(on: index, action, sim: &sim)
        switch outcome {
        case .state, .completed, .attributesInvalid: handles[index].usable = false
        case .error(_, let usable): handles[index].usable = usable ?? false
        case .nothing: break
        }
        return outcome
    }

    private mutating func perform(on index: Int, _ action: ResolvedAction, sim: inout Sim) -> ModelOutcome {
        if plan.protocolVersion == .v2 { return performV2(on: index, action, sim: &sim) }
        let state = handles[index]
        switch (state.kind, action.action) {
        // Sign-in
        case (.signInCode, .submitCode), (.mfaRequired, .submitCode):
            if action.code == .empty { return sim.error(.invalidCode, usable: true) }
            guard sim.request(.token) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            guard action.code == .of(index) else { return sim.error(.invalidCode, usable: true) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            return state.kind == .mfaRequired ? complete(state.username) : afterFirstFactor(state.username, sim: &sim)
        case (.signInCode, .resendCode):
            guard sim.request(.challenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            var next = handle(.signInCode, for: state.username, from: state)
            next.codeAddress = state.codeAddress
            next.channel = state.channel
            next.previous = index
            return newHandle(next, sim: &sim)
        case (.signInPassword, .submitPassword):
            let password = action.password ?? ""
            if password.isEmpty { return sim.error(.invalidPassword(nil), usable: true) }
            guard sim.request(.token) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            guard password == users[state.username.lowercased()]?.password else {
                return sim.error(.invalidPassword(nil), usable: true)
            }
            return afterFirstFactor(state.username, sim: &sim)
        case (.awaitingMFA, .requestChallenge), (.mfaRequired, .requestChallenge):
            guard sim.request(.challenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            guard plan.challengeTypes.contains(.oob) else { return sim.error(.browserRequired, usable: false) }
            let method = state.methods[action.methodIndex ?? 0]
            if method.blocked { return sim.error(.methodBlocked, usable: true) }
            var next = handle(.mfaRequired, for: state.username, from: state)
            next.codeAddress = method.address
            next.channel = method.channel
            next.previous = state.kind == .mfaRequired ? index : nil
            return newHandle(next, sim: &sim)

        // Strong authentication method registration
        case (.registerStrongAuth, .challengeContact), (.registerVerification, .challengeContact):
            let contact = action.contact ?? ""
            if contact.isEmpty { return sim.error(.invalidInput, usable: true) }
            guard sim.request(.registerChallenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            guard Self.isEmailAddress(contact) else { return sim.error(.invalidInput, usable: true) }
            if contact == TenantPlan.blockedContact { return sim.error(.methodBlocked, usable: true) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            let user = users[state.username.lowercased()]
            let verified = [state.username] + (user?.methods.map(\.address) ?? [])
            if verified.contains(where: { $0.lowercased() == contact.lowercased() }) {
                guard sim.request(.registerContinue) else { return sim.interrupted() }
                register(contact, for: state.username)
                guard sim.request(.token) else { return sim.interrupted() }
                return complete(state.username)
            }
            var next = handle(.registerVerification, for: state.username, from: state)
            next.codeAddress = contact
            next.channel = "email"
            next.previous = state.kind == .registerVerification ? index : nil
            return newHandle(next, sim: &sim)
        case (.registerVerification, .submitCode):
            if action.code == .empty { return sim.error(.invalidCode, usable: true) }
            guard sim.request(.registerContinue) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            guard action.code == .of(index) else { return sim.error(.invalidCode, usable: true) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            register(state.codeAddress ?? state.username, for: state.username)
            guard sim.request(.token) else { return sim.interrupted() }
            return complete(state.username)

        // Sign-up
        case (.signUpCode, .submitCode):
            if action.code == .empty { return sim.error(.invalidCode, usable: true) }
            guard sim.request(.signUpContinue) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            guard action.code == .of(index) else { return sim.error(.invalidCode, usable: true) }
            return nextSignUpStep(state, sim: &sim)
        case (.signUpCode, .resendCode):
            guard sim.request(.signUpChallenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            var next = handle(.signUpCode, for: state.username, from: state)
            next.codeAddress = state.codeAddress
            next.channel = state.channel
            next.previous = index
            return newHandle(next, sim: &sim)
        case (.signUpPassword, .submitPassword):
            let password = action.password ?? ""
            if password.isEmpty { return sim.error(.invalidPassword(nil), usable: true) }
            guard sim.request(.signUpContinue) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if let violation = Self.violation(of: password, previous: []) {
                return sim.error(.invalidPassword(violation), usable: true)
            }
            var flow = state
            flow.signUpPassword = password
            return nextSignUpStep(flow, sim: &sim)
        case (.signUpAttributes, .submitAttributes):
            guard sim.request(.signUpContinue) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            let attributes = action.attributes ?? [:]
            if attributesInvalid(attributes) { return sim.error(.attributesInvalid, usable: true) }
            var flow = state
            flow.signUpAttributes.merge(attributes) { _, new in new }
            return nextSignUpStep(flow, sim: &sim)
        case (.signInAfterSignUp, .signInAfter), (.signInAfterReset, .signInAfter):
            guard sim.request(.token) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            return afterFirstFactor(state.username, sim: &sim)

        // Password reset
        case (.resetCode, .submitCode):
            if action.code == .empty { return sim.error(.invalidCode, usable: true) }
            guard sim.request(.resetContinue) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            guard action.code == .of(index) else { return sim.error(.invalidCode, usable: true) }
            return newHandle(handle(.resetPassword, for: state.username), sim: &sim)
        case (.resetCode, .resendCode):
            guard sim.request(.resetChallenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            var next = handle(.resetCode, for: state.username)
            next.codeAddress = state.codeAddress
            next.channel = state.channel
            next.previous = index
            return newHandle(next, sim: &sim)
        case (.resetPassword, .submitPassword):
            return resetSubmit(on: index, password: action.password ?? "", sim: &sim)

        default:
            return .nothing
        }
    }

    /// After a verified sign-up step: the password when the app offers one and none was given,
    /// then missing attributes, then the user is created.
    private mutating func nextSignUpStep(_ flow: Handle, sim: inout Sim) -> ModelOutcome {
        if flow.signUpPassword == nil, plan.challengeTypes.contains(.password) {
            // `credential_required`: the SDK asks for the password challenge.
            guard sim.request(.signUpChallenge) else { return sim.interrupted() }
            return newHandle(handle(.signUpPassword, for: flow.username, from: flow), sim: &sim)
        }
        if plan.cityRequired, (flow.signUpAttributes["city"] ?? "").isEmpty {
            return newHandle(handle(.signUpAttributes, for: flow.username, from: flow), sim: &sim)
        }
        guard users[flow.username.lowercased()] == nil else { return sim.error(.userAlreadyExists, usable: false) }
        users[flow.username.lowercased()] = User(password: flow.signUpPassword)
        return newHandle(handle(.signInAfterSignUp, for: flow.username), sim: &sim)
    }

    mutating func register(_ contact: String, for username: String) {
        guard var user = users[username.lowercased()] else { return }
        if !user.methods.contains(where: { $0.address.lowercased() == contact.lowercased() }) {
            user.methods.append(Method(channel: "email", address: contact, blocked: false))
        }
        user.requiresRegistration = false
        users[username.lowercased()] = user
    }

    private mutating func resetSubmit(on index: Int, password: String, sim: inout Sim) -> ModelOutcome {
        if password.isEmpty { return sim.error(.invalidPassword(nil), usable: true) }
        let username = handles[index].username.lowercased()
        if !handles[index].pending {
            guard sim.request(.resetSubmit) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(handles[index]) { return sim.error(.userNotFound, usable: false) }
            let user = users[username]
            let previous = (user?.history ?? []) + (user?.password.map { [$0] } ?? [])
            if let violation = Self.violation(of: password, previous: previous) {
                return sim.error(.invalidPassword(violation), usable: true)
            }
            handles[index].pending = true
            handles[index].serverPolls = 0
            handles[index].jobPassword = password
            handles[index].issuedAt = now
        }
        // The new password was accepted: from here on the reset runs on the server.
        sim.resumable = true
        var polls = 0
        while true {
            guard sim.sleep(plan.resetInterval, now: &now) else { return sim.interrupted() }
            guard sim.request(.resetPollCompletion) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(handles[index]) { return sim.error(.userNotFound, usable: false) }
            handles[index].issuedAt = now
            polls += 1
            if handles[index].serverPolls < plan.resetPolls {
                handles[index].serverPolls += 1
                // Documented on ResetPasswordRequiredState.submitPassword: with no answer within
                // six polls the call fails (the reset is pending), the state stays usable and the
                // next call resumes.
                if polls == Self.pollsPerCall { return sim.error(.passwordResetPending, usable: true) }
                continue
            }
            handles[index].pending = false
            if plan.resetFails { return sim.error(.passwordResetFailed, usable: true) }
            if var user = users[username], let job = handles[index].jobPassword {
                if let old = user.password { user.history.append(old) }
                user.password = job
                users[username] = user
            }
            return newHandle(handle(.signInAfterReset, for: handles[index].username), sim: &sim)
        }
    }
}

extension AttributesChoice {
    var values: [String: String] {
        switch self {
        case .none: [:]
        case .valid: ["city": "Oslo"]
        case .invalid: ["city": "12345"]
        case .unrelated: ["jobTitle": "Engineer"]
        }
    }
}
