import AuthSupport
import Foundation

/// Where a web state object is (device code, first-party challenge, first-party browser): ready
/// for an action, running one, or spent. The web counterpart of the native states' `StateCore`.
enum WebStatePhase: Sendable { case ready, busy, spent }

extension Locked where Value == WebStatePhase {
    /// Claims the state for one action; a state that is running one or spent refuses at once,
    /// before anything is sent.
    func claim(correlationId: UUID) throws(WebSignInError) {
        let refusal: WebSignInError? = withLock { phase in
            switch phase {
            case .busy: return WebSignInError(.stateBusy, correlationId: correlationId)
            case .spent: return WebSignInError(.stateSpent, correlationId: correlationId)
            case .ready:
                phase = .busy
                return nil
            }
        }
        if let refusal { throw refusal }
    }
}
