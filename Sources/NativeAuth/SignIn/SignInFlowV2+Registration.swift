import Foundation

/// Just-in-time method registration over native authentication V2 (Docs/NativeAuthV2.md,
/// "Registering a method (JIT)"), behind V1's ``RegisterStrongAuthState`` and
/// ``RegisterStrongAuthVerificationRequiredState``: `action: enroll` (or `register`) offers the
/// methods, each method's `enroll` (or `register`) link takes the contact as `target`, and the
/// `activate` link takes the code sent to it as `code`.
extension SignInFlowV2 {
    /// The relation a method's `enroll` link is kept under.
    static func enrollRelation(_ methodId: String) -> String { "enroll:\(methodId)" }

    /// An `enroll` answer: the email and SMS methods offered, in the server's order, each with its
    /// checked `enroll` link (its own `enroll` or `register`, else the answer's); others are skipped
    /// with a log. With none left, the browser finishes the sign-in.
    static func registration(_ envelope: V2Envelope, flow: FlowContext) throws(FlowError) -> Next {
        guard let token = envelope.continuationToken else {
            throw flow.unexpectedV2(field: "continuationToken", value: "none")
        }
        let (methods, links) = try offeredMethods(
            envelope, types: ["email", "sms"], relations: ["enroll", "register"],
            fallback: envelope.links["enroll"] ?? envelope.links["register"], key: enrollRelation,
            purpose: "registration", flow: flow)
        guard !methods.isEmpty else {
            throw FlowError(
                .browserRequired, correlationId: flow.correlationId,
                note: "The server offered no method this SDK can register.")
        }
        return .registrationRequired(token, methods, links)
    }

    /// An `activate` answer: the code was sent to the contact.
    static func activation(_ envelope: V2Envelope, flow: FlowContext) throws(FlowError) -> Next {
        guard let token = envelope.continuationToken else {
            throw flow.unexpectedV2(field: "continuationToken", value: "none")
        }
        let activate = try flow.link(envelope.href("activate"), relation: "activate")
        let challenge = CodeChallenge(
            continuationToken: token, channel: ChannelType(wire: envelope.methodType ?? "email"),
            sentTo: envelope.hint ?? "", codeLength: envelope.codeLength, interval: nil)
        return .activationRequired(challenge, V2StepContext(links: ["activate": activate], methodId: envelope.methodId))
    }

    /// Registers `contact` for `method`: follows the method's `enroll` link with the state's
    /// token. A contact the server knows already completes the sign-in at once.
    static func enroll(
        _ method: AuthMethod, contact: String, methods: [AuthMethod], links: V2StepContext, action: StateCore.Action
    ) async throws(FlowError) -> RegisterStrongAuthChallengeResult {
        guard let link = links.links[enrollRelation(method.id)] else {
            throw action.flow.fail(.invalidArgument, note: "The server did not offer this method; nothing was sent.")
        }
        let outcome = try await action.flow.v2(.enroll(link, continuationToken: action.token, target: contact))
        switch try await step(outcome, flow: action.flow) {
        case .activationRequired(let challenge, let activate):
            let state = RegisterStrongAuthVerificationRequiredState(
                step: CodeStep(flow: action.flow, challenge: challenge, engine: .v2(activate)), method: method,
                contact: contact, authMethods: methods, registration: links)
            return .verificationRequired(
                state, sentTo: challenge.sentTo, channelTargetType: challenge.channel,
                codeLength: challenge.codeLength)
        case .completed(let account):
            return .completed(account)
        default:
            throw action.flow.unexpectedV2(field: "action", value: "another answer")
        }
    }

    /// Submits the code sent to the contact at the state's `activate` link.
    static func activate(_ code: Secret, context: V2StepContext, action: StateCore.Action)
        async throws(FlowError) -> SignInResult
    {
        let activate = try context.link("activate", flow: action.flow)
        let outcome = try await action.flow.v2(.activate(activate, continuationToken: action.token, code: code))
        return try await result(of: outcome, flow: action.flow)
    }
}
