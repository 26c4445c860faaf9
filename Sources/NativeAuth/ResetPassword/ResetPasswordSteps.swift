import AuthSupport
import Foundation

/// What each password-reset state's action sends and where the answer leads, one conformer per
/// protocol (as ``SignInSteps`` for sign-in): the states keep their guards and never ask which
/// protocol they speak.
protocol ResetPasswordSteps: Sendable {
    /// Submits the code; the answer asks for the new password.
    func submitCode(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> ResetPasswordRequiredState
    /// Asks for a new code; the answer is the next code step.
    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore
    /// Starts a reset from a sign-in's password state (its token and flow in `action`); with
    /// `selects`, the user chooses among several recovery methods where the protocol offers them.
    func startFromSignIn(selects: Bool, action: StateCore.Action) async throws(FlowError) -> ResetPasswordStartResult
    /// Submits the new password and waits for the reset, resuming a wait `pending` holds.
    func submitPassword(
        _ password: String, action: StateCore.Action, core: StateCore, pending: ResetPasswordPending
    ) async throws(FlowError) -> SignInAfterResetPasswordState
}

/// A submitted reset still running on the server, kept by the state between calls: V1's poll
/// interval, or V2's poll link. Only the protocol's own field is ever set.
struct ResetPasswordPending: Sendable {
    let interval = Locked<Int?>(nil)
    let poll = Locked<V2Poll?>(nil)
}

extension StepEngine {
    /// The password-reset steps of this protocol: the one place a reset state's protocol is decided.
    var resetPassword: any ResetPasswordSteps {
        steps(v1: ResetPasswordStepsV1(), v2: ResetPasswordStepsV2.init(context:))
    }
}

/// The password-reset steps of V1: `resetpassword/v1.0/continue`, `challenge`, then `submit` and
/// `poll_completion` (``ResetPasswordFlow``).
struct ResetPasswordStepsV1: ResetPasswordSteps {
    func startFromSignIn(selects: Bool, action: StateCore.Action) async throws(FlowError) -> ResetPasswordStartResult {
        // V1 has no inline reset: the reset of the username, with the sign-in's correlation id.
        // V1 offers no choice of recovery method, as `ResetPasswordParameters.selectsAuthMethod`.
        try await ResetPasswordFlow.start(flow: action.flow)
    }

    func submitCode(_ code: Secret, action: StateCore.Action) async throws(FlowError) -> ResetPasswordRequiredState {
        let token = try await action.flow.requestToken(
            .resetPasswordContinue(continuationToken: action.token, code: code))
        return ResetPasswordRequiredState(core: StateCore(flow: action.flow, token: token))
    }

    func resendCode(action: StateCore.Action) async throws(FlowError) -> CodeStateCore {
        CodeStateCore(
            flow: action.flow,
            challenge: try await action.flow.requestCode(.resetPasswordChallenge(continuationToken: action.token)))
    }

    func submitPassword(
        _ password: String, action: StateCore.Action, core: StateCore, pending: ResetPasswordPending
    ) async throws(FlowError) -> SignInAfterResetPasswordState {
        try await ResetPasswordFlow.submit(password, action: action, core: core, pendingInterval: pending.interval)
    }
}
