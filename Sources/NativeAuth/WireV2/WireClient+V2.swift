import Foundation

extension WireClient {
    /// Sends a V2 call through the same edge as V1's (``send(_:to:readOnly:fields:correlationId:)``)
    /// and returns an answer the flow can go on with. What is not one is thrown as V1's are: an
    /// error answer as ``WireFailure/server(_:)``, a browser request as
    /// ``WireFailure/redirect(reason:)``, and an answer V2 does not give, or one with an action or
    /// state this version does not know, as ``WireFailure/unexpected(_:)``.
    func send(_ call: V2Call, builder: V2RequestBuilder, correlationId: UUID) async throws(WireFailure) -> V2Outcome {
        let body = builder.body(for: call)
        let response = try await send(
            builder.request(for: call, body: body, correlationId: correlationId), to: RequestEndpoint(call.name),
            readOnly: false, fields: body.fieldNames, correlationId: correlationId)
        let outcome = V2Outcome(response, to: call.answerKind)
        log(
            .debug, "answer received", ["endpoint": call.name, "status": "\(response.statusCode)"],
            correlationId: correlationId)
        switch outcome {
        case .started, .interaction, .journeyComplete, .authorizationCode, .tokens:
            return outcome
        case .browserRequired(let reason):
            throw .redirect(reason: reason)
        case .refused(let error):
            throw .server(error)
        case .malformed(let answer):
            throw .unexpected(answer)
        case .unsupportedAction(let action):
            throw .unexpected(UnexpectedAnswer(problem: .unknownValue(field: "action", value: action)))
        case .unknownState(let state):
            throw .unexpected(UnexpectedAnswer(problem: .unknownValue(field: "state", value: state)))
        }
    }
}
