import Foundation

/// What each sign-in state's action sends and where the answer leads, one conformer per protocol:
/// ``SignInStepsV1`` makes V1's calls, ``SignInStepsV2`` follows the checked links of the answer
/// that made the state. A state asks its ``StepEngine`` for its steps and never which protocol it
/// speaks: the guards every action keeps (an empty code or contact sends nothing, single-flight,
/// spending) stay in the state, the wire in the steps. A step V2 adds is a method here and in both
/// conformers (V1's refusing it where V1 has no such step); no state changes.
protocol SignInSteps: Sendable {
    /// Submits a one-time code: the first factor's, or the second factor's.
    func submitCode(_ code: Secret, factor: SignInFactor, action: StateCore.Action) async throws(FlowError)
        -> SignInResult
    /// Asks for a new first-factor code; the answer is the next code step.
    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore
    /// Submits the password.
    func submitPassword(_ password: Secret, action: StateCore.Action) async throws(FlowError) -> SignInResult
    /// Sends a second-factor code to `method`.
    func requestChallenge(_ method: AuthMethod, methods: [AuthMethod], action: StateCore.Action)
        async throws(FlowError) -> MFARequiredState
    /// Registers `contact` (trimmed, not empty) for `method`.
    func registerChallenge(_ method: AuthMethod, contact: String, methods: [AuthMethod], action: StateCore.Action)
        async throws(FlowError) -> RegisterStrongAuthChallengeResult
    /// Submits the code sent to the contact being registered.
    func registerSubmit(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> SignInResult
    /// Signs in with the token another flow (sign-up, password reset) ended with.
    func signIn(continuationToken: Secret, flow: FlowContext) async throws(FlowError) -> SignInResult
}

/// Which code a sign-in state takes.
enum SignInFactor: Sendable {
    case first, second
}

extension StepEngine {
    /// The sign-in steps of this protocol: the one place a sign-in state's protocol is decided.
    var signIn: any SignInSteps { steps(v1: SignInStepsV1(), v2: SignInStepsV2.init(context:)) }
}

/// The sign-in steps of V1: each action one call to a fixed endpoint, then the token endpoint.
struct SignInStepsV1: SignInSteps {
    func submitCode(_ code: Secret, factor: SignInFactor, action: StateCore.Action) async throws(FlowError)
        -> SignInResult
    {
        let scopes = action.flow.scopes
        let call: WireCall =
            switch factor {
            case .first: .tokenWithCode(continuationToken: action.token, code: code, scopes: scopes)
            case .second: .tokenWithMFACode(continuationToken: action.token, code: code, scopes: scopes)
            }
        return try await SignInFlow.exchange(call, flow: action.flow)
    }

    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore {
        let sent = try await action.flow.requestCode(.signInChallenge(continuationToken: action.token, methodId: nil))
        return CodeStateCore(flow: action.flow, challenge: sent)
    }

    func submitPassword(_ password: Secret, action: StateCore.Action) async throws(FlowError) -> SignInResult {
        try await SignInFlow.exchange(
            .tokenWithPassword(
                continuationToken: action.token, username: action.flow.username, password: password,
                scopes: action.flow.scopes),
            flow: action.flow)
    }

    func requestChallenge(_ method: AuthMethod, methods: [AuthMethod], action: StateCore.Action)
        async throws(FlowError) -> MFARequiredState
    {
        let challenge = try await action.flow.requestCode(
            .signInChallenge(continuationToken: action.token, methodId: method.id))
        return MFARequiredState(
            codeCore: CodeStateCore(flow: action.flow, challenge: challenge), method: method, authMethods: methods)
    }

    func registerChallenge(_ method: AuthMethod, contact: String, methods: [AuthMethod], action: StateCore.Action)
        async throws(FlowError) -> RegisterStrongAuthChallengeResult
    {
        let flow = action.flow
        let call = WireCall.registerChallenge(
            continuationToken: action.token, target: contact, channel: method.channelTargetType.description)
        let outcome = try await flow.step(call)
        switch outcome {
        case .challenged(.code(let challenge)):
            let state = RegisterStrongAuthVerificationRequiredState(
                codeCore: CodeStateCore(flow: flow, challenge: challenge), method: method, contact: contact,
                authMethods: methods
            )
            return .verificationRequired(
                state, sentTo: challenge.sentTo, channelTargetType: challenge.channel, codeLength: challenge.codeLength)
        case .challenged(.preverified(let token)):
            return .completed(try await Self.register(.registerContinueWithToken(continuationToken: token), flow: flow))
        default:
            throw flow.unexpected(outcome, of: call)
        }
    }

    func registerSubmit(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> SignInResult {
        .completed(
            try await Self.register(
                .registerContinueWithCode(continuationToken: action.token, code: code), flow: action.flow))
    }

    func signIn(continuationToken: Secret, flow: FlowContext) async throws(FlowError) -> SignInResult {
        try await SignInFlow.exchange(
            .tokenWithContinuationToken(
                continuationToken: continuationToken, username: flow.username, scopes: flow.scopes),
            flow: flow)
    }

    /// Registers the method with `call` (a code, or a contact verified already), then signs in
    /// with the token the server gives; a second factor after registration is not an answer.
    private static func register(_ call: WireCall, flow: FlowContext) async throws(FlowError) -> UserAccountResult {
        let continued = try await flow.requestToken(call)
        let result = try await SignInFlow.exchange(
            .tokenWithContinuationToken(continuationToken: continued, username: flow.username, scopes: flow.scopes),
            flow: flow)
        guard case .completed(let account) = result else {
            throw FlowError(
                details: NativeAuthErrorDetails(
                    .unexpectedResponse, correlationId: flow.correlationId,
                    unexpected: UnexpectedAnswer(
                        problem: .unknownValue(field: "error", value: "second factor after registration"))))
        }
        return account
    }
}
