import Foundation

/// The sign-up engine.
enum SignUpFlow {
    static func start(_ parameters: SignUpParameters, client: ClientCore) async throws(SignUpStartError)
        -> SignUpStartResult
    {
        typealias Failure = SignUpStartError
        let username = parameters.username.trimmingCharacters(in: .whitespacesAndNewlines)
        let flow = client.flow(username: username, scopes: [], correlationId: parameters.correlationId)
        guard !username.isEmpty else {
            throw flow.fail(.invalidUsername, note: "The username is empty; nothing was sent.")
        }
        if let password = parameters.password, password.isEmpty {
            throw flow.fail(.invalidPassword(nil), Failure.self, note: "The password is empty; nothing was sent.")
        }
        let attributes = try flow.encode(parameters.attributes, as: Failure.self)
        let started: ContinuationAnswer
        do {
            let reply = try await client.wire.send(
                .signUpStart(
                    username: username, password: parameters.password.map(Secret.init), attributes: attributes),
                correlationId: flow.correlationId)
            started = try reply.decode { reply throws(WireFailure) in try ContinuationAnswer(reply.object) }
        } catch .server(let error) where AttributesRequiredError.classify(error) == .attributesInvalid {
            return .attributesInvalid(error.invalidAttributes)
        } catch {
            throw Failure(error, correlationId: flow.correlationId, classify: Failure.classify)
        }
        let challenge = try await codeChallenge(token: started.continuationToken, flow: flow, as: Failure.self)
        return .codeRequired(
            SignUpCodeRequiredState(flow: flow, challenge: challenge), sentTo: challenge.sentTo,
            channel: challenge.channel, codeLength: challenge.codeLength)
    }

    /// Asks for a code (first or again); any other answer is unexpected.
    static func codeChallenge<E: DetailedError>(token: Secret, flow: FlowContext, as errorType: E.Type) async throws(E)
        -> CodeChallenge
    {
        try await flow.requestCode(.signUpChallenge(continuationToken: token), as: E.self)
    }

    /// Sends one `signup/v1.0/continue` and turns the answer into the next step.
    static func proceed<E: DetailedError>(
        _ call: WireCall, flow: FlowContext, as errorType: E.Type, classify: (ServerError) -> ErrorKind?
    ) async throws(E) -> SignUpResult {
        do {
            let reply = try await flow.client.wire.send(call, correlationId: flow.correlationId)
            // A success without a token still created the user; only sign-in after sign-up is unavailable.
            let token = reply.object.string("continuation_token").flatMap { $0.isEmpty ? nil : Secret($0) }
            return .completed(SignInAfterSignUpState(flow: flow, token: token))
        } catch .server(let error) where Self.is(error, "credential_required") && error.continuationToken != nil {
            let answer = try await flow.request(
                .signUpChallenge(continuationToken: error.continuationToken ?? Secret("")), as: E.self,
                classify: classify
            ) { reply throws(WireFailure) in try ChallengeAnswer(reply.object) }
            guard case .password(let token) = answer else {
                throw E(
                    .unexpected(.init(problem: .unknownValue(field: "challenge_type", value: "not password"))),
                    correlationId: flow.correlationId, classify: classify)
            }
            return .passwordRequired(SignUpPasswordRequiredState(core: StateCore(flow: flow, token: token)))
        } catch .server(let error) where Self.is(error, "attributes_required") && error.continuationToken != nil {
            let state = SignUpAttributesRequiredState(
                core: StateCore(flow: flow, token: error.continuationToken ?? Secret("")),
                requiredAttributes: error.requiredAttributes.map(RequiredAttribute.init))
            return .attributesRequired(state.requiredAttributes, state)
        } catch {
            throw E(error, correlationId: flow.correlationId, classify: classify)
        }
    }

    private static func `is`(_ error: ServerError, _ value: String) -> Bool {
        error.isError(value) || error.isSuberror(value)
    }

    /// The sign-up `continue` steps: what any code step may hear, plus refused attributes.
    /// (`user_already_exists` and `user_not_found` are named for every step.)
    static func common(_ error: ServerError) -> ErrorKind? {
        VerifyCodeError.classifyContinue(error) ?? AttributesRequiredError.classify(error)
    }
}

extension NativeAuthClient {
    /// Starts signing a new user up.
    ///
    /// The server sends a code to verify the email address; a password and attributes are given
    /// up front in `parameters` or asked for by later steps.
    ///
    /// - Throws: ``SignUpStartError``; an empty username or password, or an attribute that cannot
    ///   be encoded, is refused before any request.
    public func signUp(_ parameters: SignUpParameters) async throws(SignUpStartError) -> SignUpStartResult {
        do {
            return try await SignUpFlow.start(parameters, client: core)
        } catch {
            throw error.continuing(
                core.context(username: parameters.username, scopes: [], correlationId: error.correlationId))
        }
    }
}
