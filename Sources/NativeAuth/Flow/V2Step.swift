import AuthSupport
import Foundation

/// Which protocol a state's next action speaks, and what it needs to speak it. V1 needs nothing
/// but the continuation token the ``StateCore`` holds; V2 needs the links the last answer gave.
enum StepEngine: Sendable {
    case v1
    case v2(V2StepContext)

    /// A journey's steps for this protocol: `v1`, or `v2` made with the state's links. Each
    /// journey's states ask for theirs through this one switch.
    func steps<Steps>(v1: @autoclosure () -> Steps, v2: (V2StepContext) -> Steps) -> Steps {
        switch self {
        case .v1: v1()
        case .v2(let context): v2(context)
        }
    }
}

/// What a V2 state follows next: the links of the answer that made it, each already checked by
/// the resolver, by relation (`verify`, `resend`, `update`, `poll`, `submitAttributes`, or a
/// method's id for a method's `challenge` link). Never shown: a state's description names none of
/// them.
struct V2StepContext: Sendable {
    /// The checked links, by relation.
    let links: [String: V2Link]
    /// The method in play (opaque).
    let methodId: String?

    init(links: [String: V2Link], methodId: String? = nil) {
        self.links = links
        self.methodId = methodId
    }

    /// The relation a method's `challenge` link is kept under, in a state that offers several
    /// methods (a second factor): `challenge:` and the method's id.
    static func challengeRelation(_ methodId: String) -> String { "challenge:\(methodId)" }

    /// The link of `relation`; a missing one is an unexpected answer, and nothing is sent.
    func link(_ relation: String, flow: FlowContext) throws(FlowError) -> V2Link {
        guard let link = links[relation] else {
            throw FlowError(
                details: NativeAuthErrorDetails(
                    .unexpectedResponse, correlationId: flow.correlationId,
                    unexpected: UnexpectedAnswer(problem: .missingField("_links.\(relation)"))))
        }
        return link
    }
}

extension FlowContext {
    /// The first V1 default scopes the V2 code exchange asks for, as V1's token requests do.
    static let v2DefaultScopes = ["openid", "profile", "offline_access"]

    /// Sends a V2 call through the client's request pipeline (deadline, interceptors, logging of
    /// field names, cancellation) and returns an outcome the flow can go on with. A failure, a
    /// refusal, a browser request or an answer the engine cannot follow is thrown, named as V1
    /// names it, for the action's error type to finish naming (``FlowError/named(as:)``). An
    /// answer that moved the journey on marks the running state's token as used.
    func v2(_ call: V2Call) async throws(FlowError) -> V2Outcome {
        let builder = client.v2Builder
        let body = builder.body(for: call)
        let endpoint = RequestEndpoint(call.name)
        let response: HTTPResponse
        do {
            response = try await client.wire.pipeline.send(
                builder.request(for: call, body: body, correlationId: correlationId), to: endpoint, readOnly: false,
                correlationId: correlationId, metadata: ["fields": body.fieldNames.joined(separator: ",")])
        } catch {
            switch error {
            case .cancelled:
                throw FlowError(.cancelled, correlationId: correlationId)
            case .timedOut, .noAnswer:
                throw FlowError(
                    details: NativeAuthErrorDetails(
                        .network, correlationId: correlationId,
                        underlyingError: error.underlyingError ?? URLError(.unknown), endpoint: endpoint))
            case .tooLarge(let response, let bodyLength):
                throw FlowError(
                    details: NativeAuthErrorDetails(
                        .unexpectedResponse, correlationId: correlationId,
                        unexpected: UnexpectedAnswer(
                            status: response.statusCode, contentType: response.header("Content-Type"),
                            problem: .tooLarge, bodyLength: bodyLength)))
            }
        }
        let outcome = V2Outcome(response, to: call.answerKind)
        client.log(
            .debug, "answer received", ["endpoint": call.name, "status": "\(response.statusCode)"],
            correlationId: correlationId)
        switch outcome {
        case .started, .interaction, .journeyComplete, .authorizationCode, .tokens:
            tokenUse?.withLock { $0 = true }
            return outcome
        case .browserRequired(let reason):
            throw FlowError(
                details: NativeAuthErrorDetails(.browserRequired, correlationId: correlationId, redirectReason: reason))
        case .refused(let error):
            throw FlowError(
                v2: NativeAuthErrorDetails(error.kind, correlationId: correlationId, server: error.asServerError))
        case .malformed(let answer):
            throw FlowError(
                details: NativeAuthErrorDetails(.unexpectedResponse, correlationId: correlationId, unexpected: answer))
        case .unsupportedAction(let action):
            throw unexpectedV2(field: "action", value: action)
        case .unknownState(let state):
            throw unexpectedV2(field: "state", value: state)
        }
    }

