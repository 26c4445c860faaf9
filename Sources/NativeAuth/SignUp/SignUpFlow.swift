import Foundation

/// The sign-up engine.
enum SignUpFlow {
    /// Starts a sign-up over the configured protocol: the one place a sign-up's start reads it.
    static func start(_ parameters: SignUpParameters, client: ClientCore) async throws(FlowError)
        -> SignUpStartResult
    {
        switch client.configuration.protocolVersion {
        case .v1: try await startV1(parameters, client: client)
        case .v2: try await SignUpStepsV2.start(parameters, client: client)
        }
    }

    private static func startV1(_ parameters: SignUpParameters, client: ClientCore) async throws(FlowError)
        -> SignUpStartResult
    {
        let flow = try client.startFlow(username: parameters.username, correlationId: parameters.correlationId)
        let username = flow.username
        if let password = parameters.password, password.isEmpty {
            throw flow.fail(.invalidPassword(nil), note: "The password is empty; nothing was sent.")
        }
        let attributes = try flow.encode(parameters.attributes)
        let started: Secret
        do {
            started = try await flow.requestToken(
                .signUpStart(
                    username: username, password: parameters.password.map(Secret.init), attributes: attributes))
        } catch let error where error.details.server?.has(.attributesInvalid) == true {
            return .attributesInvalid(error.details.invalidAttributes)
        }
        let challenge = try await flow.requestCode(.signUpChallenge(continuationToken: started))
        return .codeRequired(
            SignUpCodeRequiredState(codeCore: CodeStateCore(flow: flow, challenge: challenge)),
            sentTo: challenge.sentTo,
            channelTargetType: challenge.channel, codeLength: challenge.codeLength)
    }

    /// Sends one `signup/v1.0/continue` and turns the outcome into the next step.
    static func proceed(_ call: WireCall, flow: FlowContext) async throws(FlowError) -> SignUpResult {
        let outcome = try await flow.step(call)
        switch outcome {
        case .continued(let token):
            // A success without a token still created the user; only sign-in after sign-up is unavailable.
            return .completed(SignInAfterSignUpState(flow: flow, token: token))
        case .nextStep(.credential, let token, _):
            let challenge = WireCall.signUpChallenge(continuationToken: token)
            let answer = try await flow.step(challenge)
            guard case .challenged(.credential(.password, let token)) = answer else {
                throw flow.unexpected(answer, of: challenge)
            }
            return .passwordRequired(SignUpPasswordRequiredState(core: StateCore(flow: flow, token: token)))
        case .nextStep(.attributes, let token, let error):
            let state = SignUpAttributesRequiredState(
                core: StateCore(flow: flow, token: token),
                requiredAttributes: error.requiredAttributes.map(RequiredAttribute.init))
            return .attributesRequired(state.requiredAttributes, state)
        default:
            throw flow.unexpected(outcome, of: call)
        }
    }
}

extension FlowContext {
    /// The attributes as a form value, or the step's error naming the one that cannot be encoded.
    func encode(_ attributes: UserAttributes) throws(FlowError) -> String? {
        guard !attributes.isEmpty else { return nil }
        switch attributes.encoded() {
        case .success(let json): return json
        case .failure(let problem):
            throw FlowError(
                details: NativeAuthErrorDetails(
                    .attributesInvalid, correlationId: correlationId, note: problem.note,
                    invalidAttributes: [problem.name]))
        }
    }
}
