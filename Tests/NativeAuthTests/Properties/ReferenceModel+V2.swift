import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport

/// The reference model over Native Auth V2 (`TenantPlan.protocolVersion == .v2`), written from
/// Docs/NativeAuthV2.md ("Using V2", "What the SDK reads and sends") and the emulator's V2 journeys
/// (Docs/Emulator.md). The states, their rules and the outcomes are V1's; what differs is listed
/// here, each difference on purpose, none a weaker check:
///
/// - **Requests.** Every flow starts with `authorize-challenge` and follows the journey's link
///   (`signin/start`, `signup/start`, `resetpassword/start`); codes are sent by a method's
///   `challenge` link and checked at its `verify` link; sign-up's values go to `submitAttributes`,
///   a new password is `PUT` on the `update` link and polled at `pollUpdate`. A finished journey
///   resumes at `authorize-challenge` and exchanges the code at `token`: two requests where V1
///   makes one.
/// - **No retried reads.** Each V2 request spends its continuation token, a poll included, so a 500
///   or a dropped connection on any of them is returned, never retried.
/// - **The server picks the first factor.** A V2 client sends no challenge types or capabilities:
///   a user with a password is asked for it, one without gets an email code, a user with second
///   factors is offered them, whatever the client's `challengeTypes` and `capabilities`.
/// - **Method registration over V2** (Docs/NativeAuthV2.md, "Registering a method (JIT)"): the
///   server offers an email and an SMS method without being asked (no capabilities), `enroll`
///   takes the contact and `activate` the code; the user is found before the contact or the code
///   is read, and a contact already verified signs in at once (resume and token).
/// - **No MFA after sign-up or reset.** The emulator's V2 sign-up and reset journeys end with
///   `state: continue`, and their sign-in resumes authorization at once: a user with second factors
///   or one who must register is signed in (V1 asks for them there).
/// - **Order of the server's checks.** A V2 `verify` or `challenge` finds the flow's user before it
///   reads the code: a removed user is `userNotFound` whatever the code (V1 checks the code first),
///   in password reset too (V1's reset never looks the user up before the new password).
/// - **Blocked methods** are not modelled by the emulator's V2 MFA: a code is sent to them.
/// - **The reset cannot fail, and waits for five polls** a call (V1: six), as
///   Docs/NativeAuthV2.md says; the emulator's V2 reset ignores `resetJobOutcome`.
/// - **Sign-up's password step** comes from the tenant's user flow (`signUpCollectsPassword`), set
///   by `TenantPlan.configure` from the plan's challenge types, so the same plans ask for one.
/// - **Forced answers**: see `ForcedFault.category(over:)` (a JSON 500 is `general`) and
///   `ForcedFault.answer(over:)` (the browser asked for as V2 asks).
extension ReferenceModel {
    // MARK: - Starting a flow

    mutating func startV2(_ action: FlowAction, inputs: StartInputs, sim: inout Sim) -> ModelOutcome {
        switch action {
        case .signIn(let username, _): return signInStartV2(username, password: inputs.password, sim: &sim)
        case .signUp(let username, _, _):
            return signUpStartV2(username, password: inputs.password, attributes: inputs.attributes, sim: &sim)
        case .resetPassword(let username): return resetStartV2(username, sim: &sim)
        default: return .nothing
        }
    }