    /// The error for a V2 answer the engine cannot follow: `field` had `value`.
    func unexpectedV2(field: String, value: String) -> FlowError {
        FlowError(
            details: NativeAuthErrorDetails(
                .unexpectedResponse, correlationId: correlationId,
                unexpected: UnexpectedAnswer(problem: .unknownValue(field: field, value: value))))
    }

    /// The link `href` names, checked; an href the resolver refuses is an unexpected answer, and
    /// nothing is sent to it.
    func link(_ href: String?, relation: String) throws(FlowError) -> V2Link {
        guard let href else {
            throw FlowError(
                details: NativeAuthErrorDetails(
                    .unexpectedResponse, correlationId: correlationId,
                    unexpected: UnexpectedAnswer(problem: .missingField("_links.\(relation)"))))
        }
        do {
            return try client.v2Builder.resolver.resolve(href)
        } catch {
            throw unexpectedV2(field: "_links.\(relation)", value: "\(error)")
        }
    }

    /// The method whose `challenge` link ``followChallenge(_:methodId:)`` follows: the one
    /// `methodId` names, else the first email method, else the first SMS method (a reset whose
    /// only recovery method is SMS), each with a `challenge` link; `nil` when none is, and the
    /// answer's own `challenge` link is followed.
    func challengeMethod(_ envelope: V2Envelope, methodId: String? = nil) -> V2Method? {
        let linked = envelope.methods.filter { $0.links["challenge"] != nil }
        if let methodId, let chosen = linked.first(where: { $0.id == methodId }) { return chosen }
        return linked.first { $0.type?.lowercased() == "email" } ?? linked.first { $0.type?.lowercased() == "sms" }
    }

    /// Follows a `challenge` answer: the `challenge` link of ``challengeMethod(_:methodId:)``,
    /// else the answer's own, with the answer's token.
    func followChallenge(_ envelope: V2Envelope, methodId: String? = nil) async throws(FlowError) -> V2Outcome {
        let method = challengeMethod(envelope, methodId: methodId)
        let link = try self.link(method?.links["challenge"] ?? envelope.links["challenge"], relation: "challenge")
        guard let token = envelope.continuationToken else {
            throw unexpectedV2(field: "continuationToken", value: "none")
        }
        return try await v2(.challenge(link, continuationToken: token))
    }

    /// Ends a V2 journey at `state: continue`: resumes authorization with the token, exchanges the
    /// code for tokens (the V1 default scopes and the flow's own), and returns the token answer.
    func finishV2(continuationToken: Secret) async throws(FlowError) -> TokenAnswer {
        let resumed = try await v2(.resumeAuthorization(continuationToken: continuationToken))
        guard case .authorizationCode(let code) = resumed else {
            throw unexpectedV2(field: "code", value: "another answer")
        }
        let exchanged = try await v2(.exchangeCode(code: code, scopes: Self.v2DefaultScopes + scopes, claims: claims))
        guard case .tokens(let answer) = exchanged else {
            throw unexpectedV2(field: "access_token", value: "another answer")
        }
        return answer
    }
}

extension V2ServerError {
    /// The error in the shape the SDK's errors show (``NativeAuthErrorDetails/error``,
    /// `errorCodes`, …): `error.code` as `error`, `innerError.code` as `suberror`, the message as
    /// `error_description`.
    var asServerError: ServerError? {
        var members: [String: JSONValue] = [
            "error": .string(code), "error_codes": .array(errorCodes.map { .number(Double($0)) }),
        ]
        // An unknown first code stays unknown: a `null` first entry, so the second is not read as first.
        if firstCode == nil, !errorCodes.isEmpty {
            members["error_codes"] = .array([.null] + errorCodes.map { .number(Double($0)) })
        }
        if let innerCode { members["suberror"] = .string(innerCode) }
        if let message { members["error_description"] = .string(message) }
        if let traceId { members["trace_id"] = .string(traceId) }
        if let correlationId { members["correlation_id"] = .string(correlationId) }
        if let timestamp { members["timestamp"] = .string(timestamp) }
        if let continuationToken { members["continuation_token"] = .string(continuationToken.reveal) }
        if !invalidAttributeIds.isEmpty {
            members["invalid_attributes"] = .array(invalidAttributeIds.map(JSONValue.string))
        }
        return ServerError(status: status, object: WireObject(members))
    }
}
