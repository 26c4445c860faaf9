import Foundation
import NativeAuth

/// A first-party sign-in under way at the authorization challenge endpoint, kept under its
/// `auth_session` (OAuth 2.0 for First-Party Applications §5.3.1).
struct AuthorizationChallengeSession: Sendable {
    var username: String
    /// What the code will be bound to: the PKCE challenge and scopes of the first request, no
    /// redirect URI, and the DPoP key of its proof. `nil` for a session the token endpoint began
    /// (a refresh answered `insufficient_authorization`, §6.2): the client's first request to the
    /// challenge endpoint opens it.
    var request: AcceptedAuthorizationRequest?
    /// The one-time code sent, and whether another code (the second factor) follows it.
    var code: String
    var secondFactorFollows: Bool
    /// Whether the session waits for the user's password rather than a code: the username came
    /// alone to a tenant with ``EmulatorSettings/authorizationChallengeIdentifierFirst`` on.
    var awaitsPassword = false
    var failedAttempts = 0
    var expiresAt: Date
    /// The DPoP key (thumbprint) the session is bound to (§9.6.1): its requests must prove it.
    var dpopKey: String? = nil
    /// The `auth_session` of the signed-in session this sign-in continues, which its code
    /// replaces at the token endpoint.
    var continues: String? = nil
    /// The factors verified so far (a session the sign-in continues counts as one), and the
    /// `acr_values` asked for: they make the `acr` of the code's tokens.
    var factors = 0
    var acrValues: [String] = []
}

/// A refusal of the authorization challenge endpoint: the draft's error answer (§5.2.2).
struct ChallengeRefusal: Error {
    var status = 400
    var error: String
    var description: String

    init(_ error: String, _ description: String, status: Int = 400) {
        self.error = error
        self.description = description
        self.status = status
    }

    /// A refusal that the tenant's shared checks (scopes, DPoP proofs) threw.
    init(_ error: APIError) {
        self.init(error.error, error.message, status: error.status)
    }
}

/// The authorization challenge endpoint of OAuth 2.0 for First-Party Applications
/// (draft-ietf-oauth-first-party-apps, "the draft"), served when
/// ``EmulatorSettings/authorizationChallengeEndpoint`` is on. Entra has none.
///
/// The tenant's profile (the draft's Appendix B leaves it to each server): the first request sends
/// `username` and, for a password user, `password`; a one-time code (the second factor of a user
/// with MFA methods, or the email code of a passwordless user) is asked for with
/// `insufficient_authorization`, `auth_session` and `otp_required: true`, and sent back as `otp`.
/// With ``EmulatorSettings/authorizationChallengeIdentifierFirst`` on, a password user's username
/// may come alone: the password is asked for the same way, with `password_required: true`, and
/// sent back as `password`. Every `insufficient_authorization` and `redirect_to_web` is a `403`
/// (the draft's -04 §5.2.2.1). Docs/Emulator.md lists every answer.
extension TenantState {
    /// The most wrong codes one `auth_session` takes; the session ends at the last.
    static let challengeAttempts = 5

    /// `POST oauth2/v2.0/first-party/authorize-challenge`: 404 while the setting is off.
    mutating func authorizationChallenge(_ incoming: Call) -> HTTPResponse {
        guard settings.authorizationChallengeEndpoint else {
            return notFound(
                incoming.request, now: incoming.now, correlationId: incoming.correlationId,
                publicOrigin: incoming.publicOrigin)
        }
        var call = incoming
        let response: HTTPResponse
        do throws(ChallengeRefusal) {
            do throws(APIError) {
                try readForm(&call)
            } catch {
                throw ChallengeRefusal("invalid_request", error.message)
            }
            response = try answerChallenge(call)
        } catch {
            response = challengeAnswer(
                status: error.status,
                ["error": .string(error.error), "error_description": .string(error.description)], call: call)
        }
        return addingDPoPNonce(to: response, for: call)
    }

