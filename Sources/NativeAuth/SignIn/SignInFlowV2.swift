import Foundation

/// The sign-in engine of native authentication V2 (Docs/NativeAuthV2.md): starts authorization,
/// follows the `sign_in` link and then whatever each answer asks, and hands back the same states
/// and results as ``SignInFlow``. The states call it from their actions when their
/// ``StepEngine`` is `.v2`.
enum SignInFlowV2 {
    static func start(_ parameters: SignInParameters, client: ClientCore) async throws(FlowError)
        -> SignInStartResult
    {
        typealias Failure = SignInStartError
        let username = parameters.username.trimmingCharacters(in: .whitespacesAndNewlines)
        var flow = client.flow(username: username, scopes: parameters.scopes, correlationId: parameters.correlationId)
        flow.claims = try FlowContext.validClaims(parameters.claims, correlationId: flow.correlationId)
        guard !username.isEmpty else {
            throw flow.fail(.invalidUsername, note: "The username is empty; nothing was sent.")
        }
        if let password = parameters.password, password.isEmpty {
            throw flow.fail(.invalidCredentials, note: "The password is empty; nothing was sent.")
        }
        let started = try await flow.v2(.startAuthorization)
        guard case .started(let answer) = started else {
            throw flow.unexpectedV2(field: "sign_in", value: "another answer")
        }
        let signIn = try flow.link(answer.signIn, relation: "sign_in")
        let outcome = try await flow.v2(
            .startSignIn(signIn, username: username, continuationToken: answer.continuationToken))
        let choice = FirstFactorChoice(passwordGiven: parameters.password != nil, selects: parameters.selectsAuthMethod)
        var next = try await step(outcome, flow: flow, choice: choice)
        if case .passwordRequired(let token, let context) = next, let password = parameters.password {
            let verified = try await flow.v2(
                .verifyPassword(
                    try context.link("verify", flow: flow), continuationToken: token, password: Secret(password)))
            next = try await step(verified, flow: flow)
        }
        return try startResult(next, flow: flow)
    }

    /// The start result for where an answer led.
    static func startResult(_ next: Next, flow: FlowContext) throws(FlowError) -> SignInStartResult {
        switch next {
        case .codeRequired(let challenge, let context):
            let state = SignInCodeRequiredState(step: CodeStep(flow: flow, challenge: challenge, engine: .v2(context)))
            return .codeRequired(
                state, sentTo: challenge.sentTo, channelTargetType: challenge.channel,
                codeLength: challenge.codeLength)
        case .passwordRequired(let token, let context):
            return .passwordRequired(
                SignInPasswordRequiredState(core: StateCore(flow: flow, token: token), engine: .v2(context)))
        case .authMethodSelection(let token, let methods, let context):
            return .authMethodSelectionRequired(
                AuthMethodSelectionRequiredState(
                    core: StateCore(flow: flow, token: token), authMethods: methods, methodLinks: context),
                methods: methods)
        case .completed, .awaitingMFA, .registrationRequired:
            return SignInStartResult(try signInResult(next, flow: flow))
        case .activationRequired:
            // An activation answers a registration's `enroll`, never a sign-in's start.
            throw flow.unexpectedV2(field: "action", value: "activate")
        }
    }

    /// How the first factor is chosen when the server offers several.
    struct FirstFactorChoice: Sendable {
        /// The app gave a password up front: the password method is taken when offered.
        var passwordGiven = false
        /// The user chooses (``SignInParameters/selectsAuthMethod``).
        var selects = false
    }

    /// Where one answer leads.
    enum Next: Sendable {
        case codeRequired(CodeChallenge, V2StepContext)
        case passwordRequired(Secret, V2StepContext)
        case completed(UserAccountResult)
        /// A second factor: the methods to choose from, and each method's `challenge` link under
        /// the relation ``V2StepContext/challengeRelation(_:)`` names.
        case awaitingMFA(Secret, [AuthMethod], V2StepContext)
        /// Several first factors for the user to choose from, each method's `challenge` link kept
        /// as for a second factor.
        case authMethodSelection(Secret, [AuthMethod], V2StepContext)
        /// A method to register first (JIT): the methods, each method's `enroll` link under
        /// `enroll:` and its id.
        case registrationRequired(Secret, [AuthMethod], V2StepContext)
        /// The code sent to the contact being registered, and the `activate` link.
        case activationRequired(CodeChallenge, V2StepContext)
    }

