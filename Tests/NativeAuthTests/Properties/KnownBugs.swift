import Foundation
import NativeAuth
import NativeAuthEmulator

/// SDK bugs the property run has found. A failing sequence that one of them explains (narrowly:
/// the step, the mode and the disagreement must all match) stops there and is counted instead of
/// failing the run; each bug keeps a regression test marked as a known issue.
enum KnownBug: String, Sendable, CaseIterable {
    /// A transient failure (network, 5xx, unusable body, unknown 400, cancellation) on the second
    /// or a later request of an action, after the first request already moved the server's flow
    /// forward, is reported with `isStateStillUsable == true`, but the state still holds the
    /// continuation token the server has consumed: retrying fails with `isFlowExpired`.
    case failureAfterServerMovedLeavesStateUsable

    /// The server says `user_not_found` or `user_already_exists` on a step whose error type has no
    /// `isUserNotFound` / `isUserAlreadyExists` (resend, MFA, registration, sign-in after sign-up or
    /// reset, sign-up code, password and attribute steps): the error answers no question at all,
    /// and where its kind falls back to "general" it even claims the state is still usable.
    case userErrorNotAnswerable

    /// The known bug that explains `failure`, if any.
    static func explaining(_ failure: SequenceFailure, in scenario: PropertyScenario) -> KnownBug? {
        guard scenario.steps.indices.contains(failure.step - 1) else { return nil }
        let step = scenario.steps[failure.step - 1]
        if case .error(let category, _) = step.outcome, category == .userNotFound || category == .userAlreadyExists {
            // Only on the error types that have no question for it.
            let types =
                category == .userNotFound
                ? [
                    "ResendCodeError", "MFARequestChallengeError", "MFASubmitChallengeError",
                    "RegisterStrongAuthChallengeError", "RegisterStrongAuthSubmitChallengeError",
                    "SignInAfterSignUpError", "SignInAfterResetPasswordError",
                ]
                : ["VerifyCodeError", "PasswordRequiredError", "AttributesRequiredError"]
            let explained = failure.problems.allSatisfy { problem in
                (problem.hasPrefix("expected error \(category), got error general")
                    || problem.hasPrefix("isStateStillUsable is true, expected false")
                    || problem.hasPrefix("the delegate's newState is given for a state that is spent"))
                    && types.contains { problem.contains(" \($0): ") }
            }
            return explained ? .userErrorNotAnswerable : nil
        }
        let interruptedAt: Int
        switch step.step.mode {
        case .fault(_, let index), .cancel(let index): interruptedAt = index
        default: return nil
        }
        guard interruptedAt >= 2, case .error(let category, usable: false?) = step.outcome, category.isTransient,
            step.primary?.action.isResetSubmit(on: step) != true
        else { return nil }
        let explained = failure.problems.allSatisfy { problem in
            problem.hasPrefix("isStateStillUsable is true, expected false")
                || problem.hasPrefix("the delegate's newState is given for a state that is spent")
        }
        return explained ? .failureAfterServerMovedLeavesStateUsable : nil
    }
}

extension StateAction {
    fileprivate func isResetSubmit(on step: PlannedStep) -> Bool {
        if case .submitPassword = self,
            step.newHandle?.kind == .signInAfterReset || step.events.contains(.request(.resetSubmit))
                || step.events.contains(.request(.resetPollCompletion))
        {
            return true
        }
        return false
    }
}