    private mutating func answerChallenge(_ call: Call) throws(ChallengeRefusal) -> HTTPResponse {
        if let repeated = Self.repeatedName(in: call.form) {
            throw ChallengeRefusal("invalid_request", "The parameter '\(repeated)' appears more than once.")
        }
        let clientId = call.form["client_id"]
        if let clientId, clientId != environment.clientId {
            throw ChallengeRefusal("invalid_client", "The client '\(clientId)' is unknown.", status: 401)
        }
        do throws(APIError) {
            try authenticateClient(call.form, endpoint: .authorizationChallenge, call: call)
        } catch {
            throw ChallengeRefusal(error)
        }
        if let responseType = call.form["response_type"], responseType != "code" {
            throw ChallengeRefusal("unsupported_response_type", "Only response_type=code is supported.")
        }
        let proof: CheckedDPoPProof?
        do throws(APIError) {
            proof = try tokenRequestProof(call, missing: requiredProofReason)
        } catch {
            throw ChallengeRefusal(error)
        }
        if let authSession = call.form["auth_session"], !authSession.isEmpty {
            if web.signedInSessions[authSession] != nil {
                return try continueSignedInSession(call, authSession: authSession, proof: proof)
            }
            return try continueChallenge(call, authSession: authSession, proof: proof)
        }
        guard clientId != nil else { throw ChallengeRefusal("invalid_request", "The request has no client_id.") }
        guard call.form["response_type"] != nil else {
            throw ChallengeRefusal("invalid_request", "The request has no response_type.")
        }
        return try startChallenge(call, proof: proof)
    }

    /// The first request: the user, the PKCE challenge, the scopes, and the password.
    private mutating func startChallenge(_ call: Call, proof: CheckedDPoPProof?) throws(ChallengeRefusal)
        -> HTTPResponse
    {
        let request = try openedRequest(call, proof: proof)
        // A new sign-in authenticates the user now, which meets any `max_age`.
        let acrValues = try requestedAuthentication(call).acrValues
        guard let username = call.form["username"], !username.isEmpty else {
            throw ChallengeRefusal("invalid_request", "The request has no username.")
        }
        // One answer for an unknown user and a wrong password, so the endpoint tells nobody who
        // has an account (the draft's §9.3).
        let refused = ChallengeRefusal("invalid_grant", "The username or password is incorrect.")
        guard let user = user(named: username) else { throw refused }
        let methods = mfaMethods(of: user)
        if user.requiresBrowser || user.requiresMethodRegistration || (settings.mfaRequiredForAll && methods.isEmpty) {
            return redirectToWeb(user: user, request: request, call: call)
        }
        let password = call.form["password"]
        if let expected = user.password {
            guard let password else {
                guard settings.authorizationChallengeIdentifierFirst else {
                    throw ChallengeRefusal("invalid_request", "The user signs in with a password: send one.")
                }
                var session = AuthorizationChallengeSession(
                    username: user.username, request: request, code: "", secondFactorFollows: false,
                    expiresAt: call.now.addingTimeInterval(settings.continuationTokenLifetime), dpopKey: request.dpopKey
                )
                session.awaitsPassword = true
                session.acrValues = acrValues
                return ask(session, for: .password, call: call)
            }
            guard password == expected else { throw refused }
            return passwordAccepted(user: user, request: request, acrValues: acrValues, call: call)
        }
        guard password == nil else { throw refused }
        let code = sendCode(to: user.username, purpose: "signIn", now: call.now)
        var session = AuthorizationChallengeSession(
            username: user.username, request: request, code: code, secondFactorFollows: !methods.isEmpty,
            expiresAt: call.now.addingTimeInterval(settings.continuationTokenLifetime), dpopKey: request.dpopKey)
        session.acrValues = acrValues
        return ask(session, for: .code, call: call)
    }