    /// Follows an answer until it asks the user for something or the journey is done. A first
    /// factor's `challenge` is followed at once (an email method: the code is sent); `verify`
    /// becomes a state; `continue` resumes authorization and keeps the account.
    static func step(
        _ outcome: V2Outcome, flow: FlowContext, choice: FirstFactorChoice = FirstFactorChoice(),
        challenged alreadyChallenged: Bool = false
    ) async throws(FlowError) -> Next {
        var outcome = outcome
        // A challenge is followed once; a second one in a row is not an answer this engine follows.
        var challenged = alreadyChallenged
        // The chosen password method's `recover` link, for the password state (inline reset).
        var recover: String?
        while true {
            switch outcome {
            case .journeyComplete(let token, _):
                let answer = try await flow.finishV2(continuationToken: token)
                return .completed(await SignInFlow.signedIn(answer, flow: flow))
            case .interaction(let envelope)
            where envelope.action == .challenge && envelope.authenticationFactor == .multiFactor:
                return try secondFactor(envelope, flow: flow)
            case .interaction(let envelope) where envelope.action == .challenge && !challenged:
                challenged = true
                let methods = try firstFactors(envelope, flow: flow)
                guard !methods.offered.isEmpty else {
                    // MSAL for iOS ends such a sign-in with an error; the browser can take what
                    // the server offers instead.
                    throw FlowError(
                        .browserRequired, correlationId: flow.correlationId,
                        note: "The server offered no first-factor method this SDK can take.")
                }
                if choice.selects, methods.offered.count > 1, let token = envelope.continuationToken {
                    return .authMethodSelection(token, methods.offered, methods.links)
                }
                let chosen = choose(methods.offered, choice)
                recover =
                    envelope.methods.first { $0.id == chosen?.id && chosen?.challengeType == "password" }?
                    .links["recover"]
                outcome = try await afterChallenge(
                    try await flow.followChallenge(envelope, methodId: chosen?.id), channel: chosen?.channelTargetType,
                    flow: flow)
            case .interaction(let envelope) where envelope.action == .verify:
                return try verifyStep(envelope, flow: flow, recover: recover)
            case .interaction(let envelope) where envelope.action == .enroll:
                return try SignInFlowV2.registration(envelope, flow: flow)
            case .interaction(let envelope) where envelope.action == .activate:
                return try SignInFlowV2.activation(envelope, flow: flow)
            case .interaction(let envelope):
                throw flow.unexpectedV2(field: "action", value: envelope.action.map { "\($0)" } ?? "none")
            default:
                throw flow.unexpectedV2(field: "state", value: "another answer")
            }
        }
    }

    /// The first factors a `challenge` offers that the SDK can take (a password, an email or SMS
    /// code, each with a `challenge` link), in the server's order, with their checked links.
    private static func firstFactors(_ envelope: V2Envelope, flow: FlowContext) throws(FlowError)
        -> (offered: [AuthMethod], links: V2StepContext)
    {
        try offeredMethods(
            envelope, types: ["password", "email", "sms"], relations: ["challenge"],
            key: V2StepContext.challengeRelation, purpose: "first-factor", flow: flow)
    }

