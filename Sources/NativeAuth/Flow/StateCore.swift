import AuthSupport
import Foundation

/// The part every state object shares: single-flight, spending, and the continuation token.
///
/// Rules (Docs/Design.md, "Rules the states keep"): while one action runs, another fails at once
/// and sends nothing; an action that succeeds spends the state; one that fails leaves it usable
/// when the user can simply try again, and spends it when the flow cannot go on.
final class StateCore: Sendable {
    enum Phase: Sendable { case ready, busy, spent }

    private struct Box: Sendable {
        var phase: Phase
        var token: Secret
    }

    /// The flow, as new states see it (no action's token use attached).
    let flow: FlowContext
    private let box: Locked<Box>
    /// Whether the server has moved past this state's token during the running action.
    private let used = Locked(false)

    init(flow: FlowContext, token: Secret) {
        var flow = flow
        flow.tokenUse = nil
        self.flow = flow
        box = Locked(Box(phase: .ready, token: token))
    }

    var phase: Phase { box.current.phase }
    /// The continuation token the next action sends.
    var currentToken: Secret { box.current.token }

    /// Replaces the continuation token while an action runs, when the server issued a new one
    /// that the next attempt must use.
    func update(token: Secret) {
        box.withLock { $0.token = token }
        used.withLock { $0 = false }
    }

    /// A flow context for the same flow with other scopes (sign-in after sign-up or reset).
    func flow(scopes: [String], claims: String? = nil) -> FlowContext { flow.with(scopes: scopes, claims: claims) }

    /// One running action: the token it sends and the flow whose calls mark that token used.
    struct Action: Sendable {
        let token: Secret
        let flow: FlowContext
    }

    /// Runs one action of the state with the current continuation token. A thin typed wrapper
    /// over ``begin()`` and ``end(failure:)``; a failure's server error is named as `E` names it
    /// before the state is settled, since its kind decides whether the state stays usable.
    func run<T, E: DetailedError>(_ errorType: E.Type, _ body: (Action) async throws(FlowError) -> T) async throws(E)
        -> T
    {
        let action: Action
        switch begin() {
        case .success(let claimed): action = claimed
        case .failure(let refusal): throw E(details: refusal.details)
        }
        do {
            let value = try await body(action)
            box.withLock { $0.phase = .spent }
            return value
        } catch {
            throw E(details: end(failure: error.named(as: E.self).details))
        }
    }

    /// Why an action could not start.
    struct Refusal: Error {
        let details: NativeAuthErrorDetails
    }

    /// Claims the state for one action, or says why it cannot act.
    func begin() -> Result<Action, Refusal> {
        let claimed: Result<Secret, Refusal> = box.withLock { box in
            switch box.phase {
            case .busy: return .failure(Refusal(details: .init(.stateBusy, correlationId: flow.correlationId)))
            case .spent: return .failure(Refusal(details: .init(.stateSpent, correlationId: flow.correlationId)))
            case .ready:
                box.phase = .busy
                return .success(box.token)
            }
        }
        return claimed.map { token in
            used.withLock { $0 = false }
            var flow = flow
            flow.tokenUse = used
            return Action(token: token, flow: flow)
        }
    }

    /// Settles a failed action: the state stays usable when the user can try again and the server
    /// has not moved past its token. Returns the details to throw.
    func end(failure: NativeAuthErrorDetails) -> NativeAuthErrorDetails {
        var details = failure.continuing(flow)
        // A failure after the server moved past this state's token spends the state, whatever
        // the failure: retrying would send a token the server no longer accepts.
        let consumed = used.current
        let usable = details.kind.leavesStateUsable && !consumed
        box.withLock { box in
            box.phase = usable ? .ready : .spent
            if let newToken = details.server?.continuationToken { box.token = newToken }
        }
        if consumed { details.stateConsumed = true }
        return details
    }
}

extension StateCore {
    /// The state to hand back with an error: the same one while it is still usable.
    func usable<State>(_ state: State) -> State? { phase != .spent ? state : nil }
}