    /// After the right password: a second factor for a user with MFA methods, or when
    /// `acr_values` prefers two factors (a code to the username for a user without methods);
    /// else the code.
    private mutating func passwordAccepted(
        user: EmulatedUser, request: AcceptedAuthorizationRequest, acrValues: [String], call: Call
    ) -> HTTPResponse {
        let address = mfaMethods(of: user).first?.address ?? (Self.wantsSecondFactor(acrValues) ? user.username : nil)
        guard let address else {
            return issueCode(
                for: user, request: request,
                authentication: AuthenticationEvent(time: call.now, acr: Self.acr(factors: 1, requested: acrValues)),
                call: call)
        }
        var session = AuthorizationChallengeSession(
            username: user.username, request: request, code: sendCode(to: address, purpose: "mfa", now: call.now),
            secondFactorFollows: false,
            expiresAt: call.now.addingTimeInterval(settings.continuationTokenLifetime), dpopKey: request.dpopKey)
        session.factors = 1
        session.acrValues = acrValues
        return ask(session, for: .code, call: call)
    }

    /// What the code of an opening request will be bound to: its scopes and S256 PKCE challenge
    /// (required), no redirect URI, and the key of its DPoP proof.
    func openedRequest(_ call: Call, proof: CheckedDPoPProof?) throws(ChallengeRefusal)
        -> AcceptedAuthorizationRequest
    {
        let scopes: [String]
        do throws(APIError) {
            scopes = try self.scopes(in: call)
        } catch {
            throw ChallengeRefusal(error)
        }
        guard let challenge = call.form["code_challenge"], !challenge.isEmpty else {
            throw ChallengeRefusal("invalid_request", "The tenant requires PKCE: send a code_challenge.")
        }
        guard call.form["code_challenge_method"] == "S256", Self.isS256Challenge(challenge) else {
            throw ChallengeRefusal("invalid_request", "The code_challenge must be an S256 one.")
        }
        return AcceptedAuthorizationRequest(
            redirectURI: "", responseMode: .query, state: nil, nonce: nil, codeChallenge: challenge, scopes: scopes,
            dpopKey: proof?.thumbprint, redirectURIInRequest: false)
    }

    /// A later request: the `auth_session` and the one-time code it is waiting for.
    private mutating func continueChallenge(_ call: Call, authSession: String, proof: CheckedDPoPProof?)
        throws(ChallengeRefusal) -> HTTPResponse
    {
        guard var session = web.challengeSessions[authSession], call.now < session.expiresAt else {
            web.challengeSessions[authSession] = nil
            throw ChallengeRefusal("invalid_session", "The auth_session is unknown, expired or already used.")
        }
        // The draft's §9.6.1: a session begun with a DPoP proof goes on with a proof of that key only.
        if let bound = session.dpopKey, proof?.thumbprint != bound {
            throw ChallengeRefusal("invalid_dpop_proof", "The auth_session is bound to another DPoP key.")
        }
        // A session the token endpoint began is opened by the client's first request here.
        let request: AcceptedAuthorizationRequest
        if let opened = session.request { request = opened } else { request = try openedRequest(call, proof: proof) }
        let (name, what) = session.awaitsPassword ? ("password", "password") : ("otp", "code")
        guard let answer = call.form[name], !answer.isEmpty else {
            throw ChallengeRefusal("invalid_request", "The request has no \(name).")
        }
        let expected = session.awaitsPassword ? user(named: session.username)?.password : session.code
        guard answer == expected else {
            session.failedAttempts += 1
            let ended = session.failedAttempts >= Self.challengeAttempts
            web.challengeSessions[authSession] = ended ? nil : session
            throw ChallengeRefusal(
                "invalid_grant",
                ended ? "The \(what) is incorrect; the session has ended." : "The \(what) is incorrect.")
        }
        web.challengeSessions[authSession] = nil
        guard let user = user(named: session.username) else {
            throw ChallengeRefusal("invalid_session", "The session's user no longer exists.")
        }
        if session.awaitsPassword {
            return passwordAccepted(user: user, request: request, acrValues: session.acrValues, call: call)
        }
        session.factors += 1
        if session.secondFactorFollows, let method = mfaMethods(of: user).first {
            session.code = sendCode(to: method.address, purpose: "mfa", now: call.now)
            session.secondFactorFollows = false
            session.failedAttempts = 0
            session.request = request
            return ask(session, for: .code, call: call)
        }
        let authentication = AuthenticationEvent(
            time: call.now, acr: Self.acr(factors: session.factors, requested: session.acrValues))
        return issueCode(
            for: user, request: request, authentication: authentication, continues: session.continues, call: call)
    }

