import AuthSupport
import Foundation

/// A key a DPoP client holds for one account, with the form it is stored in. A class: it never
/// changes, and the requests of a sign-in share one reference rather than copy its parts.
final class DPoPBoundKey: Sendable {
    let key: any DPoPKey
    /// What the account record keeps (see ``DPoPKeyProvider/makeKey(algorithm:)``).
    let storedForm: Data

    init(key: any DPoPKey, storedForm: Data) {
        self.key = key
        self.storedForm = storedForm
    }
}

/// Why DPoP could not go on; the clients turn it into their error types.
/// Indirect: a value is one reference to its case's fields, so copying it, and the code that
/// copies and destroys it, stay small.
indirect enum DPoPFailure: Error, Sendable {
    /// The provider and the key provider share no algorithm.
    case noCommonAlgorithm(offered: [String], accepted: [String])
    /// The key provider could not make a key, or read one back (its own error, when it gave one).
    case keyUnavailable((any Error)?)
    /// The key did not sign.
    case signingFailed((any Error)?)
}

/// What a DPoP client needs (RFC 9449): its key provider, the servers' nonces, and the keys read
/// back from the store so far (so a key is restored once per run, not once per request).
final class DPoPContext: Sendable {
    let provider: any DPoPKeyProvider
    let nonces = DPoPNonces()
    private let restored = Locked<[Data: any DPoPKey]>([:])

    init(provider: any DPoPKeyProvider) {
        self.provider = provider
    }

    /// The algorithm for a new key: the key provider's first that the server lists in
    /// `dpop_signing_alg_values_supported`; the key provider's first when the server lists none
    /// (RFC 9449 §5.1 makes the member optional).
    func algorithm(acceptedByServer accepted: [String]?) throws(DPoPFailure) -> String {
        let offered = provider.supportedAlgorithms
        guard let accepted, !accepted.isEmpty else {
            guard let first = offered.first else { throw .noCommonAlgorithm(offered: [], accepted: []) }
            return first
        }
        guard let chosen = offered.first(where: accepted.contains) else {
            throw .noCommonAlgorithm(offered: offered, accepted: accepted)
        }
        return chosen
    }

    /// A new key for a sign-in.
    func makeKey(acceptedByServer accepted: [String]?) async throws(DPoPFailure) -> DPoPBoundKey {
        let algorithm = try algorithm(acceptedByServer: accepted)
        let made: (key: any DPoPKey, storedForm: Data)
        do {
            made = try await provider.makeKey(algorithm: algorithm)
        } catch {
            throw .keyUnavailable(error)
        }
        guard made.key.algorithm == algorithm, !made.storedForm.isEmpty,
            DPoPProof.thumbprint(of: made.key.publicJWK) != nil
        else { throw .keyUnavailable(nil) }
        restored.withLock { $0[made.storedForm] = made.key }
        return DPoPBoundKey(key: made.key, storedForm: made.storedForm)
    }

    /// The key an account keeps as `storedForm`.
    func key(for storedForm: Data) async throws(DPoPFailure) -> DPoPBoundKey {
        if let known = restored.withLock({ $0[storedForm] }) {
            return DPoPBoundKey(key: known, storedForm: storedForm)
        }
        let key: any DPoPKey
        do {
            key = try await provider.restoreKey(from: storedForm)
        } catch {
            throw .keyUnavailable(error)
        }
        restored.withLock { keys in
            if keys.count >= 16 { keys.removeAll() }
            keys[storedForm] = key
        }
        return DPoPBoundKey(key: key, storedForm: storedForm)
    }

    /// The account that held `storedForm` is gone: the key provider deletes the key.
    func forget(_ storedForm: Data) async {
        _ = restored.withLock { $0.removeValue(forKey: storedForm) }
        await provider.deleteKey(storedForm: storedForm)
    }

    /// The `DPoP` header value for a request, with the server's latest nonce.
    @inline(never)
    func proof(
        _ key: DPoPBoundKey, method: String, url: URL, accessToken: String? = nil, now: Date
    ) async throws(DPoPFailure) -> String {
        do {
            return try await DPoPProof.make(
                key: key.key, method: method, url: url, accessToken: accessToken,
                nonce: nonces.nonce(for: url, withAccessToken: accessToken != nil),
                issuedAt: now
            ).jwt
        } catch {
            switch error {
            case .invalidURL: throw .signingFailed(nil)
            case .signingFailed(let cause): throw .signingFailed(cause)
            }
        }
    }
}

/// The key a request proves possession of, with its client's context and clock.
///
/// A class: handed along a request's calls as one reference rather than a copy of its fields.
final class DPoPSigner: Sendable {
    let context: DPoPContext
    let key: DPoPBoundKey
    /// Now on the server's clock, for `iat`.
    let now: @Sendable () -> Date
    /// Takes the server's time from an answer's `Date` header into ``now`` (the web provider's
    /// clock correction); `nil` where the SDK does not follow the server's clock.
    let noteServerDate: (@Sendable (Date) -> Void)?

    init(
        context: DPoPContext, key: DPoPBoundKey, now: @escaping @Sendable () -> Date,
        noteServerDate: (@Sendable (Date) -> Void)? = nil
    ) {
        self.context = context
        self.key = key
        self.now = now
        self.noteServerDate = noteServerDate
    }
}

