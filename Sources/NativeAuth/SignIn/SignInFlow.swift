import Foundation

/// The sign-in engine: turns server answers into states and results. States call it; it knows
/// nothing of delegates.
enum SignInFlow {
    static func start(_ parameters: SignInParameters, client: ClientCore) async throws(SignInStartError)
        -> SignInStartResult
    {
        let username = parameters.username.trimmingCharacters(in: .whitespacesAndNewlines)
        var flow = client.flow(username: username, scopes: parameters.scopes, correlationId: parameters.correlationId)
        flow.claims = try FlowContext.validClaims(
            parameters.claims, correlationId: flow.correlationId, as: SignInStartError.self)
        guard !username.isEmpty else {
            throw flow.fail(.invalidUsername, note: "The username is empty; nothing was sent.")
        }
        if let password = parameters.password, password.isEmpty {
            throw flow.fail(.invalidCredentials, note: "The password is empty; nothing was sent.")
        }
        let initiated = try await flow.request(
            .signInInitiate(username: username), as: SignInStartError.self, classify: SignInStartError.classify
        ) { reply throws(WireFailure) in try ContinuationAnswer(reply.object) }
        let challenge = try await flow.request(
            .signInChallenge(continuationToken: initiated.continuationToken, methodId: nil),
            as: SignInStartError.self, classify: SignInStartError.classify
        ) { reply throws(WireFailure) in try ChallengeAnswer(reply.object) }
        switch challenge {
        case .code(let code):
            // A password given up front is ignored when the server chose a code.
            let state = SignInCodeRequiredState(flow: flow, challenge: code)
            return .codeRequired(state, sentTo: code.sentTo, channel: code.channel, codeLength: code.codeLength)
        case .password(let token):
            guard let password = parameters.password else {
                return .passwordRequired(SignInPasswordRequiredState(core: StateCore(flow: flow, token: token)))
            }
            let result = try await exchange(
                .tokenWithPassword(
                    continuationToken: token, username: username, password: Secret(password), scopes: flow.scopes),
                flow: flow, as: SignInStartError.self, classify: SignInStartError.classify)
            return SignInStartResult(result)
        case .preverified:
            throw SignInStartError(
                .unexpected(.init(problem: .unknownValue(field: "challenge_type", value: "preverified"))),
                correlationId: flow.correlationId, classify: SignInStartError.classify)
        }
    }

    /// Calls the token endpoint and turns the answer into a sign-in result: an account, or the
    /// multi-factor or method-registration step the server asks for.
    static func exchange<E: DetailedError>(
        _ call: WireCall, flow: FlowContext, as errorType: E.Type, classify: (ServerError) -> ErrorKind?
    ) async throws(E) -> SignInResult {
        let answer: TokenAnswer
        do {
            let reply = try await flow.client.wire.send(
                .token(call, claims: flow.claims), correlationId: flow.correlationId)
            answer = try reply.decode { reply throws(WireFailure) in
                try TokenAnswer(reply.object, headers: reply.response)
            }
        } catch .server(let error) where error.isSuberror("mfa_required") && error.continuationToken != nil {
            return try await awaitingMFA(token: error.continuationToken ?? Secret(""), flow: flow, as: E.self)
        } catch .server(let error) where error.isSuberror("registration_required") && error.continuationToken != nil {
            return try await registrationRequired(token: error.continuationToken ?? Secret(""), flow: flow, as: E.self)
        } catch {
            throw E(error, correlationId: flow.correlationId, classify: classify)
        }
        let record = await flow.client.accounts.signedIn(
            answer, username: flow.username, scopes: flow.scopes, correlationId: flow.correlationId)
        return .completed(UserAccountResult(record: record, manager: flow.client.accounts))
    }

    private static func awaitingMFA<E: DetailedError>(token: Secret, flow: FlowContext, as errorType: E.Type)
        async throws(E) -> SignInResult
    {
        let introspection = try await flow.request(.signInIntrospect(continuationToken: token), as: E.self) { _ in
            nil
        } decode: { reply throws(WireFailure) in
            try IntrospectAnswer(reply.object)
        }
        let methods = introspection.methods.map(AuthMethod.init)
        let state = AwaitingMFAState(
            core: StateCore(flow: flow, token: introspection.continuationToken), authMethods: methods)
        return .awaitingMFA(state, methods: methods)
    }

    private static func registrationRequired<E: DetailedError>(token: Secret, flow: FlowContext, as errorType: E.Type)
        async throws(E) -> SignInResult
    {
        let introspection = try await flow.request(.registerIntrospect(continuationToken: token), as: E.self) { _ in
            nil
        } decode: { reply throws(WireFailure) in
            try IntrospectAnswer(reply.object)
        }
        let methods = introspection.methods.map(AuthMethod.init)
        let state = RegisterStrongAuthState(
            core: StateCore(flow: flow, token: introspection.continuationToken), authMethods: methods)
        return .strongAuthRegistrationRequired(state, methods: methods)
    }
}