    /// What an `insufficient_authorization` asks the user for.
    enum Asked {
        /// A one-time code: `otp_required` (the draft's Appendix B.2), answered with `otp`.
        case code
        /// The password: `password_required`, the tenant's own member named as B.2 names
        /// `otp_required`, answered with `password`.
        case password
    }

    /// `403` `insufficient_authorization` (the draft's -04 §5.2.2.1 and Appendix B.3) with a fresh
    /// `auth_session` and `otp_required: true` or `password_required: true`.
    mutating func ask(_ session: AuthorizationChallengeSession, for asked: Asked, call: Call) -> HTTPResponse {
        web.challengeSessions = web.challengeSessions.filter { call.now < $0.value.expiresAt }
        let authSession = Self.insert(session, byteCount: 32, from: random, into: &web.challengeSessions)
        let (member, description) =
            switch asked {
            case .code: ("otp_required", "Enter the one-time code that was sent.")
            case .password: ("password_required", "Enter the password.")
            }
        return challengeAnswer(
            status: 403,
            [
                "error": "insufficient_authorization", "error_description": .string(description),
                "auth_session": .string(authSession), member: true,
            ], call: call)
    }

    /// `403` `redirect_to_web` (§5.2.2.1.1; -04 §5.2.2.1 gives it that status), with a single-use `request_uri` and its `expires_in`
    /// when the tenant knows where the browser goes back to: one registered redirect URI
    /// (``EmulatorSettings/redirectURIs``), since the first-party request names none.
    mutating func redirectToWeb(user: EmulatedUser, request: AcceptedAuthorizationRequest, call: Call)
        -> HTTPResponse
    {
        var body: JSONObject = [
            "error": "redirect_to_web",
            "error_description": "This sign-in goes on in a browser.",
        ]
        if settings.redirectURIs.count == 1, let redirectURI = settings.redirectURIs.first {
            var request = request
            request.redirectURI = redirectURI
            let lifetime = pushedRequestLifetime
            web.pushed = web.pushed.filter { call.now < $0.value.expiresAt.addingTimeInterval(TimeInterval(lifetime)) }
            let pushed = PushedAuthorizationRequest(
                clientId: environment.clientId, request: request, loginHint: user.username, silent: false,
                correlationId: call.correlationId, expiresAt: call.now.addingTimeInterval(TimeInterval(lifetime)))
            let requestURI = Self.insert(
                pushed, byteCount: 32, prefix: Self.requestURIPrefix, from: random, into: &web.pushed)
            body["request_uri"] = .string(requestURI)
            body["expires_in"] = .integer(lifetime)
        }
        return challengeAnswer(status: 403, body, call: call)
    }

    /// `200` with a single-use `authorization_code` (§5.2.1), bound to the request's PKCE challenge
    /// (and DPoP key), redeemed at the token endpoint with no `redirect_uri` (§6). Its tokens carry
    /// `authentication`'s `auth_time` and `acr`; its token answer carries an `auth_session` (§6.1),
    /// which replaces the one of `continues`.
    mutating func issueCode(
        for user: EmulatedUser, request: AcceptedAuthorizationRequest, authentication: AuthenticationEvent?,
        continues: String? = nil, call: Call
    ) -> HTTPResponse {
        web.codes = web.codes.filter { call.now < $0.value.expiresAt }
        var issued = IssuedAuthorizationCode(
            username: user.username, request: request,
            expiresAt: call.now.addingTimeInterval(settings.authorizationCodeLifetime))
        issued.firstParty = FirstPartyCode(continues: continues)
        issued.authentication = authentication
        let code = Self.insert(issued, byteCount: 48, prefix: "1.", from: random, into: &web.codes)
        return challengeAnswer(status: 200, ["authorization_code": .string(code)], call: call)
    }

    /// A JSON answer with `Cache-Control: no-store`, as every example of the draft has.
    private func challengeAnswer(status: Int, _ body: JSONObject, call: Call) -> HTTPResponse {
        var response = jsonResponse(status: status, body: body, call: call)
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