extension DPoPSigner {
    /// The largest correction of an account's clock that a refused proof's `Date` makes (the web
    /// provider's own correction has the same bound); a `Date` further off is not believed.
    static let maximumClockCorrection: TimeInterval = 120

    /// Sends `request` with a proof; when the answer is a nonce challenge (RFC 9449 §8, §9) that
    /// brings a new nonce, once more with a proof that carries it. Every answer's nonce is kept
    /// for the next request to that server.
    ///
    /// A server checks `iat` against its own clock, often within seconds (RFC 9449 §11.1), and
    /// the first proof of a run goes out before any answer told the SDK that clock. When the
    /// answer refuses the proof and its `Date` is a second or more from the proof's `iat`, the
    /// server's time is noted (``noteServerDate``) and the request goes once more with a proof
    /// on that time: a device whose clock is off still signs in, refreshes and calls its APIs.
    ///
    /// - Parameters:
    ///   - accessToken: for a resource request, the token it carries (`ath`).
    ///   - refused: the caller's error for a proof that could not be made.
    ///   - isNonceChallenge: whether an answer asks for a nonce.
    ///   - isProofRefusal: whether an answer refuses the proof (`invalid_dpop_proof`).
    ///   - send: sends one request.
    func send<E: Error>(
        _ request: HTTPRequest, accessToken: String? = nil, refused: (DPoPFailure) -> E,
        isNonceChallenge: (HTTPResponse) -> Bool, isProofRefusal: (HTTPResponse) -> Bool = { _ in false },
        through send: (HTTPRequest) async throws(E) -> HTTPResponse
    ) async throws(E) -> HTTPResponse {
        var nonceAnswered = false
        var clockCorrected = false
        while true {
            var proved = request
            proved.headers = request.headers.filter { !$0.key.equalsIgnoringASCIICase("DPoP") }
            let issuedAt = now()
            do {
                proved.headers["DPoP"] = try await context.proof(
                    key, method: request.method, url: request.url, accessToken: accessToken, now: issuedAt)
            } catch {
                throw refused(error)
            }
            let answer = try await send(proved)
            let fresh = context.nonces.remember(answer, from: request.url, withAccessToken: accessToken != nil)
            if !nonceAnswered, fresh != nil, isNonceChallenge(answer) {
                nonceAnswered = true
            } else if !clockCorrected, isProofRefusal(answer), correctsClock(answer, issuedAt: issuedAt) {
                clockCorrected = true
            } else {
                return answer
            }
        }
    }

    /// Whether `answer`'s `Date` is a second or more from `issuedAt` (the `iat` sent) and, once
    /// noted, gives the next proof another `iat`.
    private func correctsClock(_ answer: HTTPResponse, issuedAt: Date) -> Bool {
        guard let noteServerDate, let date = answer.header("Date").flatMap(HTTPDate.parse) else { return false }
        let sent = issuedAt.timeIntervalSince1970.rounded(.down)
        guard abs(date.timeIntervalSince1970 - sent) >= 1 else { return false }
        noteServerDate(date)
        return now().timeIntervalSince1970.rounded(.down) != sent
    }

    /// A token endpoint's refusal of the proof: `"error": "invalid_dpop_proof"` (RFC 9449 §5),
    /// whatever the status (400 in RFC 6749 §5.2; some servers answer 401 or 403).
    static func isTokenEndpointProofRefusal(_ response: HTTPResponse) -> Bool {
        guard (400...499).contains(response.statusCode), response.body.count <= 64 * 1024 else { return false }
        return (try? JSONValue.parse(response.body))?["error"]?.stringValue == "invalid_dpop_proof"
    }

    /// A token endpoint's nonce challenge: `400` with `"error": "use_dpop_nonce"` (RFC 9449 §8).
    static func isTokenEndpointNonceChallenge(_ response: HTTPResponse) -> Bool {
        guard response.statusCode == 400, response.body.count <= 64 * 1024 else { return false }
        return (try? JSONValue.parse(response.body))?["error"]?.stringValue == "use_dpop_nonce"
    }

    /// A resource server's refusal of the proof: `401` with a `DPoP` (or `Bearer`) challenge
    /// whose `error` is `invalid_dpop_proof` (RFC 9449 §7.1), or with that `error` in a JSON body
    /// (glewlwyd). The challenge is read by its grammar (``AuthenticationChallenges``), so the
    /// words in a description or a realm say nothing.
    static func isResourceProofRefusal(_ response: HTTPResponse) -> Bool {
        guard response.statusCode == 401 else { return false }
        if AuthenticationChallenges.hasTokenError("invalid_dpop_proof", in: response.header("WWW-Authenticate")) {
            return true
        }
        guard response.body.count <= 64 * 1024 else { return false }
        return (try? JSONValue.parse(response.body))?["error"]?.stringValue == "invalid_dpop_proof"
    }

    /// A resource server's nonce challenge: `401` with a `DPoP` (or `Bearer`) challenge whose
    /// `error` is `use_dpop_nonce` (RFC 9449 §9), read by the challenge grammar.
    static func isResourceNonceChallenge(_ response: HTTPResponse) -> Bool {
        response.statusCode == 401
            && AuthenticationChallenges.hasTokenError("use_dpop_nonce", in: response.header("WWW-Authenticate"))
    }
}

extension DPoPBoundKey: CustomReflectable {
    /// The key's algorithm, never its stored form (which may hold the private key).
    var customMirror: Mirror { Mirror(self, children: ["algorithm": key.algorithm]) }
}
