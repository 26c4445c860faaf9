import Foundation

/// The sign-up engine of native authentication V2 (Docs/NativeAuthV2.md, "Sign-up"): starts
/// authorization, follows the `sign_up` link, submits what the app gave at the first
/// `collectAttributes` (the username as the `email` attribute, the password as `password`), and
/// hands back the same states and results as ``SignUpFlow``. The states call it from their actions
/// when their ``StepEngine`` is `.v2`.
enum SignUpFlowV2 {
    /// The attribute the username travels as ([JS] `FlowInteractionClientV2.ts`, [Android]).
    static let emailAttribute = "email"
    /// The attribute the password travels as (same sources).
    static let passwordAttribute = "password"

    static func start(_ parameters: SignUpParameters, client: ClientCore) async throws(FlowError)
        -> SignUpStartResult
    {
        let flow = try client.startFlow(username: parameters.username, correlationId: parameters.correlationId)
        if let password = parameters.password, password.isEmpty {
            throw flow.fail(.invalidPassword(nil), note: "The password is empty; nothing was sent.")
        }
        var attributes = try flow.members(parameters.attributes)
        if let reserved = attributes.keys.sorted().first(where: isReserved) {
            throw FlowError(
                details: NativeAuthErrorDetails(
                    .attributesInvalid, correlationId: flow.correlationId,
                    note: "'\(reserved)' is sent from the username or password; nothing was sent.",
                    invalidAttributes: [reserved]))
        }
        attributes[emailAttribute] = .string(flow.username)
        let started = try await flow.v2(.startAuthorization)
        guard case .started(let answer) = started else {
            throw flow.unexpectedV2(field: "sign_up", value: "another answer")
        }
        guard let signUp = answer.signUp else {
            throw FlowError(
                .configuration, correlationId: flow.correlationId,
                note: "The server offers no sign-up journey: the app's user flow does not sign new users up.")
        }
        let outcome = try await flow.v2(
            .startSignUp(try flow.link(signUp, relation: "sign_up"), continuationToken: answer.continuationToken))
        guard case .interaction(let envelope) = outcome, envelope.action == .collectAttributes,
            let token = envelope.continuationToken
        else { throw flow.unexpectedV2(field: "action", value: "not collectAttributes") }
        let submit = try flow.link(envelope.href("submitAttributes"), relation: "submitAttributes")
        let submitted: V2Outcome
        do {
            submitted = try await flow.v2(
                .submitAttributes(
                    submit, continuationToken: token, attributes: attributes,
                    password: parameters.password.map(Secret.init)))
        } catch  where error.details.kind == .attributesInvalid {
            // The username travels as `email`, which the app cannot pass: a refusal of it alone is
            // the username's, as V1 reports it (`isInvalidUsername`).
            let names = error.details.invalidAttributes
            if !names.isEmpty, names.allSatisfy({ $0.lowercased() == emailAttribute }) {
                throw FlowError(
                    details: NativeAuthErrorDetails(
                        .invalidUsername, correlationId: flow.correlationId, server: error.details.server))
            }
            return .attributesInvalid(names)
        }
        switch try await next(submitted, flow: flow) {
        case .codeRequired(let challenge, let context):
            let state = SignUpCodeRequiredState(step: CodeStep(flow: flow, challenge: challenge, engine: .v2(context)))
            return .codeRequired(
                state, sentTo: challenge.sentTo, channelTargetType: challenge.channel,
                codeLength: challenge.codeLength)
        case .attributesRequested(_, let descriptors, _):
            // Before the code: the app must start again with them, as V1's `attributes_required` at the start.
            throw FlowError(
                .attributesRequired, correlationId: flow.correlationId,
                note: "The server asks for attributes sign-up did not give: "
                    + descriptors.map(\.id).joined(separator: ", ") + ".")
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

    /// Where one answer leads.
    enum Next: Sendable {
        /// A code was sent (`action: verify`).
        case codeRequired(CodeChallenge, V2StepContext)
        /// `action: collectAttributes`, with its token and descriptors.
        case attributesRequested(Secret, [V2AttributeDescriptor], V2StepContext)
        /// `state: continue`: the user was created; the token resumes authorization.
        case completed(Secret)
    }

    /// Follows an answer until it asks the user for something or the journey is done. A `challenge`
    /// is followed at once (the email method's link), once.
    static func next(_ outcome: V2Outcome, flow: FlowContext) async throws(FlowError) -> Next {
        var outcome = outcome
        var challenged = false
        while true {
            switch outcome {
            case .journeyComplete(let token, _):
                return .completed(token)
            case .interaction(let envelope) where envelope.action == .challenge && !challenged:
                challenged = true
                outcome = try await flow.followChallenge(envelope)
            case .interaction(let envelope) where envelope.action == .verify:
                return try codeStep(envelope, flow: flow)
            case .interaction(let envelope) where envelope.action == .collectAttributes:
                guard let token = envelope.continuationToken else {
                    throw flow.unexpectedV2(field: "continuationToken", value: "none")
                }
                let submit = try flow.link(envelope.href("submitAttributes"), relation: "submitAttributes")
                return .attributesRequested(
                    token, envelope.attributes, V2StepContext(links: ["submitAttributes": submit]))
            case .interaction(let envelope):
                throw flow.unexpectedV2(field: "action", value: envelope.action.map { "\($0)" } ?? "none")
            default:
                throw flow.unexpectedV2(field: "state", value: "another answer")
            }
        }
    }

    /// A `verify` answer: the code that was sent, with the `verify` and `resend` links.
    private static func codeStep(_ envelope: V2Envelope, flow: FlowContext) throws(FlowError) -> Next {
        guard let token = envelope.continuationToken else {
            throw flow.unexpectedV2(field: "continuationToken", value: "none")
        }
        let type = envelope.methodType?.lowercased() ?? "email"
        guard type != passwordAttribute else { throw flow.unexpectedV2(field: "type", value: type) }
        var links = ["verify": try flow.link(envelope.href("verify"), relation: "verify")]
        if let resend = envelope.href("resend") { links["resend"] = try flow.link(resend, relation: "resend") }
        let challenge = CodeChallenge(
            continuationToken: token, channel: ChannelType(wire: type), sentTo: envelope.hint ?? "",
            codeLength: envelope.codeLength, interval: nil)
        return .codeRequired(challenge, V2StepContext(links: links, methodId: envelope.methodId))
    }

    /// The result of a step after the code: a password (a required `password` descriptor), other
    /// attributes, or the user created.
    static func result(of outcome: V2Outcome, flow: FlowContext) async throws(FlowError) -> SignUpResult {
        switch try await next(outcome, flow: flow) {
        case .completed(let token):
            return .completed(SignInAfterSignUpState(flow: flow, token: token, engine: .v2(V2StepContext(links: [:]))))
        case .attributesRequested(let token, let descriptors, let context):
            let core = StateCore(flow: flow, token: token)
            if descriptors.contains(where: { $0.id.lowercased() == passwordAttribute && $0.required }) {
                return .passwordRequired(SignUpPasswordRequiredState(core: core, engine: .v2(context)))
            }
            let required = descriptors.map {
                RequiredAttribute(
                    name: $0.id, type: $0.inputType ?? "string", isRequired: $0.required, regex: $0.validationRegex)
            }
            let state = SignUpAttributesRequiredState(core: core, requiredAttributes: required, engine: .v2(context))
            return .attributesRequired(required, state)
        case .codeRequired:
            throw flow.unexpectedV2(field: "action", value: "verify")
        }
    }

    /// Submits a code at the state's `verify` link.
    static func submitCode(_ code: Secret, context: V2StepContext, action: StateCore.Action) async throws(FlowError)
        -> SignUpResult
    {
        let verify = try context.link("verify", flow: action.flow)
        let outcome = try await action.flow.v2(.verifyCode(verify, continuationToken: action.token, code: code))
        return try await result(of: outcome, flow: action.flow)
    }

    /// Submits attributes (and a password) at the state's `submitAttributes` link.
    static func submit(
        _ attributes: [String: JSONValue], password: Secret?, context: V2StepContext, action: StateCore.Action
    ) async throws(FlowError) -> SignUpResult {
        let submit = try context.link("submitAttributes", flow: action.flow)
        let outcome = try await action.flow.v2(
            .submitAttributes(submit, continuationToken: action.token, attributes: attributes, password: password))
        return try await result(of: outcome, flow: action.flow)
    }

    /// Asks for a new code at the state's `resend` link; the answer is the next code step.
    static func resend(context: V2StepContext, action: StateCore.Action) async throws(FlowError) -> CodeStep {
        let resend = try context.link("resend", flow: action.flow)
        let outcome = try await action.flow.v2(.resend(resend, continuationToken: action.token))
        guard case .codeRequired(let challenge, let next) = try await next(outcome, flow: action.flow) else {
            throw action.flow.unexpectedV2(field: "action", value: "another answer")
        }
        return CodeStep(flow: action.flow, challenge: challenge, engine: .v2(next))
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
