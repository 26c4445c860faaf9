import AuthSupport
import Foundation
import NativeAuth

/// A first-party sign-in the token endpoint finished, named by the `auth_session` of its token
/// answer (OAuth 2.0 for First-Party Applications §6.1): a later authorization challenge request
/// of the same user that carries it continues the session (§5.3.1; a step-up, Appendix A.7).
struct SignedInSession: Sendable {
    var username: String
    /// The DPoP key (thumbprint) of the sign-in's tokens, which requests with the session must prove.
    var dpopKey: String?
    var expiresAt: Date
    /// The session's last authentication, which a continued sign-in restores when it meets the
    /// request's `acr_values` and `max_age`.
    var authentication: AuthenticationEvent? = nil
}

/// What a code of the authorization challenge endpoint carries to the token endpoint.
struct FirstPartyCode: Sendable {
    /// The `auth_session` of the signed-in session the sign-in continued: the token answer's new
    /// one replaces it.
    var continues: String?
}

/// The first-party sessions that outlive a sign-in: the `auth_session` of every token answer to a
/// first-party code, the sign-ins that continue one, and refreshes answered with a challenge.
extension TenantState {
    /// The `auth_session` for the token answer to a first-party code: a new signed-in session of
    /// `username`, bound to the tokens' DPoP key, replacing the one the sign-in continued (which
    /// the tenant then refuses as `invalid_session`).
    mutating func signedInSession(
        for username: String, dpopKey: String?, authentication: AuthenticationEvent?, replacing continued: String?,
        now: Date
    ) -> String {
        if let continued { web.signedInSessions[continued] = nil }
        web.signedInSessions = web.signedInSessions.filter { now < $0.value.expiresAt }
        let session = SignedInSession(
            username: username, dpopKey: dpopKey, expiresAt: now.addingTimeInterval(settings.refreshTokenLifetime),
            authentication: authentication)
        return Self.insert(session, byteCount: 32, from: random, into: &web.signedInSessions)
    }

    /// A first request that carries the `auth_session` of a signed-in session (§5.1, §5.3.1): the
    /// tenant restores the session and asks only for a one-time code, sent to the user's first
    /// second-factor method, else to the username (email); the code earns two factors (the
    /// session's and this one). The request must open an authorization (`scope`, PKCE), prove the
    /// session's DPoP key, and name the session's user, if any.
    ///
    /// A step-up (RFC 9470 §4, the draft's §7 and Appendix A.7) sends `acr_values` or `max_age`:
    /// when the session's last authentication meets both, the session is restored with no code,
    /// and the tokens carry that authentication's `auth_time` and `acr`; otherwise a code is asked
    /// for as above. ``EmulatedTenant/ignoreNextMaxAge()`` makes the next one ignore `max_age`.
    mutating func continueSignedInSession(_ call: Call, authSession: String, proof: CheckedDPoPProof?)
        throws(ChallengeRefusal) -> HTTPResponse
    {
        guard let session = web.signedInSessions[authSession], call.now < session.expiresAt else {
            web.signedInSessions[authSession] = nil
            throw ChallengeRefusal("invalid_session", "The auth_session is unknown, expired or already used.")
        }
        if let bound = session.dpopKey, proof?.thumbprint != bound {
            throw ChallengeRefusal("invalid_dpop_proof", "The auth_session is bound to another DPoP key.")
        }
        if let username = call.form["username"], username.lowercased() != session.username.lowercased() {
            throw ChallengeRefusal("invalid_request", "The username is not the auth_session's user.")
        }
        let request = try openedRequest(call, proof: proof)
        let (acrValues, maxAge) = try requestedAuthentication(call)
        guard let user = user(named: session.username) else {
            throw ChallengeRefusal("invalid_session", "The session's user no longer exists.")
        }
        if user.requiresBrowser { return redirectToWeb(user: user, request: request, call: call) }
        let ignoresMaxAge = web.ignoresNextMaxAge
        web.ignoresNextMaxAge = false
        if !acrValues.isEmpty || maxAge != nil,
            Self.meets(
                session.authentication, acrValues: acrValues, maxAge: ignoresMaxAge ? nil : maxAge, now: call.now)
        {
            return issueCode(
                for: user, request: request, authentication: session.authentication, continues: authSession,
                call: call)
        }
        let (code, _) = sendOneTimeCode(to: user, now: call.now)
        var asked = AuthorizationChallengeSession(
            username: user.username, request: request, code: code, secondFactorFollows: false,
            expiresAt: call.now.addingTimeInterval(settings.continuationTokenLifetime),
            dpopKey: request.dpopKey ?? session.dpopKey, continues: authSession)
        asked.factors = 1
        asked.acrValues = acrValues
        return ask(asked, for: .code, call: call)
    }

    /// The answer to a refresh of `user`'s `record` that ``EmulatedTenant/challengeNextRefresh(of:)``
    /// asked for: `403` `insufficient_authorization` with an `auth_session` and `otp_required:
    /// true`, as the draft's Appendix B.4 answers; a one-time code is sent as for a step-up. The
    /// refresh token stays valid.
    mutating func refreshChallenge(for user: EmulatedUser, record: RefreshTokenRecord, now: Date) -> APIError {
        let (code, _) = sendOneTimeCode(to: user, now: now)
        web.challengeSessions = web.challengeSessions.filter { now < $0.value.expiresAt }
        var session = AuthorizationChallengeSession(
            username: user.username, request: nil, code: code, secondFactorFollows: false,
            expiresAt: now.addingTimeInterval(settings.continuationTokenLifetime), dpopKey: record.dpopKey)
        session.factors = 1
        let authSession = Self.insert(session, byteCount: 32, from: random, into: &web.challengeSessions)
        var error = APIError(
            forced: "insufficient_authorization", suberror: nil, codes: [],
            description: "Enter the one-time code that was sent to go on.", status: 403)
        error.extras = ["auth_session": .string(authSession), "otp_required": true]
        error.draftShape = true
        return error
    }

    /// Sends a one-time code to `user`'s first second-factor method, else to the username.
    private mutating func sendOneTimeCode(to user: EmulatedUser, now: Date) -> (code: String, address: String) {
        if let method = mfaMethods(of: user).first {
            return (sendCode(to: method.address, purpose: "mfa", now: now), method.address)
        }
        return (sendCode(to: user.username, purpose: "signIn", now: now), user.username)
    }
}

extension EmulatedTenant {
    /// Makes the next refresh of `username`'s refresh tokens at the token endpoint answer `403`
    /// `insufficient_authorization` with an `auth_session` and `otp_required: true` (OAuth 2.0 for
    /// First-Party Applications §6.2, Appendix B.4), once, and send a one-time code to the user's
    /// first second-factor method, else to the username. The client goes on at the authorization
    /// challenge endpoint with that `auth_session` and the code; the refresh token stays valid.
    ///
    /// Only refreshes of browser and first-party sign-ins are challenged (the native API's
    /// refreshes have no such answer). Needs ``EmulatorSettings/authorizationChallengeEndpoint``
    /// for the client to go on natively.
    public func challengeNextRefresh(of username: String) {
        state.withLock { _ = $0.web.challengedRefreshes.insert(username.lowercased()) }
    }
}
