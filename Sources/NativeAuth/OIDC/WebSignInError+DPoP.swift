import Foundation

/// Why proof of possession (DPoP, RFC 9449) failed: ``WebSignInError/dpopProblem``.
public enum DPoPProblem: String, Sendable, Equatable, CustomStringConvertible {
    /// The provider accepts none of the key provider's algorithms
    /// (`dpop_signing_alg_values_supported`).
    case noCommonAlgorithm
    /// The key provider could not make the key, or read it back from the store.
    case keyUnavailable
    /// The key did not sign a proof.
    case signingFailed
    /// The provider answered with a `token_type` other than `DPoP`: it did not bind the tokens to
    /// the key. Nothing was stored.
    case tokensNotBound
    /// The provider refused the proof (`invalid_dpop_proof`), also after a fresh nonce.
    case proofRefused

    /// The problem's name.
    public var description: String { rawValue }

    var sentence: String {
        switch self {
        case .noCommonAlgorithm: "The provider accepts none of the DPoP key's algorithms."
        case .keyUnavailable: "The DPoP key could not be made or read back."
        case .signingFailed: "The DPoP key did not sign the proof."
        case .tokensNotBound:
            "The provider did not bind the tokens to the DPoP key (token_type is not DPoP); nothing was stored."
        case .proofRefused: "The provider refused the DPoP proof."
        }
    }
}

extension WebSignInError {
    /// Proof of possession (DPoP) failed; ``dpopProblem`` says how.
    public var isProofOfPossessionFailed: Bool { dpopProblem != nil }

    /// How proof of possession failed, when it did.
    public var dpopProblem: DPoPProblem? {
        if case .proofOfPossession(let problem) = code { return problem }
        return nil
    }

    /// The web client's error for a DPoP failure.
    init(_ failure: DPoPFailure, correlationId: UUID?) {
        switch failure {
        case .noCommonAlgorithm(let offered, let accepted):
            self.init(
                .proofOfPossession(.noCommonAlgorithm),
                note: "The key provider offers \(offered.joined(separator: ", ")); the provider accepts "
                    + accepted.prefix(10).joined(separator: ", ") + ".",
                correlationId: correlationId)
        case .keyUnavailable(let cause):
            self.init(.proofOfPossession(.keyUnavailable), correlationId: correlationId, underlyingError: cause)
        case .signingFailed(let cause):
            self.init(.proofOfPossession(.signingFailed), correlationId: correlationId, underlyingError: cause)
        }
    }
}
