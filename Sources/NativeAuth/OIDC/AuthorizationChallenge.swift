import Foundation

/// One request to a provider's authorization challenge endpoint (OAuth 2.0 for First-Party
/// Applications, draft-ietf-oauth-first-party-apps, "the draft" below): a form POST (§4.1, §5.1),
/// authenticated as the client authenticates at the token endpoint (§4.1: a provider that
/// authenticates the client there must here too).
///
/// Every request carries `response_type=code` and `client_id` (§5.1). The first of a sign-in adds
/// `scope` and the PKCE challenge (§5.1, §5.2.2.1.1); a later one adds the `auth_session` of the
/// last answer (§5.3.1). Then come the credentials of the provider's profile (the draft's
/// Appendix B names `username` and `otp`; `password` is a profile's own, see Docs/FirstPartyApps.md)
/// and the app's additional parameters. Field names only may be logged.
/// A class: it never changes once built, and its fields are shared rather than copied.
final class AuthorizationChallengeRequest: Sendable {
    let endpoint: URL
    let clientId: String
    let form: FormBody
    let correlationId: UUID

    init(endpoint: URL, clientId: String, form: FormBody, correlationId: UUID) {
        self.endpoint = endpoint
        self.clientId = clientId
        self.form = form
        self.correlationId = correlationId
    }

    /// The names the SDK sets itself on a first request, lower-cased: an app's additional
    /// parameter may not use them.
    static let reservedNames = followUpReservedNames + ["password", "otp"]

    /// The names a later request may not take from the app, lower-cased: what the SDK owns for
    /// the whole sign-in. `response_type`, `client_id` and `client_secret` (every request, §5.1,
    /// §4.1), `auth_session` (§5.3.1: the newest one, which the state keeps), `scope` and the PKCE
    /// challenge (fixed by the first request, which the code is redeemed against), `username` (the
    /// first request names the user), and what would bind the code to a browser or a request the
    /// SDK never made: `redirect_uri` (§6 redeems without one), `state`, `nonce`, `request_uri`;
    /// `client-request-id` is the correlation id. A `password` or an `otp` a profile asks for is
    /// the user's answer, and goes.
    static let followUpReservedNames = [
        "response_type", "client_id", "client_secret", "scope", "auth_session", "code_challenge",
        "code_challenge_method", "username", "redirect_uri", "state", "nonce", "request_uri", "client-request-id",
    ]

    /// What opens an authorization at the endpoint (§5.1): the scopes and the PKCE challenge, and
    /// the username when no `auth_session` says whose sign-in it is.
    final class Opening: Sendable {
        let scopes: [String]
        let pkce: PKCE
        let username: String?

        init(scopes: [String], pkce: PKCE, username: String?) {
            self.scopes = scopes
            self.pkce = pkce
            self.username = username
        }
    }

    /// The first request of a sign-in; `authSession` is the one the client keeps for the account
    /// a sign-in continues (§5.3.1), `nil` for a new sign-in.
    static func initial(
        endpoint: URL, clientId: String, scopes: [String], pkce: PKCE, username: String, password: Secret?,
        authSession: Secret? = nil, additional: [String: String], correlationId: UUID
    ) -> AuthorizationChallengeRequest {
        var form = FormBody()
        form.add("response_type", "code")
        form.add("client_id", clientId)
        form.add("auth_session", secret: authSession)
        form.add("scope", scopes.joined(separator: " "))
        form.add("code_challenge", pkce.challenge)
        form.add("code_challenge_method", PKCE.method)
        form.add("username", username)
        form.add("password", secret: password)
        for name in additional.sortedKeys { form.add(name, additional[name, default: ""]) }
        return AuthorizationChallengeRequest(
            endpoint: endpoint, clientId: clientId, form: form, correlationId: correlationId)
    }

