import AuthSupport
import Foundation

extension AccountManager {
    /// The signer of the account's DPoP proofs; `nil` when its tokens are bearer tokens.
    ///
    /// - Throws: ``RetrieveAccessTokenError/isProofOfPossessionFailed`` when the key cannot be
    ///   read back (or the client has DPoP turned off for an account bound to a key). The account
    ///   is kept.
    func dpopSigner(identifier: String) async throws(RetrieveAccessTokenError) -> DPoPSigner? {
        guard record?.identifier == identifier, let storedForm = record?.dpopKey else { return nil }
        guard let dpop else {
            throw RetrieveAccessTokenError(
                .proofOfPossession, correlationId: UUID(),
                note: "The account's tokens are bound to a DPoP key, and this client has DPoP turned off.")
        }
        do {
            let key = try await dpop.key(for: storedForm)
            // The server's clock as the last token answer gave it; a refused proof's answer may
            // correct it for this signer's requests (``DPoPSigner/send``).
            let offset = Locked(serverClockOffset)
            let clock = clock
            return DPoPSigner(
                context: dpop, key: key, now: { clock.now().addingTimeInterval(offset.current) },
                noteServerDate: { date in
                    let measured = date.timeIntervalSince(clock.now())
                    guard abs(measured) <= DPoPSigner.maximumClockCorrection else { return }
                    offset.withLock { $0 = measured }
                })
        } catch {
            throw RetrieveAccessTokenError(.proofOfPossession, correlationId: UUID(), failure: error)
        }
    }
}

extension DetailedError {
    /// The error of a DPoP failure, naming what failed; never the key.
    init(_ kind: ErrorKind, correlationId: UUID, failure: DPoPFailure) {
        let note: String
        let cause: (any Error)?
        switch failure {
        case .noCommonAlgorithm:
            (note, cause) = ("The server accepts none of the DPoP key's algorithms.", nil)
        case .keyUnavailable(let error):
            (note, cause) = ("The DPoP key could not be read back.", error)
        case .signingFailed(let error):
            (note, cause) = ("The DPoP key did not sign the proof.", error)
        }
        self.init(
            details: NativeAuthErrorDetails(kind, correlationId: correlationId, underlyingError: cause, note: note))
    }
}
