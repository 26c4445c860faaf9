import Foundation

/// What each sign-up state's action sends and where the answer leads, one conformer per protocol
/// (as ``SignInSteps`` for sign-in): the states keep their guards and never ask which protocol
/// they speak.
protocol SignUpSteps: Sendable {
    /// Submits the code that verifies the new user's contact.
    func submitCode(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> SignUpResult
    /// Asks for a new code; the answer is the next code step.
    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore
    /// Submits the password.
    func submitPassword(_ password: Secret, action: StateCore.Action) async throws(FlowError) -> SignUpResult
    /// Submits attribute values.
    func submitAttributes(_ attributes: UserAttributes, action: StateCore.Action) async throws(FlowError)
        -> SignUpResult
}

extension StepEngine {
    /// The sign-up steps of this protocol: the one place a sign-up state's protocol is decided.
    var signUp: any SignUpSteps { steps(v1: SignUpStepsV1(), v2: SignUpStepsV2.init(context:)) }
}

/// The sign-up steps of V1: `signup/v1.0/continue` with the grant of each state, or a new challenge.
struct SignUpStepsV1: SignUpSteps {
    func submitCode(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> SignUpResult {
        try await SignUpFlow.proceed(
            .signUpContinueWithCode(continuationToken: action.token, code: code), flow: action.flow)
    }

    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore {
        CodeStateCore(
            flow: action.flow,
            challenge: try await action.flow.requestCode(.signUpChallenge(continuationToken: action.token)))
    }

    func submitPassword(_ password: Secret, action: StateCore.Action) async throws(FlowError) -> SignUpResult {
        try await SignUpFlow.proceed(
            .signUpContinueWithPassword(continuationToken: action.token, password: password), flow: action.flow)
    }

    func submitAttributes(_ attributes: UserAttributes, action: StateCore.Action) async throws(FlowError)
        -> SignUpResult
    {
        let json = try action.flow.encode(attributes) ?? "{}"
        return try await SignUpFlow.proceed(
            .signUpContinueWithAttributes(continuationToken: action.token, attributes: json), flow: action.flow)
    }
}
