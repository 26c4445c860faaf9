import Foundation

/// The person's confirmation before a refresh (``UserPresenceRequirement``), and the biometry
/// state each session keeps.
extension AccountManager {
    /// What a refresh of the sign-in `session` runs before it takes its turn: the confirmation,
    /// as the error that ends the refresh, or `nil` to go on.
    nonisolated func confirmPresence(session: String?) -> @Sendable () async -> RetrieveAccessTokenError? {
        { [presence] in
            let outcome = await presence.confirm(session: session) { confirmation in
                await self.acceptBiometryState(confirmation.biometryState, session: session)
            }
            switch outcome {
            case .confirmed: return nil
            case .refused(let error): return RetrieveAccessTokenError(presence: error, correlationId: UUID())
            case .cancelled: return RetrieveAccessTokenError(.cancelled, correlationId: UUID())
            }
        }
    }

    /// Checks a new confirmation's biometry state against the one the session keeps: the first
    /// one reported is kept (and stored at once); a different one later is refused until a new
    /// sign-in starts a new session. A checker that reports none is not checked.
    func acceptBiometryState(_ state: Data?, session: String?) async -> UserPresenceError? {
        guard let state, !state.isEmpty, let current = record, current.session == session else { return nil }
        if let kept = current.biometryState {
            guard kept == state else {
                log(.warning, "enrolled biometry changed; refresh refused")
                return .biometryChanged
            }
            return nil
        }
        record?.biometryState = state
        if let updated = record { await save(updated) }
        return nil
    }
}
