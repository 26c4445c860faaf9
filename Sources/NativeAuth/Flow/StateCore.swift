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
        self.flow = flow.tokenUse == nil ? flow : flow.with(tokenUse: nil)
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
    /// over ``begin()`` and ``end(failure:as:)``, which are compiled once; a failure's server
    /// error is named as `E` names it before the state is settled, since its kind decides whether
    /// the state stays usable.
    func run<T, E: DetailedError>(_ errorType: E.Type, _ body: (Action) async throws(FlowError) -> T) async throws(E)
        -> T
    {
        let action: Action
        do { action = try begin() } catch { throw E(details: error.details) }
        do {
            let value = try await body(action)
            box.withLock { $0.phase = .spent }
            return value
        } catch {
            throw E(details: end(failure: error, as: E.self))
        }
    }

    /// Claims the state for one action, or throws why it cannot act.
    @inline(never)
    func begin() throws(FlowError) -> Action {
        let (phase, token): (Phase, Secret) = box.withLock { box in
            let phase = box.phase
            if phase == .ready { box.phase = .busy }
            return (phase, box.token)
        }
        switch phase {
        case .busy: throw FlowError(details: .init(.stateBusy, correlationId: flow.correlationId))
        case .spent: throw FlowError(details: .init(.stateSpent, correlationId: flow.correlationId))
        case .ready: break
        }
        used.withLock { $0 = false }
        return Action(token: token, flow: flow.with(tokenUse: used))
    }

    /// Settles a failed action, its server error named as `errorType` names it: the state stays
    /// usable when the user can try again and the server has not moved past its token. Returns the
    /// details to throw.
    @inline(never)
    func end(failure: FlowError, as errorType: any DetailedError.Type) -> NativeAuthErrorDetails {
        var details = failure.named(as: errorType).details.continuing(flow)
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
