import Foundation

/// Sign-up over native authentication V2 (Docs/NativeAuthV2.md, "Sign-up over V2"): its start,
/// which answers the first `collectAttributes` with what the app gave (the username as the `email`
/// attribute, the password as `password`), each state's action, and one table from what the server
/// wants next (``V2Interaction``) to the states and results of ``SignUpFlow``. The states hold
/// these steps when their ``StepEngine`` is `.v2`.
struct SignUpStepsV2: SignUpSteps {
    /// The attribute the username travels as ([JS] `FlowInteractionClientV2.ts`, [Android]).
    static let emailAttribute = "email"
    /// The attribute the password travels as (same sources).
    static let passwordAttribute = "password"

    /// The checked links of the answer that made the state, and the attributes sent so far.
    let context: V2StepContext

    static func start(_ parameters: SignUpParameters, client: ClientCore) async throws(FlowError)
        -> SignUpStartResult
    {
        let flow = try client.startFlow(username: parameters.username, correlationId: parameters.correlationId)
        if let password = parameters.password, password.isEmpty {
            throw flow.fail(.invalidPassword(nil), note: "The password is empty; nothing was sent.")
        }
        var attributes = try flow.members(parameters.attributes)
        if let reserved = attributes.sortedKeys.first(where: isReserved) {
            throw FlowError(
                details: NativeAuthErrorDetails(
                    .attributesInvalid, correlationId: flow.correlationId,
                    note: "'\(reserved)' is sent from the username or password; nothing was sent.",
                    invalidAttributes: [reserved]))
        }
        attributes[emailAttribute] = .string(flow.username)
        let noSignUp = FlowError(
            .configuration, correlationId: flow.correlationId,
            note: "The server offers no sign-up journey: the app's user flow does not sign new users up.")
        let first = try await flow.startJourney("sign_up", link: \.signUp, missing: noSignUp) { link, token in
            .startSignUp(link, continuationToken: token)
        }
        guard case .collectAttributes(let token, _, let context) = first else { throw flow.unexpectedV2(first) }
        let password = parameters.password.map(Secret.init)
        let submitted = sent(attributes, password: password, after: [])
        let answer: V2Interaction
        do {
            answer = try await flow.interact(
                .submitAttributes(
                    try context.link("submitAttributes", flow: flow), continuationToken: token, attributes: attributes,
                    password: password))
        } catch  where error.details.kind == .attributesInvalid {
            return .attributesInvalid(error.details.invalidAttributes)
        }
        return try started(try await table(answer, flow: flow, submitted: submitted), flow: flow)
    }

    /// Where the first answer leads a sign-up's start. Its own function, so that the async start
    /// does not carry it after its suspension points.
    private static func started(_ result: SignUpResult, flow: FlowContext) throws(FlowError) -> SignUpStartResult {
        switch result {
        case .codeRequired(let state, let sentTo, let channel, let codeLength):
            return .codeRequired(state, sentTo: sentTo, channelTargetType: channel, codeLength: codeLength)
        case .passwordRequired(let state):
            // Asked for before the code: the app gave none up front.
            return .passwordRequired(state)
        case .attributesRequired(let required, _):
            // Before the code: the app must start again with them, as V1's `attributes_required` at the start.
            throw FlowError(
                .attributesRequired, correlationId: flow.correlationId,
                note: "The server asks for attributes sign-up did not give: "
                    + required.map(\.name).joined(separator: ", ") + ".")
        case .completed:
            throw FlowError(
                .unexpectedResponse, correlationId: flow.correlationId,
                note: "The server finished sign-up without verifying the email address; sign the user in.")
        }
    }

    /// `email` and `password`, in any case: the username and the password travel as them.
    static func isReserved(_ name: String) -> Bool {
        [emailAttribute, passwordAttribute].contains(name.lowercased())
    }

