import Foundation

/// Whose account a token answer is for, and the cached token it makes.
extension AccountManager {
    /// The signed-in account's record, without its cached tokens, when it is `identifier`'s: what
    /// a sign-in that continues the account needs of it.
    func record(of identifier: String) async -> AccountRecord? {
        // Not under `if record == nil` (a record is only held once loaded, and `current()`
        // returns at once then): an await under a condition has the compiler copy what follows.
        _ = try? await current()
        guard var found = record, found.identifier == identifier else { return nil }
        found.accessTokens = [:]
        return found
    }

    /// Why a refresh answer cannot belong to the account of `record` (`nil` when it can), and the
    /// claims of the answer's new ID token, decoded once.
    static func checkIdentity(_ answer: TokenAnswer, record: AccountRecord) -> (problem: String?, claims: Claims?) {
        let old = record.claims
        var claims = old
        var newClaims: Claims?
        if let idToken = answer.idToken {
            guard let payload = JWT.payload(of: idToken.reveal) else {
                return ("The new ID token cannot be read.", nil)
            }
            claims = Claims(payload)
            newClaims = claims
            // `sub`, `oid` and `tid` (``Claims/subject``, ``Claims/objectId``, ``Claims/tenantId``).
            for name in ["sub", "oid", "tid"] {
                if let before = old.string(name), !before.isEmpty, before != claims.string(name) {
                    return ("The new ID token's '\(name)' is not the signed-in account's.", nil)
                }
            }
        }
        let identifier = identifier(clientInfo: answer.clientInfo, claims: claims, username: record.username)
        guard identifier == record.identifier else { return ("The answer is for another account.", nil) }
        return (nil, newClaims)
    }

    func cachedToken(from answer: TokenAnswer, requested: [String]) -> AccountRecord.CachedAccessToken {
        let now = clock.now()
        let lifetime: TimeInterval
        if let expiresIn = answer.expiresIn {
            // Relative to our clock on receipt: immune to any skew between the clocks.
            lifetime = TimeInterval(expiresIn)
        } else if let exp = Claims(JWT.payload(of: answer.accessToken.reveal) ?? [:]).expiresAt {
            // The token's absolute expiry is on the server's clock: correct it by the measured skew.
            lifetime = min(
                exp.timeIntervalSince(now.addingTimeInterval(serverClockOffset)),
                TimeInterval(TokenAnswer.maximumLifetime))
        } else {
            lifetime = 0
        }
        let scopes = answer.scopes.isEmpty ? requested : answer.scopes
        return .init(
            token: answer.accessToken.reveal, expiresOn: now.addingTimeInterval(max(0, lifetime)), scopes: scopes,
            issuedOn: now)
    }

    static func identifier(clientInfo: String?, claims: Claims, username: String) -> String {
        if let clientInfo, let data = Base64URL.decode(clientInfo), let info = try? JSONValue.parse(data),
            let uid = info["uid"]?.stringValue, let utid = info["utid"]?.stringValue, !uid.isEmpty, !utid.isEmpty
        {
            return "\(uid).\(utid)"
        }
        func nonEmpty(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
        if let oid = nonEmpty(claims.objectId) { return nonEmpty(claims.tenantId).map { "\(oid).\($0)" } ?? oid }
        return nonEmpty(claims.subject) ?? username.lowercased()
    }

}
