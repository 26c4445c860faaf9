import Foundation
import NativeAuth

/// DPoP (RFC 9449) at the tenant: reading and checking the proof of a request, the tenant's nonces,
/// and the token endpoint's part (§5, §8). The protected resource's part is in
/// `TenantState+Resource.swift`.
extension TenantState {
    /// Whether the tenant demands nonces now: ``EmulatorSettings/dpopNonces`` with DPoP on.
    var demandsDPoPNonces: Bool { settings.dpop != .off && settings.dpopNonces }

    /// The nonces accepted now, the current one first, or `nil` when none is demanded.
    mutating func acceptedDPoPNonces(at now: Date) -> [String]? {
        guard demandsDPoPNonces else { return nil }
        return dpop.nonces(at: now, lifetime: settings.dpopNonceLifetime, random: random)
    }

    /// `response` with the current nonce in `DPoP-Nonce` (RFC 9449 §8.2, §9), when the tenant
    /// demands nonces and read the request's proof: the answer to a proof, taken or refused, tells
    /// the client the nonce for its next one.
    mutating func addingDPoPNonce(to response: HTTPResponse, for call: Call) -> HTTPResponse {
        defer { dpop.readProof = false }
        guard dpop.readProof, demandsDPoPNonces, let nonce = acceptedDPoPNonces(at: call.now)?.first else {
            return response
        }
        var answered = response
        answered.headers["DPoP-Nonce"] = nonce
        return answered
    }

    /// The proof of `call`, checked against the request (RFC 9449 §4.3) and taken (its `jti` is
    /// remembered, §11.1); `nil` when the request has no `DPoP` header.
    mutating func dpopProof(of call: Call, accessToken: String?) throws(DPoPRefusal) -> CheckedDPoPProof? {
        let values = call.request.headers.filter { $0.key.lowercased() == "dpop" }.map(\.value)
        guard let value = values.first else { return nil }
        dpop.readProof = true
        // Step 1: one DPoP header. The server joins repeated header lines with ", "; a JWT has no comma.
        guard values.count == 1, !value.contains(",") else {
            throw .invalid("The request has more than one DPoP header.")
        }
        let expected = DPoPExpectation(
            method: call.request.method.uppercased(), targetURI: requestTargetURI(call), now: call.now,
            window: proofWindow, nonces: acceptedDPoPNonces(at: call.now),
            accessToken: accessToken)
        let proof = try DPoPProofChecker.check(value.trimmingCharacters(in: .whitespaces), against: expected)
        guard dpop.take(proof, until: proof.issuedAt.addingTimeInterval(expected.window), now: call.now) else {
            throw .invalid("The proof's jti was used before: a proof is good for one request.")
        }
        return proof
    }

    /// ``EmulatorSettings/dpopProofLifetime`` as a window: from 0 to ten years (a negative or
    /// undefined setting is 0, an infinite one ten years).
    var proofWindow: TimeInterval { min(max(0, settings.dpopProofLifetime), 86_400 * 3650) }

    /// The URI the client sent `call` to, normalized, without query and fragment: on the server's
    /// origin when an ``EmulatorServer`` serves the tenant (the URL the client used), else the
    /// tenant's own.
    func requestTargetURI(_ call: Call) -> String {
        let url = call.request.url
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        let origin = call.publicOrigin ?? "https://\(environment.host)"
        return DPoPTargetURI.normalized(origin + path) ?? origin + path
    }

    // MARK: - The token endpoint (RFC 9449 §5)

    /// The proof of a web token request: `nil` when DPoP is off (the header is not read: a server
    /// that does not take DPoP ignores it and issues Bearer tokens, RFC 9449 §5) or when none was
    /// sent and `missing` is `nil`. A refused proof answers `invalid_dpop_proof` or
    /// `use_dpop_nonce`; a missing one, when `missing` says why one is needed, `invalid_dpop_proof`.
    mutating func tokenRequestProof(_ call: Call, missing: String?) throws(APIError) -> CheckedDPoPProof? {
        guard settings.dpop != .off else { return nil }
        let proof: CheckedDPoPProof?
        do throws(DPoPRefusal) {
            proof = try dpopProof(of: call, accessToken: nil)
        } catch {
            switch error {
            case .invalid(let reason): throw .invalidDPoPProof(reason)
            case .useNonce: throw .useDPoPNonce
            }
        }
        if proof == nil, let missing { throw .invalidDPoPProof(missing) }
        return proof
    }

    /// Why a web token request needs a proof when ``EmulatorSettings/dpop`` is ``EmulatorSettings/DPoPMode/required``.
    var requiredProofReason: String? {
        settings.dpop == .required ? "The tenant requires a DPoP proof with every token request." : nil
    }
}

// MARK: - The errors (RFC 9449 §5, §8): Entra has none, so these carry no AADSTS code.

extension APIError {
    /// RFC 9449 §5: a token request whose proof is missing where one is needed, or fails a check.
    static func invalidDPoPProof(_ reason: String) -> APIError {
        APIError(forced: "invalid_dpop_proof", suberror: nil, codes: [], description: reason, status: 400)
    }

    /// RFC 9449 §8: the proof lacks the current nonce; the answer's `DPoP-Nonce` has it.
    static let useDPoPNonce = APIError(
        forced: "use_dpop_nonce", suberror: nil, codes: [],
        description: "Authorization server requires nonce in DPoP proof.", status: 400)

    /// RFC 9449 §5: a refresh token bound to one key, presented with a proof of another (or with
    /// DPoP turned off): the grant was issued to another key's holder (RFC 6749 §5.2).
    static let refreshTokenBoundToAnotherKey = APIError(
        forced: "invalid_grant", suberror: nil, codes: [],
        description: "The refresh token is bound to another DPoP key than the proof's.", status: 400)

    /// RFC 9449 §10: a code asked for with `dpop_jkt`, redeemed with a proof of another key.
    static let codeBoundToAnotherKey = APIError(
        forced: "invalid_grant", suberror: nil, codes: [],
        description: "The authorization code is bound to another DPoP key (dpop_jkt) than the proof's.",
        status: 400)

    static let refreshTokenBoundWithDPoPOff = APIError(
        forced: "invalid_grant", suberror: nil, codes: [],
        description: "The refresh token is bound to a DPoP key, and the tenant takes no DPoP proofs now.",
        status: 400)
}
