import Foundation

/// Sign-in over native authentication V2 (Docs/NativeAuthV2.md, "Using V2"): its start, each
/// state's action (a request made with ``FlowContext``'s shared V2 actions), and one table from
/// what the server wants next (``V2Interaction``) to the states and results of ``SignInFlow``.
/// The states hold these steps when their ``StepEngine`` is `.v2`.
struct SignInStepsV2: SignInSteps {
    /// The checked links of the answer that made the state.
    let context: V2StepContext

    /// How the table goes on where the server leaves a choice.
    struct Choice: Sendable {
        /// A password given up front: verified when the server asks for one, and the password
        /// method taken when it is offered.
        var password: Secret?
        /// The user chooses the first factor (``SignInParameters/selectsAuthMethod``).
        var selects = false
        /// A first factor's `challenge` was followed: another one, as in every state's action,
        /// is an unexpected answer.
        var challenged = false
    }

    static func start(_ parameters: SignInParameters, client: ClientCore) async throws(FlowError)
        -> SignInStartResult
    {
        let flow = try SignInFlow.startFlow(parameters, client: client)
        let answer = try await flow.startJourney("sign_in", link: \.signIn) { link, token in
            .startSignIn(link, username: flow.username, continuationToken: token)
        }
        let choice = Choice(password: parameters.password.map(Secret.init), selects: parameters.selectsAuthMethod)
        return try await table(answer, flow: flow, choice: choice)
    }

    /// Where what the server wants next leads a sign-in.
    static func table(_ answer: V2Interaction, flow: FlowContext, choice: Choice) async throws(FlowError)
        -> SignInStartResult
    {
        switch answer {
        case .complete(let token):
            return .completed(try await flow.finishV2(token))
        case .challenge(let offer) where offer.factor == .multiFactor:
            let (methods, links) = try offer.codeMethods(purpose: "second-factor", flow: flow)
            guard !methods.isEmpty else {
                throw browser("The server offered no second-factor method this SDK can send a code to.", flow)
            }
            let state = AwaitingMFAState(
                core: StateCore(flow: flow, token: offer.token), authMethods: methods, engine: .v2(links))
            return .awaitingMFA(state, methods: methods)
        case .challenge(let offer) where offer.factor == .singleFactor && !choice.challenged:
            return try await firstFactor(offer, flow: flow, choice: choice)
        case .challenge(let offer):
            throw unknownFactor(offer, flow: flow)
        case .verify(let verification) where verification.isPassword:
            guard let password = choice.password else {
                return .passwordRequired(
                    SignInPasswordRequiredState(
                        core: StateCore(flow: flow, token: verification.token), engine: .v2(verification.context)))
            }
            let verify = try verification.context.link("verify", flow: flow)
            var next = choice
            next.password = nil
            return try await table(
                try await flow.interact(
                    .verifyPassword(verify, continuationToken: verification.token, password: password)),
                flow: flow, choice: next)
        case .verify(let verification):
            let codeCore = verification.codeState(flow)
            return .codeRequired(
                SignInCodeRequiredState(codeCore: codeCore), sentTo: codeCore.sentTo,
                channelTargetType: codeCore.channel,
                codeLength: codeCore.codeLength)
        case .enroll(let offer):
            let (methods, links) = try offer.methods(
                types: ["email", "sms"], relations: ["enroll", "register"], key: V2StepContext.enrollRelation,
                purpose: "registration", flow: flow)
            guard !methods.isEmpty else { throw browser("The server offered no method this SDK can register.", flow) }
            let state = RegisterStrongAuthState(
                core: StateCore(flow: flow, token: offer.token), authMethods: methods, engine: .v2(links))
            return .strongAuthRegistrationRequired(state, methods: methods)
        case .activate, .collectAttributes, .update, .poll, .riskVerify:
            throw flow.unexpectedV2(answer)
        }
    }

    /// A first factor's `challenge`: the user chooses among several methods when the app asked,
    /// else the SDK takes one as MSAL for iOS does (the password when one was given and it is
    /// offered, else the first code method, else the password) and follows its `challenge` link.
    private static func firstFactor(_ offer: V2Offer, flow: FlowContext, choice: Choice) async throws(FlowError)
        -> SignInStartResult
    {
        let (methods, links) = try offer.methods(
            types: ["password", "email", "sms"], relations: ["challenge"], key: V2StepContext.challengeRelation,
            purpose: "first-factor", flow: flow)
        let password = methods.first { $0.challengeType == "password" }
        let code = methods.first { $0.challengeType != "password" }
        guard let chosen = (choice.password != nil ? password : nil) ?? code ?? password else {
            // MSAL for iOS ends such a sign-in with an error; the browser can take what the
            // server offers instead.
            throw browser("The server offered no first-factor method this SDK can take.", flow)
        }
        if choice.selects, methods.count > 1 {
            let state = AuthMethodSelectionRequiredState(
                core: StateCore(flow: flow, token: offer.token), authMethods: methods, methodLinks: links)
            return .authMethodSelectionRequired(state, methods: methods)
        }
        return try await follow(
            chosen, links: links, token: offer.token, recover: offer.recoverHref(of: chosen.id), flow: flow,
            choice: choice)
    }