    private mutating func signInStartV2(_ username: String, password: String?, sim: inout Sim) -> ModelOutcome {
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            return sim.error(.invalidUsername, usable: false)
        }
        if password == "" { return sim.error(.invalidCredentials, usable: false) }
        guard sim.request(.authorizeChallenge) else { return sim.interrupted() }
        guard sim.request(.v2SignInStart) else { return sim.interrupted() }
        guard let user = users[username.lowercased()] else { return sim.error(.userNotFound, usable: false) }
        guard user.password != nil else {
            // An email code: the SDK follows the method's `challenge` link at once. A password given
            // up front is not used.
            guard sim.request(.v2MethodChallenge) else { return sim.interrupted() }
            var next = handle(.signInCode, for: username)
            next.codeAddress = username
            next.channel = "email"
            return newHandle(next, sim: &sim)
        }
        guard let password else { return newHandle(handle(.signInPassword, for: username), sim: &sim) }
        guard sim.request(.v2MethodVerify) else { return sim.interrupted() }
        guard password == user.password else { return sim.error(.invalidCredentials, usable: false) }
        return afterFirstFactorV2(username, sim: &sim)
    }

    private mutating func signUpStartV2(
        _ username: String, password: String?, attributes: [String: String], sim: inout Sim
    ) -> ModelOutcome {
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            return sim.error(.invalidUsername, usable: false)
        }
        if password == "" { return sim.error(.invalidPassword(nil), usable: false) }
        guard sim.request(.authorizeChallenge) else { return sim.interrupted() }
        guard sim.request(.v2SignUpStart) else { return sim.interrupted() }
        // The first `collectAttributes` is answered by the SDK: the username as `email`, the
        // password and the attributes, in one `submitAttributes`, which sends the code.
        guard sim.request(.v2SignUpSubmitAttributes) else { return sim.interrupted() }
        guard Self.isEmailAddress(username) else { return sim.error(.invalidUsername, usable: false) }
        guard users[username.lowercased()] == nil else { return sim.error(.userAlreadyExists, usable: false) }
        if let password, let violation = Self.violation(of: password, previous: []) {
            return sim.error(.invalidPassword(violation), usable: false)
        }
        if attributesInvalid(attributes) { return .attributesInvalid(["city"]) }
        var next = handle(.signUpCode, for: username)
        next.codeAddress = username
        next.channel = "email"
        next.signUpPassword = password
        next.signUpAttributes = attributes
        return newHandle(next, sim: &sim)
    }

    private mutating func resetStartV2(_ username: String, sim: inout Sim) -> ModelOutcome {
        guard !username.trimmingCharacters(in: .whitespaces).isEmpty else {
            return sim.error(.invalidUsername, usable: false)
        }
        guard sim.request(.authorizeChallenge) else { return sim.interrupted() }
        guard sim.request(.v2ResetPasswordStart) else { return sim.interrupted() }
        guard let user = users[username.lowercased()] else { return sim.error(.userNotFound, usable: false) }
        guard user.password != nil else { return sim.error(.userHasNoPassword, usable: false) }
        guard sim.request(.v2MethodChallenge) else { return sim.interrupted() }
        var next = handle(.resetCode, for: username)
        next.codeAddress = username
        next.channel = "email"
        return newHandle(next, sim: &sim)
    }

    // MARK: - Acting on a state

    mutating func performV2(on index: Int, _ action: ResolvedAction, sim: inout Sim) -> ModelOutcome {
        let state = handles[index]
        switch (state.kind, action.action) {
        // Sign-in
        case (.signInCode, .submitCode), (.mfaRequired, .submitCode):
            if action.code == .empty { return sim.error(.invalidCode, usable: true) }
            guard sim.request(.v2MethodVerify) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            guard action.code == .of(index) else { return sim.error(.invalidCode, usable: true) }
            if state.kind == .mfaRequired { return finishJourneyV2(state.username, sim: &sim) }
            return afterFirstFactorV2(state.username, sim: &sim)
        case (.signInCode, .resendCode):
            guard sim.request(.v2MethodChallenge) else { return sim.interrupted() }
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
            guard sim.request(.v2MethodVerify) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            guard password == users[state.username.lowercased()]?.password else {
                return sim.error(.invalidPassword(nil), usable: true)
            }
            return afterFirstFactorV2(state.username, sim: &sim)
        // Method registration (JIT)
        case (.registerStrongAuth, .challengeContact), (.registerVerification, .challengeContact):
            let contact = action.contact ?? ""
            if contact.isEmpty { return sim.error(.invalidInput, usable: true) }
            guard sim.request(.v2MethodEnroll) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            guard Self.isEmailAddress(contact) else { return sim.error(.invalidInput, usable: true) }
            if contact == TenantPlan.blockedContact { return sim.error(.methodBlocked, usable: true) }
            let user = users[state.username.lowercased()]
            let verified = [state.username] + (user?.methods.map(\.address) ?? [])
            if verified.contains(where: { $0.lowercased() == contact.lowercased() }) {
                register(contact, for: state.username)
                return finishJourneyV2(state.username, sim: &sim)
            }
            var next = handle(.registerVerification, for: state.username, from: state)
            next.codeAddress = contact
            next.channel = "email"
            next.previous = state.kind == .registerVerification ? index : nil
            return newHandle(next, sim: &sim)
        case (.registerVerification, .submitCode):
            if action.code == .empty { return sim.error(.invalidCode, usable: true) }
            guard sim.request(.v2MethodActivate) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            guard action.code == .of(index) else { return sim.error(.invalidCode, usable: true) }
            register(state.codeAddress ?? state.username, for: state.username)
            return finishJourneyV2(state.username, sim: &sim)

        case (.awaitingMFA, .requestChallenge), (.mfaRequired, .requestChallenge):
            guard sim.request(.v2MethodChallenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            let method = state.methods[action.methodIndex ?? 0]
            var next = handle(.mfaRequired, for: state.username, from: state)
            next.codeAddress = method.address
            next.channel = method.channel
            next.previous = state.kind == .mfaRequired ? index : nil
            return newHandle(next, sim: &sim)

        // Sign-up
        case (.signUpCode, .submitCode):
            if action.code == .empty { return sim.error(.invalidCode, usable: true) }
            guard sim.request(.v2MethodVerify) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            guard action.code == .of(index) else { return sim.error(.invalidCode, usable: true) }
            return nextSignUpStepV2(state, sim: &sim)
        case (.signUpCode, .resendCode):
            guard sim.request(.v2MethodChallenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            var next = handle(.signUpCode, for: state.username, from: state)
            next.codeAddress = state.codeAddress
            next.channel = state.channel
            next.previous = index
            return newHandle(next, sim: &sim)
        case (.signUpPassword, .submitPassword):
            let password = action.password ?? ""
            if password.isEmpty { return sim.error(.invalidPassword(nil), usable: true) }
            guard sim.request(.v2SignUpSubmitAttributes) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if let violation = Self.violation(of: password, previous: []) {
                return sim.error(.invalidPassword(violation), usable: true)
            }
            var flow = state
            flow.signUpPassword = password
            return nextSignUpStepV2(flow, sim: &sim)
        case (.signUpAttributes, .submitAttributes):
            guard sim.request(.v2SignUpSubmitAttributes) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            let attributes = action.attributes ?? [:]
            if attributesInvalid(attributes) { return sim.error(.attributesInvalid, usable: true) }
            var flow = state
            flow.signUpAttributes.merge(attributes) { _, new in new }
            return nextSignUpStepV2(flow, sim: &sim)
        case (.signInAfterSignUp, .signInAfter), (.signInAfterReset, .signInAfter):
            // The journey is over: resume authorization, exchange the code. No second factor.
            guard sim.request(.authorizeChallenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            guard sim.request(.token) else { return sim.interrupted() }
            return complete(state.username)

        // Password reset
        case (.resetCode, .submitCode):
            if action.code == .empty { return sim.error(.invalidCode, usable: true) }
            guard sim.request(.v2MethodVerify) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            guard action.code == .of(index) else { return sim.error(.invalidCode, usable: true) }
            return newHandle(handle(.resetPassword, for: state.username), sim: &sim)
        case (.resetCode, .resendCode):
            guard sim.request(.v2MethodChallenge) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(state) { return sim.error(.userNotFound, usable: false) }
            var next = handle(.resetCode, for: state.username)
            next.codeAddress = state.codeAddress
            next.channel = state.channel
            next.previous = index
            return newHandle(next, sim: &sim)
        case (.resetPassword, .submitPassword):
            return resetSubmitV2(on: index, password: action.password ?? "", sim: &sim)

        default:
            return .nothing
        }
    }

    /// After a verified first factor (the `verify` request has been made): the methods to register
    /// for a user who must register one, the second factor's methods, or the end of the journey.
    private mutating func afterFirstFactorV2(_ username: String, sim: inout Sim) -> ModelOutcome {
        guard let user = users[username.lowercased()] else { return sim.error(.userNotFound, usable: false) }
        if user.requiresRegistration {
            var next = handle(.registerStrongAuth, for: username)
            next.methods = [
                Method(channel: "email", address: "", blocked: false),
                Method(channel: "sms", address: "", blocked: false),
            ]
            return newHandle(next, sim: &sim)
        }
        if !user.methods.isEmpty {
            var next = handle(.awaitingMFA, for: username)
            next.methods = user.methods
            return newHandle(next, sim: &sim)
        }
        return finishJourneyV2(username, sim: &sim)
    }

    /// `state: continue`: resume authorization, exchange the code.
    private mutating func finishJourneyV2(_ username: String, sim: inout Sim) -> ModelOutcome {
        guard sim.request(.authorizeChallenge) else { return sim.interrupted() }
        guard sim.request(.token) else { return sim.interrupted() }
        return complete(username)
    }

    /// After a verified sign-up step: the password when the user flow asks for one and none was
    /// given, then missing attributes, then the user is created.
    private mutating func nextSignUpStepV2(_ flow: Handle, sim: inout Sim) -> ModelOutcome {
        if flow.signUpPassword == nil, plan.challengeTypes.contains(.password) {
            return newHandle(handle(.signUpPassword, for: flow.username, from: flow), sim: &sim)
        }
        if plan.cityRequired, (flow.signUpAttributes["city"] ?? "").isEmpty {
            return newHandle(handle(.signUpAttributes, for: flow.username, from: flow), sim: &sim)
        }
        guard users[flow.username.lowercased()] == nil else { return sim.error(.userAlreadyExists, usable: false) }
        users[flow.username.lowercased()] = User(password: flow.signUpPassword)
        return newHandle(handle(.signInAfterSignUp, for: flow.username), sim: &sim)
    }

    /// `PUT` on `update`, then at most five polls a call, each after the answer's `pollInterval`.
    private mutating func resetSubmitV2(on index: Int, password: String, sim: inout Sim) -> ModelOutcome {
        if password.isEmpty { return sim.error(.invalidPassword(nil), usable: true) }
        let username = handles[index].username.lowercased()
        if !handles[index].pending {
            guard sim.request(.v2PasswordUpdate) else { return sim.interrupted() }
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
        for _ in 1...Self.pollsPerCallV2 {
            guard sim.sleep(plan.resetInterval, now: &now) else { return sim.interrupted() }
            guard sim.request(.v2PasswordPollUpdate) else { return sim.interrupted() }
            if expired(index) { return sim.error(.flowExpired, usable: false) }
            if userIsGone(handles[index]) { return sim.error(.userNotFound, usable: false) }
            handles[index].issuedAt = now
            if handles[index].serverPolls < plan.resetPolls {
                handles[index].serverPolls += 1
                continue
            }
            handles[index].pending = false
            if var user = users[username], let job = handles[index].jobPassword {
                if let old = user.password { user.history.append(old) }
                user.password = job
                users[username] = user
            }
            return newHandle(handle(.signInAfterReset, for: handles[index].username), sim: &sim)
        }
        return sim.error(.passwordResetPending, usable: true)
    }

    /// Polls one V2 `submitPassword` makes before it reports the reset pending ([iOS], [Android]).
    static let pollsPerCallV2 = 5
}
