import Foundation

/// What a V2 answer asks for next, read the same way whatever the journey (Docs/NativeAuthV2Protocol.md,
/// "`state` and `action`"): the one reading of every answer that moves a journey on, with each
/// link it names checked by the resolver. A journey turns it into its states with one table
/// (`SignInStepsV2`, `SignUpStepsV2`, `ResetPasswordStepsV2`); a case its table does not take is
/// an unexpected answer there (``FlowContext/unexpectedV2(_:)``).
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum V2Interaction: Sendable {
    /// `state: continue`: the journey is done; the token resumes authorization.
    case complete(Secret)
    /// `action: verify`: a code was sent, or a password is asked for.
    case verify(V2Verification)
    /// `action: challenge`: methods to verify with, for the factor the answer names.
    case challenge(V2Offer)
    /// `action: enroll` (or `register`): methods to register, each with its `enroll` link.
    case enroll(V2Offer)
    /// `action: activate`: the code sent to the contact being registered, at `activate`.
    case activate(V2Verification)
    /// `action: collectAttributes`: the attributes to submit at `submitAttributes`.
    case collectAttributes(Secret, [V2AttributeDescriptor], V2StepContext)
    /// `action: update`: the new password, at `update`.
    case update(Secret, V2StepContext)
    /// `action: poll`: the server is still at work; follow `poll` after the interval.
    case poll(Secret, V2Poll)
    /// `action: riskverify`: the server checks an SMS method's phone before it sends the code.
    case riskVerify(Secret, V2Link)

    /// The action (or state) the answer named, for an error that says a journey does not take it.
    var name: String {
        switch self {
        case .complete: "continue"
        case .verify: "verify"
        case .challenge: "challenge"
        case .enroll: "enroll"
        case .activate: "activate"
        case .collectAttributes: "collectAttributes"
        case .update: "update"
        case .poll: "poll"
        case .riskVerify: "riskverify"
        }
    }
}

/// A `verify` (or `activate`) answer: the token, where the code went and how (or `type:
/// password`), and the checked links to answer it at.
struct V2Verification: Sendable {
    /// `type: password`: the password is asked for; otherwise a code was sent.
    let isPassword: Bool
    /// The token, where the code went (`hint`), its channel (`type`) and `codeLength`.
    let challenge: CodeChallenge
    /// `verify` (or `activate`), `resend` and `recover` when the answer has them.
    var context: V2StepContext

    var token: Secret { challenge.continuationToken }

    /// The code step of the state the app gets.
    func codeState(_ flow: FlowContext) -> CodeStateCore {
        CodeStateCore(flow: flow, challenge: challenge, engine: .v2(context))
    }
}

/// A `challenge` or `enroll` answer: the methods offered, each link still unchecked until a
/// journey takes the method (``methods(types:relations:key:purpose:flow:)``).
/// A class: it never changes once built, and its fields are shared rather than copied.
final class V2Offer: Sendable {
    let token: Secret
    /// `challengeContext.authenticationFactor`; `nil` when the answer gave none.
    let factor: V2AuthenticationFactor?
    let envelope: V2Envelope

    init(token: Secret, factor: V2AuthenticationFactor?, envelope: V2Envelope) {
        self.token = token
        self.factor = factor
        self.envelope = envelope
    }

    /// The methods of one of `types` that carry a link of one of `relations` (else the answer's
    /// own of the first relation), in the server's order, each link checked and kept under
    /// `key(id)`. Any other method is skipped with a log naming `purpose`, as MSAL for iOS skips
    /// unsupported methods; so is a second method with the same id.
    func methods(
        types: [String], relations: [String], key: (String) -> String, purpose: String, flow: FlowContext
    ) throws(FlowError) -> (offered: [AuthMethod], links: V2StepContext) {
        let fallback = Self.firstHref(envelope.links, relations)
        var offered: [AuthMethod] = []
        var links: [String: V2Link] = [:]
        for method in envelope.methods {
            let type = method.type?.lowercased() ?? ""
            let relation = key(method.id)
            guard types.contains(type), let href = Self.firstHref(method.links, relations) ?? fallback,
                links[relation] == nil
            else {
                flow.client.log(
                    .info, "\(purpose) method skipped", ["type": method.type ?? "none"],
                    correlationId: flow.correlationId)
                continue
            }
            links[relation] = try flow.link(href, relation: relations[0])
            offered.append(
                AuthMethod(
                    id: method.id, challengeType: type == "password" ? "password" : "oob",
                    channelTargetType: ChannelType(wire: type), loginHint: method.hint ?? ""))
        }
        return (offered, V2StepContext(links: links))
    }

    /// The href of the first of `relations` that `links` has.
    private static func firstHref(_ links: V2Links, _ relations: [String]) -> String? {
        for relation in relations {
            if let href = links[relation] { return href }
        }
        return nil
    }

    /// The code methods (email, SMS) offered for a `challenge`, checked, in the server's order.
    func codeMethods(purpose: String, flow: FlowContext) throws(FlowError) -> (
        offered: [AuthMethod], links: V2StepContext
    ) {
        try methods(
            types: ["email", "sms"], relations: ["challenge"], key: V2StepContext.challengeRelation, purpose: purpose,
            flow: flow)
    }

