import Foundation

/// What the tenant remembers for DPoP (RFC 9449): the nonces it hands out and the proofs it took
/// lately. Short-lived; not part of a snapshot, forgotten by a reset.
struct DPoPState: Sendable {
    /// A nonce and the period of ``EmulatorSettings/dpopNonceLifetime`` it was handed out in.
    struct Nonce: Sendable, Equatable {
        var period: Int64
        var value: String
    }

    /// The nonce handed out now.
    var current: Nonce?
    /// The one handed out in the period before, still accepted.
    var previous: Nonce?
    /// The proofs taken, by normalized `htu` and `jti`, with the time until which each could still
    /// be taken (its `iat` plus the window): RFC 9449 §11.1 has the server remember them in the
    /// context of the target URI for as long as they would be accepted.
    var taken: [String: Date] = [:]

    /// Whether the request being answered had its proof read: only then does the answer carry a
    /// `DPoP-Nonce` (the native API's grants never read one).
    var readProof = false

    /// Above this many remembered proofs, the expired ones are forgotten before another is added.
    static let pruneThreshold = 1024

    /// The nonces accepted at `now`, the current one first, after moving to the period `now` is in:
    /// the nonce changes at every multiple of `lifetime` seconds of the tenant's clock, and the one
    /// before stays accepted for the next period. A clock that jumps further, or back, leaves only
    /// the new nonce.
    mutating func nonces(at now: Date, lifetime: TimeInterval, random: any EmulatorRandomSource) -> [String] {
        let seconds = max(1, lifetime.isFinite ? lifetime : 1)
        let periods = (now.timeIntervalSince1970 / seconds).rounded(.down)
        let period = Int64(exactly: periods) ?? 0
        if current?.period != period {
            previous = current?.period == period &- 1 ? current : nil
            // 1*NQCHAR (§8.1): base64url text qualifies.
            current = Nonce(period: period, value: Encoding.randomToken(byteCount: 24, from: random))
        }
        return [current?.value, previous?.value].compactMap { $0 }
    }

    /// Remembers `proof` until `until`; `false` when a proof with the same `htu` and `jti` was taken
    /// and could still be accepted: a replay.
    mutating func take(_ proof: CheckedDPoPProof, until: Date, now: Date) -> Bool {
        let key = proof.targetURI + " " + proof.jti
        if let expiry = taken[key], now <= expiry { return false }
        if taken.count >= Self.pruneThreshold { taken = taken.filter { now <= $0.value } }
        taken[key] = until
        return true
    }
}
