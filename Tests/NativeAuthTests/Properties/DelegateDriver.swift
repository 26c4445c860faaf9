import Foundation
import NativeAuth
import NativeAuthTestSupport

/// Runs invocations through the delegate API: one fresh recorder per action.
@MainActor
enum PropertyDelegateDriver {
    /// Starts the action; its outcome arrives on `recorder`. `false` when the state does not
    /// offer the action (a bug of the tests: planned steps never do that).
    static func start(_ invocation: SDKInvocation, recorder: FlowDelegateRecorder) -> Bool {
        let client = invocation.client
        switch invocation.call {
        case .signIn(let parameters): client.signIn(parameters: parameters, delegate: recorder)
        case .signUp(let parameters): client.signUp(parameters: parameters, delegate: recorder)
        case .resetPassword(let parameters): client.resetPassword(parameters: parameters, delegate: recorder)
        case .state(let state, let input):
            guard let call = input.action.call(on: state.kind) else { return false }
            return state.start(call, input.flowInput(for: state), delegate: recorder)
        }
        return true
    }

    /// Runs the action and waits for its first callback.
    static func run(_ invocation: SDKInvocation, recorder: FlowDelegateRecorder) async -> FlowOutcome {
        guard start(invocation, recorder: recorder) else { return .unknown("the state does not offer the action") }
        return await recorder.first()
    }
}