    /// The `recover` link of the password method `methodId` names, as the method had it here.
    func recoverHref(of methodId: String) -> String? {
        envelope.methods.first { $0.id == methodId && $0.type?.lowercased() == "password" }?.links["recover"]
    }
}

/// A reset's update still running on the server: the `poll` link, and the delay before the next
/// poll, in seconds.
/// A class: it never changes once read, and the answer and a waiting reset share it.
final class V2Poll: Sendable {
    /// The delay when the answer gives no `pollInterval`: [iOS]' fixed delay and [Android]'s
    /// fallback, 1.5 seconds.
    static let fallbackInterval = 1.5

    let link: V2Link
    let interval: Double

    init(link: V2Link, interval: Double) {
        self.link = link
        self.interval = interval
    }
}

extension FlowContext {
    /// Reads what an answer asks for next, checking every link the case needs before anything is
    /// sent to it; an answer no journey takes (the start's links, a code, tokens) is unexpected.
    func interaction(_ outcome: V2Outcome) throws(FlowError) -> V2Interaction {
        switch outcome {
        case .journeyComplete(let token, _):
            return .complete(token)
        case .interaction(let envelope):
            // The outcome has checked the token, the action and its link.
            guard let token = envelope.continuationToken, let action = envelope.action else { break }
            switch action {
            case .verify: return .verify(try verification(envelope, token: token, at: "verify"))
            case .activate: return .activate(try verification(envelope, token: token, at: "activate"))
            case .challenge, .enroll:
                let offer = V2Offer(token: token, factor: envelope.authenticationFactor, envelope: envelope)
                return action == .challenge ? .challenge(offer) : .enroll(offer)
            case .collectAttributes:
                let submit = try link(envelope.href("submitAttributes"), relation: "submitAttributes")
                return .collectAttributes(
                    token, envelope.attributes, V2StepContext(links: ["submitAttributes": submit]))
            case .update:
                let update = try link(envelope.href("update"), relation: "update")
                return .update(token, V2StepContext(links: ["update": update], methodId: envelope.methodId))
            case .poll:
                let interval = envelope.pollInterval.map { Double($0) / 1_000 } ?? V2Poll.fallbackInterval
                return .poll(token, V2Poll(link: try link(envelope.href("poll"), relation: "poll"), interval: interval))
            case .riskVerify:
                return .riskVerify(token, try link(envelope.href("riskverify"), relation: "riskverify"))
            case .unknown(let value):
                throw unexpectedV2(field: "action", value: value)
            }
        default:
            break
        }
        throw unexpectedV2(field: "state", value: "another answer")
    }

    /// A `verify` or `activate` answer: the link it is answered at, `resend` and `recover` when
    /// offered, the channel (`type`, email when missing), `hint` and `codeLength`.
    private func verification(_ envelope: V2Envelope, token: Secret, at relation: String) throws(FlowError)
        -> V2Verification
    {
        var links = [relation: try link(envelope.href(relation), relation: relation)]
        for optional in ["resend", "recover"] {
            if let href = envelope.href(optional) { links[optional] = try link(href, relation: optional) }
        }
        let type = envelope.methodType?.lowercased()
        let challenge = CodeChallenge(
            continuationToken: token, channel: ChannelType(wire: type ?? "email"), sentTo: envelope.hint ?? "",
            codeLength: envelope.codeLength, interval: nil)
        return V2Verification(
            isPassword: type == "password", challenge: challenge,
            context: V2StepContext(links: links, methodId: envelope.methodId))
    }

    /// The link `href` names, checked; an href the resolver refuses is an unexpected answer, and
    /// nothing is sent to it.
    func link(_ href: String?, relation: String) throws(FlowError) -> V2Link {
        guard let href else { throw unexpectedV2(missing: "_links.\(relation)") }
        do {
            return try client.v2Builder.resolver.resolve(href)
        } catch {
            throw unexpectedV2(field: "_links.\(relation)", value: "\(error)")
        }
    }

    /// The error for an answer this journey does not take here.
    func unexpectedV2(_ interaction: V2Interaction) -> FlowError {
        if case .complete = interaction { return unexpectedV2(field: "state", value: "continue") }
        return unexpectedV2(field: "action", value: interaction.name)
    }

    /// The error for a V2 answer the engine cannot follow: `field` had `value`.
    func unexpectedV2(field: String, value: String, note: String? = nil) -> FlowError {
        FlowError(
            details: NativeAuthErrorDetails(
                .unexpectedResponse, correlationId: correlationId,
                unexpected: UnexpectedAnswer(problem: .unknownValue(field: field, value: value)), note: note))
    }

    /// The error for a V2 answer without `field`.
    func unexpectedV2(missing field: String) -> FlowError {
        FlowError(
            details: NativeAuthErrorDetails(
                .unexpectedResponse, correlationId: correlationId,
                unexpected: UnexpectedAnswer(problem: .missingField(field))))
    }
}