    /// The methods of `envelope` of one of `types` that carry a link of one of `relations` (else
    /// the answer's own `fallback` link), in the server's order, each link checked and kept under
    /// `key(id)`. Any other method is skipped with a log naming `purpose`, as MSAL for iOS skips
    /// unsupported methods; so is a second method with the same id.
    static func offeredMethods(
        _ envelope: V2Envelope, types: Set<String>, relations: [String], fallback: String? = nil,
        key: (String) -> String, purpose: String, flow: FlowContext
    ) throws(FlowError) -> (offered: [AuthMethod], links: V2StepContext) {
        var offered: [AuthMethod] = []
        var links: [String: V2Link] = [:]
        for method in envelope.methods {
            let type = method.type?.lowercased() ?? ""
            guard types.contains(type),
                let href = relations.lazy.compactMap({ method.links[$0] }).first ?? fallback,
                links[key(method.id)] == nil
            else {
                flow.client.log(
                    .info, "\(purpose) method skipped", ["type": method.type ?? "none"],
                    correlationId: flow.correlationId)
                continue
            }
            links[key(method.id)] = try flow.link(href, relation: relations[0])
            offered.append(
                AuthMethod(
                    id: method.id, challengeType: type == "password" ? "password" : "oob",
                    channelTargetType: ChannelType(wire: type), loginHint: method.hint ?? ""))
        }
        return (offered, V2StepContext(links: links))
    }

    /// The method the SDK takes when the user does not choose, as MSAL for iOS does: the password
    /// when one was given and it is offered, else the first code method, else the password.
    private static func choose(_ offered: [AuthMethod], _ choice: FirstFactorChoice) -> AuthMethod? {
        let password = offered.first { $0.challengeType == "password" }
        if choice.passwordGiven, let password { return password }
        return offered.first { $0.challengeType != "password" } ?? password
    }

    /// Chooses a first factor on an ``AuthMethodSelectionRequiredState``: follows the method's
    /// `challenge` link with the state's token, and goes on as a sign-in's start does.
    static func select(_ method: AuthMethod, links: V2StepContext, action: StateCore.Action)
        async throws(FlowError) -> SignInStartResult
    {
        guard let link = links.links[V2StepContext.challengeRelation(method.id)] else {
            throw action.flow.fail(.invalidArgument, note: "The server did not offer this method; nothing was sent.")
        }
        let outcome = try await afterChallenge(
            try await action.flow.v2(.challenge(link, continuationToken: action.token)),
            channel: method.channelTargetType, flow: action.flow)
        return try startResult(try await step(outcome, flow: action.flow, challenged: true), flow: action.flow)
    }

    /// A `verify` answer: a password to ask for, or a code that was sent. A password state keeps
    /// the password method's `recover` link (inline password reset): the answer's own, else
    /// `recover`, the one the method had where it was offered.
    private static func verifyStep(_ envelope: V2Envelope, flow: FlowContext, recover: String? = nil)
        throws(FlowError) -> Next
    {
        guard let token = envelope.continuationToken else {
            throw flow.unexpectedV2(field: "continuationToken", value: "none")
        }
        var links = ["verify": try flow.link(envelope.href("verify"), relation: "verify")]
        if let resend = envelope.href("resend") { links["resend"] = try flow.link(resend, relation: "resend") }
        let type = envelope.methodType?.lowercased()
        if type == "password", let href = envelope.links["recover"] ?? recover {
            links["recover"] = try flow.link(href, relation: "recover")
        }
        let context = V2StepContext(links: links, methodId: envelope.methodId)
        if type == "password" { return .passwordRequired(token, context) }
        let challenge = CodeChallenge(
            continuationToken: token, channel: ChannelType(wire: type ?? "email"), sentTo: envelope.hint ?? "",
            codeLength: envelope.codeLength, interval: nil)
        return .codeRequired(challenge, context)
    }

    /// A `challenge` for the second factor (`multiFactor`): the user's code methods, in the
    /// server's order, each with its checked `challenge` link. A method of a type the SDK cannot
    /// send a code to (neither email nor SMS), or without a link, is skipped with a log, as MSAL
    /// for iOS skips unsupported methods; with none left, the browser finishes the sign-in.
    private static func secondFactor(_ envelope: V2Envelope, flow: FlowContext) throws(FlowError) -> Next {
        guard let token = envelope.continuationToken else {
            throw flow.unexpectedV2(field: "continuationToken", value: "none")
        }
        let (methods, links) = try offeredMethods(
            envelope, types: ["email", "sms"], relations: ["challenge"], key: V2StepContext.challengeRelation,
            purpose: "second-factor", flow: flow)
        guard !methods.isEmpty else {
            throw FlowError(
                .browserRequired, correlationId: flow.correlationId,
                note: "The server offered no second-factor method this SDK can send a code to.")
        }
        return .awaitingMFA(token, methods, links)
    }

