import Foundation

/// The sign-in engine: turns step outcomes into states and results. States call it; it knows
/// nothing of delegates.
enum SignInFlow {
    /// Starts a sign-in over the configured protocol: the one place a sign-in's start reads it.
    static func start(_ parameters: SignInParameters, client: ClientCore) async throws(FlowError)
        -> SignInStartResult
    {
        switch client.configuration.protocolVersion {
        case .v1: try await startV1(parameters, client: client)
        case .v2: try await SignInStepsV2.start(parameters, client: client)
        }
    }

    private static func startV1(_ parameters: SignInParameters, client: ClientCore) async throws(FlowError)
        -> SignInStartResult
    {
        let flow = try startFlow(parameters, client: client)
        let username = flow.username
        let initiated = try await flow.requestToken(.signInInitiate(username: username))
        let challengeCall = WireCall.signInChallenge(continuationToken: initiated, methodId: nil)
        let challenge = try await flow.step(challengeCall)
        switch challenge {
        case .challenged(.code(let code)):
            // A password given up front is ignored when the server chose a code.
            let state = SignInCodeRequiredState(codeCore: CodeStateCore(flow: flow, challenge: code))
            return .codeRequired(
                state, sentTo: code.sentTo, channelTargetType: code.channel, codeLength: code.codeLength)
        case .challenged(.credential(.password, let token)):
            guard let password = parameters.password else {
                return .passwordRequired(SignInPasswordRequiredState(core: StateCore(flow: flow, token: token)))
            }
            let result = try await exchange(
                .tokenWithPassword(
                    continuationToken: token, username: username, password: Secret(password), scopes: flow.scopes),
                flow: flow)
            return SignInStartResult(result)
        default:
            throw flow.unexpected(challenge, of: challengeCall)
        }
    }

    /// The flow of a sign-in's start, V1's or V2's: the trimmed username, the scopes and the
    /// claims request checked; an empty username or password is refused before anything is sent.
    static func startFlow(_ parameters: SignInParameters, client: ClientCore) throws(FlowError) -> FlowContext {
        let username = parameters.username.trimmingCharacters(in: .whitespacesAndNewlines)
        let base = client.flow(username: username, scopes: parameters.scopes, correlationId: parameters.correlationId)
        let claims = try FlowContext.validClaims(parameters.claims, correlationId: base.correlationId)
        let flow = base.with(scopes: base.scopes, claims: claims)
        guard !username.isEmpty else {
            throw flow.fail(.invalidUsername, note: "The username is empty; nothing was sent.")
        }
        if let password = parameters.password, password.isEmpty {
            throw flow.fail(.invalidCredentials, note: "The password is empty; nothing was sent.")
        }
        return flow
    }

    /// Calls the token endpoint and turns the outcome into a sign-in result: an account, or the
    /// multi-factor or method-registration step the server asks for.
    static func exchange(_ call: WireCall, flow: FlowContext) async throws(FlowError) -> SignInResult {
        let call = WireCall.token(call, claims: flow.claims)
        let outcome = try await flow.step(call)
        switch outcome {
        case .tokens(let answer):
            return .completed(await flow.signedIn(answer))
        case .nextStep(let next, let token, _) where next == .mfa || next == .registration:
            return try await introspect(next, token: token, flow: flow)
        default:
            throw flow.unexpected(outcome, of: call)
        }
    }

    /// Lists the user's methods for the second factor or registration the server asked for.
    private static func introspect(
        _ next: NextStep, token: Secret, flow: FlowContext
    ) async throws(FlowError) -> SignInResult {
        let mfa = next == .mfa
        let call: WireCall =
            mfa ? .signInIntrospect(continuationToken: token) : .registerIntrospect(continuationToken: token)
        let outcome = try await flow.step(call)
        guard case .methods(let introspection) = outcome else { throw flow.unexpected(outcome, of: call) }
        let methods = introspection.methods.map(AuthMethod.init)
        let core = StateCore(flow: flow, token: introspection.continuationToken)
        return mfa
            ? .awaitingMFA(AwaitingMFAState(core: core, authMethods: methods), methods: methods)
            : .strongAuthRegistrationRequired(
                RegisterStrongAuthState(core: core, authMethods: methods), methods: methods)
    }
}