    /// A later request of a sign-in: the last `auth_session` (when the provider gave one) and
    /// what the user entered, every value a secret. With `opening`, the request also opens the
    /// authorization (a sign-in that goes on from a refresh the token endpoint answered with a
    /// challenge, §6.2).
    static func followUp(
        endpoint: URL, clientId: String, authSession: Secret?, credentials: [(name: String, value: Secret)],
        opening: Opening? = nil, correlationId: UUID
    ) -> AuthorizationChallengeRequest {
        var form = FormBody()
        form.add("response_type", "code")
        form.add("client_id", clientId)
        form.add("auth_session", secret: authSession)
        if let opening {
            form.add("scope", opening.scopes.joined(separator: " "))
            form.add("code_challenge", opening.pkce.challenge)
            form.add("code_challenge_method", PKCE.method)
            if authSession == nil, let username = opening.username { form.add("username", username) }
        }
        for credential in credentials { form.add(credential.name, secret: credential.value) }
        return AuthorizationChallengeRequest(
            endpoint: endpoint, clientId: clientId, form: form, correlationId: correlationId)
    }

    /// Sends the request through the one pipeline (interceptors, deadline, size cap, logs naming
    /// fields only; never retried) and reads the answer. With `dpop`, the request carries a proof
    /// of the sign-in's key (§9.5.1: the same key as the token request's).
    ///
    /// - Throws: ``WebSignInError/isInvalidParameters`` for an endpoint that is not `https` (http
    ///   on loopback only; nothing sent), ``WebSignInError/isNetworkError`` (naming
    ///   ``RequestEndpoint/authorizationChallenge``), ``WebSignInError/isUnexpectedResponse`` for
    ///   an answer over 1 MiB, ``WebSignInError/isCancelled``.
    func send(
        through pipeline: RequestPipeline, authentication: WebClientAuthentication,
        assertion: ClientAssertionContext = ClientAssertionContext(), dpop: DPoPSigner?
    ) async throws(WebSignInError) -> AuthorizationChallengeAnswer {
        if EndpointPolicy.problem(with: endpoint, field: "authorization_challenge_endpoint") != nil {
            throw .invalidParameters(
                "The authorization challenge endpoint must be https (http for loopback hosts only).",
                correlationId: correlationId)
        }
        let log = pipeline.log
        log(
            .debug, "authorization challenge request",
            [
                "fields": authentication.authenticated(form, clientId: clientId).names.joined(separator: ","),
                "authentication": authentication.methodName,
            ],
            correlationId: correlationId)
        let request = try await authentication.request(
            url: endpoint, form: form, clientId: clientId, correlationId: correlationId, context: assertion)
        let correlationId = correlationId
        let response = try await WebHTTP.send(
            request, to: .authorizationChallenge, through: pipeline, correlationId: correlationId, dpop: dpop,
            renewBody: authentication.renewal(
                url: endpoint, form: form, clientId: clientId, correlationId: correlationId, context: assertion))
        let answer = AuthorizationChallengeAnswer(response, correlationId: correlationId)
        log(.debug, "authorization challenge answered", ["outcome": answer.name], correlationId: correlationId)
        return answer
    }
}