    /// The result of a state's V2 action: the account, a second factor to choose, or an answer the
    /// states cannot take.
    static func result(of outcome: V2Outcome, flow: FlowContext) async throws(FlowError) -> SignInResult {
        try signInResult(try await step(outcome, flow: flow), flow: flow)
    }

    /// The sign-in result of where an answer led: the account, a second factor to choose, or a
    /// method to register; any other step is not a result.
    private static func signInResult(_ next: Next, flow: FlowContext) throws(FlowError) -> SignInResult {
        switch next {
        case .completed(let account): return .completed(account)
        case .awaitingMFA(let token, let methods, let context):
            return .awaitingMFA(
                AwaitingMFAState(core: StateCore(flow: flow, token: token), authMethods: methods, engine: .v2(context)),
                methods: methods)
        case .registrationRequired(let token, let methods, let context):
            return .strongAuthRegistrationRequired(
                RegisterStrongAuthState(
                    core: StateCore(flow: flow, token: token), authMethods: methods, engine: .v2(context)),
                methods: methods)
        case .codeRequired, .passwordRequired, .authMethodSelection, .activationRequired:
            throw flow.unexpectedV2(field: "action", value: "verify")
        }
    }

    /// Sends a second-factor code to `method`: follows its `challenge` link with the state's
    /// token. The answer must be a code `verify`; the state it makes keeps `methodLinks`, so the
    /// user can ask for a code on another method from there.
    static func requestChallenge(
        _ method: AuthMethod, methods: [AuthMethod], methodLinks: V2StepContext, action: StateCore.Action
    ) async throws(FlowError) -> MFARequiredState {
        guard let link = methodLinks.links[V2StepContext.challengeRelation(method.id)] else {
            throw action.flow.fail(.invalidArgument, note: "The server did not offer this method; nothing was sent.")
        }
        let channel = methods.first { $0.id == method.id }?.channelTargetType ?? method.channelTargetType
        let outcome = try await afterChallenge(
            try await action.flow.v2(.challenge(link, continuationToken: action.token)), channel: channel,
            flow: action.flow)
        guard case .interaction(let envelope) = outcome, envelope.action == .verify,
            case .codeRequired(let challenge, let verify) = try verifyStep(envelope, flow: action.flow)
        else { throw action.flow.unexpectedV2(field: "action", value: "another answer") }
        return MFARequiredState(
            step: CodeStep(flow: action.flow, challenge: challenge, engine: .v2(verify)), method: method,
            authMethods: methods, methodLinks: methodLinks)
    }

    /// Submits a code at the state's `verify` link.
    static func submitCode(_ code: Secret, context: V2StepContext, action: StateCore.Action) async throws(FlowError)
        -> SignInResult
    {
        let verify = try context.link("verify", flow: action.flow)
        let outcome = try await action.flow.v2(.verifyCode(verify, continuationToken: action.token, code: code))
        return try await result(of: outcome, flow: action.flow)
    }

    /// Submits a password at the state's `verify` link.
    static func submitPassword(_ password: Secret, context: V2StepContext, action: StateCore.Action)
        async throws(FlowError) -> SignInResult
    {
        let outcome = try await action.flow.v2(
            .verifyPassword(
                try context.link("verify", flow: action.flow), continuationToken: action.token, password: password))
        return try await result(of: outcome, flow: action.flow)
    }

    /// Asks for a new code at the state's `resend` link; the answer is the next code step.
    static func resend(context: V2StepContext, action: StateCore.Action) async throws(FlowError) -> CodeStep {
        let resend = try context.link("resend", flow: action.flow)
        let outcome = try await action.flow.v2(.resend(resend, continuationToken: action.token))
        guard case .codeRequired(let challenge, let next) = try await step(outcome, flow: action.flow) else {
            throw action.flow.unexpectedV2(field: "action", value: "another answer")
        }
        return CodeStep(flow: action.flow, challenge: challenge, engine: .v2(next))
    }
}