    /// Where what the server wants next leads a sign-up. `submitted` holds the attributes sent so
    /// far: asked for again, one ends the flow, as MSAL ends it ("attribute already submitted").
    static func table(
        _ answer: V2Interaction, flow: FlowContext, submitted: Set<String>, challenged: Bool = false
    ) async throws(FlowError) -> SignUpResult {
        switch answer {
        case .complete(let token):
            return .completed(SignInAfterSignUpState(flow: flow, token: token, engine: .v2(V2StepContext(links: [:]))))
        case .challenge(let offer) where !challenged:
            // The contact's code method: its `challenge` is followed at once, once.
            guard let (method, link) = try flow.defaultCodeMethod(offer, purpose: "verification") else {
                throw flow.unexpectedV2(answer)
            }
            return try await table(
                try await flow.challenge(link, token: offer.token, channel: method.channelTargetType), flow: flow,
                submitted: submitted, challenged: true)
        case .verify(let verification) where !verification.isPassword:
            var verification = verification
            verification.context = verification.context.submitting(submitted)
            let codeCore = verification.codeState(flow)
            return .codeRequired(
                SignUpCodeRequiredState(codeCore: codeCore), sentTo: codeCore.sentTo,
                channelTargetType: codeCore.channel,
                codeLength: codeCore.codeLength)
        case .collectAttributes(let token, let descriptors, let context):
            if let again = descriptors.first(where: { submitted.contains($0.id.lowercased()) }) {
                throw flow.unexpectedV2(
                    field: "attributes", value: again.id,
                    note: "The server asked again for '\(again.id)', which was submitted already; the sign-up ends.")
            }
            let context = context.submitting(submitted)
            let core = StateCore(flow: flow, token: token)
            if descriptors.contains(where: { $0.id.lowercased() == passwordAttribute && $0.required }) {
                return .passwordRequired(SignUpPasswordRequiredState(core: core, engine: .v2(context)))
            }
            let required = descriptors.map {
                RequiredAttribute(
                    name: $0.id, type: $0.inputType ?? "string", isRequired: $0.required, regex: $0.validationRegex)
            }
            return .attributesRequired(
                required, SignUpAttributesRequiredState(core: core, requiredAttributes: required, engine: .v2(context)))
        default:
            throw flow.unexpectedV2(answer)
        }
    }

    func submitCode(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> SignUpResult {
        let verify = try context.link("verify", flow: action.flow)
        return try await Self.table(
            try await action.flow.interact(.verifyCode(verify, continuationToken: action.token, code: code)),
            flow: action.flow, submitted: context.submitted)
    }

    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore {
        try await action.flow.resendV2(context, token: action.token)
    }

    func submitPassword(_ password: Secret, action: StateCore.Action) async throws(FlowError) -> SignUpResult {
        try await submit([:], password: password, action: action)
    }

    func submitAttributes(_ attributes: UserAttributes, action: StateCore.Action) async throws(FlowError)
        -> SignUpResult
    {
        try await submit(try action.flow.members(attributes), password: nil, action: action)
    }

    /// Submits attributes (and a password, as the `password` attribute) at `submitAttributes`.
    private func submit(_ attributes: [String: JSONValue], password: Secret?, action: StateCore.Action)
        async throws(FlowError) -> SignUpResult
    {
        let submit = try context.link("submitAttributes", flow: action.flow)
        return try await Self.table(
            try await action.flow.interact(
                .submitAttributes(submit, continuationToken: action.token, attributes: attributes, password: password)),
            flow: action.flow, submitted: Self.sent(attributes, password: password, after: context.submitted))
    }

    /// The attributes sent so far once `attributes` (and `password`, as `password`) are sent after
    /// `submitted`, lowercased.
    private static func sent(_ attributes: [String: JSONValue], password: Secret?, after submitted: Set<String>)
        -> Set<String>
    {
        var sent = submitted
        for name in attributes.keys { sent.insert(name.lowercased()) }
        if password != nil { sent.insert(passwordAttribute) }
        return sent
    }
}

extension FlowContext {
    /// The attributes as JSON members, or the step's error naming the one that cannot be encoded.
    func members(_ attributes: UserAttributes) throws(FlowError) -> [String: JSONValue] {
        switch attributes.jsonMembers() {
        case .success(let members): return members
        case .failure(let problem):
            throw FlowError(
                details: NativeAuthErrorDetails(
                    .attributesInvalid, correlationId: correlationId, note: problem.note,
                    invalidAttributes: [problem.name]))
        }
    }
}