    /// Follows a first factor's `challenge` link and goes on with the answer. A password `verify`
    /// keeps the `recover` link the method had where it was offered, when its own answer has none.
    @inline(never)
    private static func follow(
        _ method: AuthMethod, links: V2StepContext, token: Secret, recover: String?, flow: FlowContext, choice: Choice
    ) async throws(FlowError) -> SignInStartResult {
        let link = try links.link(of: method, V2StepContext.challengeRelation, flow: flow)
        var answer = try await flow.challenge(link, token: token, channel: method.channelTargetType)
        if case .verify(var verification) = answer, verification.isPassword, let recover,
            verification.context.links["recover"] == nil
        {
            verification.context = verification.context.adding(
                try flow.link(recover, relation: "recover"), as: "recover")
            answer = .verify(verification)
        }
        var next = choice
        next.challenged = true
        return try await table(answer, flow: flow, choice: next)
    }

    /// A `challenge` whose factor the SDK does not know, or none: which screen it means cannot be
    /// told, and MSAL's V2 clients do not guess it either. Nothing is sent for it.
    private static func unknownFactor(_ offer: V2Offer, flow: FlowContext) -> FlowError {
        let field = "challengeContext.authenticationFactor"
        switch offer.factor {
        case .unknown(let value)?:
            return flow.unexpectedV2(
                field: field, value: value, note: "The server named a factor this SDK does not know.")
        case nil:
            return flow.unexpectedV2(missing: field)
        case .singleFactor?, .multiFactor?:
            return flow.unexpectedV2(field: "action", value: "challenge")
        }
    }

    private static func browser(_ note: String, _ flow: FlowContext) -> FlowError {
        FlowError(.browserRequired, correlationId: flow.correlationId, note: note)
    }

    /// Chooses a first factor on an ``AuthMethodSelectionRequiredState``: follows the method's
    /// `challenge` link with the state's token, and goes on as a sign-in's start does.
    func select(_ method: AuthMethod, action: StateCore.Action) async throws(FlowError) -> SignInStartResult {
        try await Self.follow(
            method, links: context, token: action.token, recover: nil, flow: action.flow,
            choice: Choice(challenged: true))
    }

    func submitCode(_ code: Secret, factor: SignInFactor, action: StateCore.Action) async throws(FlowError)
        -> SignInResult
    {
        // Both factors' codes go to the state's `verify` link; the answer says what comes next.
        try await result(
            .verifyCode(try context.link("verify", flow: action.flow), continuationToken: action.token, code: code),
            action)
    }

    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore {
        try await action.flow.resendV2(context, token: action.token)
    }

    func submitPassword(_ password: Secret, action: StateCore.Action) async throws(FlowError) -> SignInResult {
        try await result(
            .verifyPassword(
                try context.link("verify", flow: action.flow), continuationToken: action.token, password: password),
            action)
    }

    /// Sends a second-factor code to `method`: follows its `challenge` link (with the
    /// `riskverify` hop) with the state's token; the code state keeps this state's links, so the
    /// user can ask for a code on another method from there.
    func requestChallenge(_ method: AuthMethod, methods: [AuthMethod], action: StateCore.Action)
        async throws(FlowError) -> MFARequiredState
    {
        let link = try context.link(of: method, V2StepContext.challengeRelation, flow: action.flow)
        let channel = methods.first { $0.id == method.id }?.channelTargetType ?? method.channelTargetType
        let answer = try await action.flow.challenge(link, token: action.token, channel: channel)
        guard case .verify(let verification) = answer, !verification.isPassword else {
            throw action.flow.unexpectedV2(answer)
        }
        return MFARequiredState(
            codeCore: verification.codeState(action.flow), method: method, authMethods: methods, methodLinks: context)
    }

    /// Registers `contact` for `method` at its `enroll` link (JIT, Docs/NativeAuthV2.md,
    /// "Registering a method (JIT)"); a contact the server knows already completes the sign-in.
    func registerChallenge(_ method: AuthMethod, contact: String, methods: [AuthMethod], action: StateCore.Action)
        async throws(FlowError) -> RegisterStrongAuthChallengeResult
    {
        let flow = action.flow
        let link = try context.link(of: method, V2StepContext.enrollRelation, flow: flow)
        let answer = try await flow.interact(.enroll(link, continuationToken: action.token, target: contact))
        switch answer {
        case .activate(let verification):
            let codeCore = verification.codeState(flow)
            let state = RegisterStrongAuthVerificationRequiredState(
                codeCore: codeCore, method: method, contact: contact, authMethods: methods, registration: context)
            return .verificationRequired(
                state, sentTo: codeCore.sentTo, channelTargetType: codeCore.channel, codeLength: codeCore.codeLength)
        case .complete(let token):
            return .completed(try await flow.finishV2(token))
        default:
            throw flow.unexpectedV2(answer)
        }
    }

    func registerSubmit(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> SignInResult {
        try await result(
            .activate(try context.link("activate", flow: action.flow), continuationToken: action.token, code: code),
            action)
    }

    func signIn(continuationToken: Secret, flow: FlowContext) async throws(FlowError) -> SignInResult {
        .completed(try await flow.finishV2(continuationToken))
    }

    /// Sends a state's `call` and reads the answer with the table: the account, a second factor
    /// to choose or a method to register; any other step is not an action's result.
    private func result(_ call: V2Call, _ action: StateCore.Action) async throws(FlowError) -> SignInResult {
        let answer = try await action.flow.interact(call)
        switch try await Self.table(answer, flow: action.flow, choice: Choice(challenged: true)) {
        case .completed(let account): return .completed(account)
        case .awaitingMFA(let state, let methods): return .awaitingMFA(state, methods: methods)
        case .strongAuthRegistrationRequired(let state, let methods):
            return .strongAuthRegistrationRequired(state, methods: methods)
        default: throw action.flow.unexpectedV2(field: "action", value: "verify")
        }
    }
}