/// What an authorization challenge endpoint answered (the draft's §5.2), read without trusting it.
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum AuthorizationChallengeAnswer: Sendable {
    /// §5.2.1: `200` with `authorization_code`.
    case authorizationCode(Secret)
    /// §5.2.2.1 `insufficient_authorization`: the provider wants more from the user.
    case insufficientAuthorization(InsufficientAuthorization)
    /// §5.2.2.1.1 `redirect_to_web`: go on in a browser, with the answer's `request_uri` (and its
    /// `expires_in`) when it has one.
    case redirectToWeb(requestURI: String?, expiresIn: Int?, authSession: Secret?, description: String?)
    /// Any other answer, as its typed error; `authSession` is a new `auth_session` the answer
    /// carried (§5.3.1: the client keeps the newest).
    case failed(WebSignInError, authSession: Secret?)

    /// What an `insufficient_authorization` answer asks for. A class: it never changes once
    /// read, and the answer and the state made from it share one reference.
    final class InsufficientAuthorization: Sendable {
        /// The answer's `auth_session`, when it has one.
        let authSession: Secret?
        /// The draft's Appendix B.2 `otp_required: true`.
        let otpRequired: Bool
        /// `password_required: true`: a profile's own member, named as Appendix B.2 names
        /// `otp_required`, for a provider that asks for the password after the username.
        let passwordRequired: Bool
        /// The answer's other members, as the provider's profile defines them (§5.2.2).
        let parameters: [String: JSONValue]
        /// The answer's `error_description`.
        let description: String?

        /// Reads the members of an `insufficient_authorization` answer (of the challenge endpoint,
        /// §5.2.2.1, or the token endpoint, §6.2).
        init(members: [String: JSONValue], authSession: Secret?, description: String?) {
            self.authSession = authSession
            otpRequired = members["otp_required"]?.boolValue == true
            passwordRequired = members["password_required"]?.boolValue == true
            // Removed by name rather than filtered, which would make a copy of the dictionary's
            // filter for this one closure.
            var parameters = members
            for name in AuthorizationChallengeAnswer.protocolMembers { parameters[name] = nil }
            self.parameters = parameters
            self.description = description
        }
    }

    /// The members of an error answer the SDK reads itself, which ``insufficientAuthorization``'s
    /// `parameters` leave out.
    static let protocolMembers = [
        "error", "error_description", "error_uri", "auth_session", "request_uri", "expires_in",
    ]

    /// The outcome's name, for logs.
    var name: String {
        switch self {
        case .authorizationCode: "authorization_code"
        case .insufficientAuthorization: "insufficient_authorization"
        case .redirectToWeb: "redirect_to_web"
        case .failed(let error, _): error.serverError.map { String($0.prefix(80)) } ?? "unexpected"
        }
    }

    /// Reads `response`: a 2xx must be a JSON object with a non-empty `authorization_code` string
    /// (§5.2.1); any other status with a JSON `error` is the error answer of §5.2.2. Anything else
    /// is ``WebSignInError/isUnexpectedResponse``, or ``WebSignInError/isServerError`` for a 429 or
    /// 5xx without an `error`.
    init(_ response: HTTPResponse, correlationId: UUID?) {
        let status = response.statusCode
        func unexpected(_ note: String) -> AuthorizationChallengeAnswer {
            .failed(
                WebSignInError(.unexpectedResponse, note: note, httpStatusCode: status, correlationId: correlationId),
                authSession: nil)
        }
        let members = response.body.isEmpty ? nil : (try? JSONValue.parse(response.body))?.objectValue
        if (200...299).contains(status) {
            guard let members else {
                self = unexpected(response.body.isEmpty ? "The answer is empty." : "The answer is not a JSON object.")
                return
            }
            guard let code = members["authorization_code"]?.stringValue, !code.isEmpty else {
                self = unexpected("The answer has no 'authorization_code' string.")
                return
            }
            self = .authorizationCode(Secret(code))
            return
        }
        guard let members, let error = members["error"]?.stringValue, !error.isEmpty else {
            switch status {
            case 429, 500...599:
                self = .failed(
                    WebSignInError(.server, httpStatusCode: status, correlationId: correlationId), authSession: nil)
            case 300...399: self = unexpected("The endpoint redirected (never followed).")
            default: self = unexpected("The error answer has no 'error'.")
            }
            return
        }
        let authSession = members["auth_session"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) }
        let description = members["error_description"]?.stringValue.map { String($0.prefix(500)) }
        switch error {
        case "insufficient_authorization":
            self = .insufficientAuthorization(
                InsufficientAuthorization(members: members, authSession: authSession, description: description))
        case "redirect_to_web":
            let requestURI = members["request_uri"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            // RFC 9126 §2.2, which the draft's §5.2.2 refers `expires_in` to: a positive whole number.
            let expiresIn = members["expires_in"]?.intValue.flatMap { $0 > 0 ? $0 : nil }
            self = .redirectToWeb(
                requestURI: requestURI, expiresIn: expiresIn, authSession: authSession, description: description)
        default:
            self = .failed(
                WebSignInError.oauth(
                    error: error, description: description, uri: members["error_uri"]?.stringValue, status: status,
                    correlationId: correlationId),
                authSession: authSession)
        }
    }
}
