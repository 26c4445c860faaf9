import Foundation

/// The person's confirmation before a refresh (``UserPresenceRequirement``), and the biometry
/// state each session keeps.
extension AccountManager {
    /// What a refresh of the sign-in `session` runs before it takes its turn: the confirmation,
    /// as the error that ends the refresh, or `nil` to go on.
    nonisolated func confirmPresence(session: String?) -> @Sendable () async -> RetrieveAccessTokenError? {
        { [presence] in
            let outcome = await presence.confirm(session: session) { confirmation, ownerConfirmed in
                await self.acceptBiometryState(confirmation, session: session, ownerConfirmed: ownerConfirmed)
            }
            switch outcome {
            case .confirmed: return nil
            case .refused(let error): return RetrieveAccessTokenError(presence: error, correlationId: UUID())
            case .cancelled: return RetrieveAccessTokenError(.cancelled, correlationId: UUID())
            }
        }
    }

    /// Checks a new confirmation's biometry state against the one the session keeps: the first
    /// one reported is kept (and stored at once), with the system version it came with. A
    /// different one later, reported with the same system version, is refused until a new sign-in
    /// starts a new session; with another version (an OS update may change the state by itself,
    /// and a state kept before versions were kept has none), it counts once the device owner has
    /// confirmed with their credential, and becomes the session's. A checker that reports no
    /// state is not checked.
    func acceptBiometryState(_ confirmation: UserPresenceConfirmation, session: String?, ownerConfirmed: Bool) async
        -> UserPresenceGate.Verdict
    {
        guard let state = confirmation.biometryState, !state.isEmpty, let current = record, current.session == session
        else { return .accepted }
        let version = confirmation.systemVersion
        if let kept = current.biometryState {
            if kept == state {
                guard current.biometrySystemVersion != version, version != nil else { return .accepted }
            } else if current.biometrySystemVersion == version {
                log(.warning, "enrolled biometry changed; refresh refused")
                return .refused(.biometryChanged)
            } else if !ownerConfirmed {
                log(.info, "biometry state changed with the system version; asking the device owner")
                return .ownerConfirmationNeeded
            } else {
                log(.info, "the device owner confirmed; the new biometry state is the session's")
            }
        }
        // One change of the record, and one unconditional await (the record is `current`'s, as no
        // await came in between).
        record?.setBiometryState(state, systemVersion: version)
        await save(record ?? current)
        return .accepted
    }
}
