import Foundation
import NativeAuth

/// What the tenant remembers of browser sign-ins: sign-in pages being filled in, and the
/// authorization codes it issued. Short-lived; not part of a snapshot.
struct WebSignInState: Sendable {
    /// Sign-in pages by their request handle (the form's hidden `ctx`).
    var pages: [String: PendingSignIn] = [:]
    /// Issued authorization codes by code, kept until they expire so a second use is recognised.
    var codes: [String: IssuedAuthorizationCode] = [:]
}

/// An authorization request the tenant accepted: what the code it leads to is bound to.
struct AcceptedAuthorizationRequest: Sendable {
    enum ResponseMode: String, Sendable {
        case query, fragment
    }

    var redirectURI: String
    var responseMode: ResponseMode
    var state: String?
    var nonce: String?
    /// The S256 `code_challenge`.
    var codeChallenge: String
    var scopes: [String]
}

/// A sign-in page being filled in.
struct PendingSignIn: Sendable {
    enum Step: Sendable {
        /// The username and password form.
        case credentials
        /// A one-time code was sent to `address`; `final` when it is the second factor.
        case code(address: String, code: String, final: Bool)
    }

    var request: AcceptedAuthorizationRequest
    var loginHint: String
    var username: String?
    var step: Step
    var expiresAt: Date
}

/// An authorization code: whose it is, what request it answers, until when, and whether it was used.
struct IssuedAuthorizationCode: Sendable {
    var username: String
    var request: AcceptedAuthorizationRequest
    var expiresAt: Date
    var redeemed = false
}

extension EmulatorEndpoint {
    /// The OpenID Connect endpoints a browser or a web client calls, answered outside the
    /// form-and-JSON path of the native API (the token endpoint is not one of them).
    var isBrowserEndpoint: Bool {
        switch self {
        case .openIDConfiguration, .keys, .authorize, .login, .logout: true
        default: false
        }
    }
}

/// The tenant's OpenID Connect endpoints: discovery, keys, the authorization endpoint and its sign-in
/// page, the `authorization_code` grant, and end session.
extension TenantState {
    /// How long a sign-in page stays usable once shown.
    static let signInPageLifetime: TimeInterval = 3600

    /// `https://{sub}.ciamlogin.com/{tenantId}`: the base of the endpoints the discovery document
    /// names; on the server's origin (`http://127.0.0.1:PORT/{tenantId}`) when served over HTTP, so
    /// a browser or a URLSession client can reach them. The issuer stays as it is either way.
    func webBase(_ call: Call) -> String {
        "\(call.publicOrigin ?? "https://\(environment.host)")/\(environment.tenantId)"
    }

    func webURL(_ endpoint: EmulatorEndpoint, _ call: Call) -> String { webBase(call) + "/" + endpoint.rawValue }

    mutating func webResponse(_ call: Call) -> HTTPResponse {
        switch call.endpoint {
        case .openIDConfiguration: return document(discoveryDocument(call), call: call)
        case .keys:
            let key = EmulatorSigningKey.test.jwk(issuer: issuer)
            return document(["keys": .array([.object(key)])], call: call)
        case .authorize: return authorize(call)
        case .login: return signInForm(call)
        case .logout: return endSession(call)
        default: return page(status: 404, EmulatorLoginPage.message(title: "Not found", text: "No such page."), call)
        }
    }

    // MARK: - Discovery and keys

    /// The discovery document, shaped as Entra's v2.0 one: the endpoints under
    /// `https://{sub}.ciamlogin.com/{tenantId}/`, the issuer on the tenant id.
    ///
    /// Like Entra it has no `code_challenge_methods_supported` (PKCE S256 works all the same) and
    /// no `authorization_response_iss_parameter_supported` (no `iss` comes back with the code). It
    /// leaves out what the emulator does not serve: `userinfo_endpoint` (Microsoft Graph),
    /// `device_authorization_endpoint` and `kerberos_endpoint`; and `form_post` from the response modes.
    /// Served over HTTP, the endpoints are on the server's origin instead (see ``webBase(_:)``).
    func discoveryDocument(_ call: Call) -> JSONObject {
        [
            "token_endpoint": .string(webURL(.token, call)),
            "token_endpoint_auth_methods_supported": .array([
                "client_secret_post", "private_key_jwt", "client_secret_basic",
            ]),
            "jwks_uri": .string(webURL(.keys, call)),
            "response_modes_supported": .array(["query", "fragment"]),
            "subject_types_supported": .array(["pairwise"]),
            "id_token_signing_alg_values_supported": .array(["RS256"]),
            "response_types_supported": .array(["code", "id_token", "code id_token", "id_token token"]),
            "scopes_supported": .array(["openid", "profile", "email", "offline_access"]),
            "issuer": .string(issuer),
            "request_uri_parameter_supported": false,
            "authorization_endpoint": .string(webURL(.authorize, call)),
            "http_logout_supported": true,
            "frontchannel_logout_supported": true,
            "end_session_endpoint": .string(webURL(.logout, call)),
            "claims_supported": .array([
                "sub", "iss", "aud", "exp", "iat", "auth_time", "acr", "nonce", "preferred_username", "name", "tid",
                "ver", "at_hash", "c_hash", "email",
            ]),
            "tenant_region_scope": "WW",
            "cloud_instance_name": "ciamlogin.com",
            "cloud_graph_host_name": "graph.windows.net",
            "msgraph_host": "graph.microsoft.com",
            "rbac_url": "https://pas.windows.net",
        ]
    }

    private func document(_ body: JSONObject, call: Call) -> HTTPResponse {
        var response = jsonResponse(status: 200, body: body, call: call)
        response.headers["Cache-Control"] = "max-age=86400, private"
        response.headers["Access-Control-Allow-Origin"] = "*"
        return response
    }

    // MARK: - The authorization endpoint

    /// `GET oauth2/v2.0/authorize`: checks the request and shows the sign-in page.
    ///
    /// An unknown client or a redirect URI that is not registered gets an error page (the browser
    /// stays at the tenant: nothing may be sent to a URI the app did not register). Any other problem
    /// goes back to the redirect URI as `error=…&error_description=…&state=…`.
    mutating func authorize(_ call: Call) -> HTTPResponse {
        let query: FormBody
        do throws(FormBody.Malformed) {
            query = try Self.query(of: call.request)
        } catch {
            return errorPage(.malformedBody(error.reason), call)
        }
        let correlationId = query["client-request-id"] ?? call.correlationId
        guard let clientId = query["client_id"], !clientId.isEmpty else {
            return errorPage(.webMissingParameter("client_id"), call)
        }
        guard clientId == environment.clientId else {
            return errorPage(.invalidClient(clientId, tenant: environment.tenantSubdomain), call)
        }
        guard let redirectURI = query["redirect_uri"], !redirectURI.isEmpty else {
            return errorPage(.webMissingParameter("redirect_uri"), call)
        }
        guard isRegisteredRedirectURI(redirectURI) else {
            return errorPage(.unregisteredRedirectURI(redirectURI, clientId: clientId), call)
        }
        let state = query["state"]
        let mode = AcceptedAuthorizationRequest.ResponseMode(rawValue: query["response_mode"] ?? "query")
        func refuse(_ error: APIError) -> HTTPResponse {
            redirectBack(
                to: redirectURI, mode: mode ?? .query, errorParameters(error, call: call, correlationId: correlationId),
                state: state, call: call)
        }
        if let duplicate = Self.repeatedName(in: query) {
            return refuse(.invalidParameter(duplicate, "it appears more than once"))
        }
        guard let mode else { return refuse(.unsupportedResponseMode(query["response_mode"] ?? "")) }
        guard let responseType = query["response_type"], !responseType.isEmpty else {
            return refuse(.webMissingParameter("response_type"))
        }
        guard responseType == "code" else { return refuse(.unsupportedResponseType(responseType)) }
        var scopeCall = call
        scopeCall.form = query
        let scopes: [String]
        do throws(APIError) {
            scopes = try self.scopes(in: scopeCall)
        } catch {
            return refuse(error)
        }
        guard let challenge = query["code_challenge"], !challenge.isEmpty else { return refuse(.pkceRequired) }
        guard query["code_challenge_method"] == "S256" else { return refuse(.invalidCodeChallengeMethod) }
        guard Self.isS256Challenge(challenge) else { return refuse(.invalidCodeChallengeSize) }
        if query.list("prompt").contains("none") { return refuse(.loginRequired) }

        let request = AcceptedAuthorizationRequest(
            redirectURI: redirectURI, responseMode: mode, state: state, nonce: query["nonce"],
            codeChallenge: challenge, scopes: scopes)
        let loginHint = query["login_hint"] ?? ""
        let pending = PendingSignIn(
            request: request, loginHint: loginHint, username: nil, step: .credentials,
            expiresAt: call.now.addingTimeInterval(Self.signInPageLifetime))
        let handle = storePage(pending, now: call.now)
        return page(
            status: 200,
            EmulatorLoginPage.signIn(action: loginAction, context: handle, username: loginHint, error: nil), call)
    }

    /// Where the sign-in form posts: a path on the tenant's host, so the page works wherever it is served.
    var loginAction: String { "/\(environment.tenantId)/\(EmulatorEndpoint.login.rawValue)" }

    /// Whether `text` may receive authorization responses: one of ``EmulatorSettings/redirectURIs``
    /// (a loopback `http` URI matching on any port, as Entra does), or, when that list is empty,
    /// any absolute URI without a fragment that is `https`, loopback `http`, or an app's own scheme.
    func isRegisteredRedirectURI(_ text: String) -> Bool {
        guard let requested = URLComponents(string: text), let scheme = requested.scheme?.lowercased(),
            !scheme.isEmpty, requested.fragment == nil
        else { return false }
        if settings.redirectURIs.isEmpty {
            switch scheme {
            case "https": return requested.host?.isEmpty == false
            case "http": return Self.isLoopback(requested.host ?? "")
            case "javascript", "data", "file", "vbscript", "about", "blob": return false
            default: return true
            }
        }
        return settings.redirectURIs.contains { Self.redirectURI(text, matches: $0) }
    }

    /// The same URI, or the same loopback `http` URI on another port (RFC 8252 §7.3).
    static func redirectURI(_ requested: String, matches registered: String) -> Bool {
        if requested == registered { return true }
        guard let lhs = URLComponents(string: requested), let rhs = URLComponents(string: registered),
            lhs.scheme?.lowercased() == "http", rhs.scheme?.lowercased() == "http",
            let host = lhs.host, isLoopback(host), host.lowercased() == rhs.host?.lowercased()
        else { return false }
        let path = { (components: URLComponents) in
            components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        }
        return path(lhs) == path(rhs) && lhs.percentEncodedQuery == rhs.percentEncodedQuery
    }

    static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "localhost", "[::1]", "::1"].contains(host.lowercased())
    }

    /// An S256 challenge: 43 base64url characters (a SHA-256 digest).
    static func isS256Challenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43
            && challenge.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-"
                        || scalar == "_")
            }
    }

    /// The first parameter name sent more than once (RFC 6749 §3.1), if any.
    static func repeatedName(in form: FormBody) -> String? {
        var seen: Set<String> = []
        return form.fields.first { !seen.insert($0.key).inserted }?.key
    }

    static func query(of request: HTTPRequest) throws(FormBody.Malformed) -> FormBody {
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        return try FormBody(data: Data(query.utf8))
    }

    // MARK: - The sign-in page

    /// `POST login`: the sign-in page's form. A right password (then the code of a second factor,
    /// for a user with MFA methods) sends the browser back with a code; a passwordless user gets an
    /// email code first. A wrong answer shows the page again with an error; Cancel sends the browser
    /// back with `access_denied`.
    mutating func signInForm(_ call: Call) -> HTTPResponse {
        let contentType = call.request.header("Content-Type")
        let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/x-www-form-urlencoded" else {
            return errorPage(.unsupportedMediaType(contentType), call)
        }
        let form: FormBody
        do throws(FormBody.Malformed) {
            form = try FormBody(data: call.request.body ?? Data())
        } catch {
            return errorPage(.malformedBody(error.reason), call)
        }
        guard let handle = form["ctx"], var pending = web.pages[handle], call.now < pending.expiresAt else {
            return errorPage(.signInPageExpired, call)
        }
        if form["action"] == "cancel" {
            web.pages[handle] = nil
            return redirectBack(
                to: pending.request.redirectURI, mode: pending.request.responseMode,
                errorParameters(.signInCancelled, call: call, correlationId: nil), state: pending.request.state,
                call: call)
        }
        switch pending.step {
        case .credentials:
            let given = (form["username"] ?? pending.loginHint).trimmingCharacters(in: .whitespacesAndNewlines)
            func again(_ message: String) -> HTTPResponse {
                page(
                    status: 200,
                    EmulatorLoginPage.signIn(action: loginAction, context: handle, username: given, error: message),
                    call)
            }
            guard !given.isEmpty else { return again("Enter your email address.") }
            guard let user = user(named: given) else {
                return again("We couldn't find an account with this email address.")
            }
            if let expected = user.password {
                let password = form["password"] ?? ""
                guard !password.isEmpty else { return again("Enter your password.") }
                guard password == expected else { return again("Your password is incorrect.") }
                return afterFirstWebFactor(handle: handle, pending: pending, user: user, call: call)
            }
            // A passwordless account signs in with a code sent to its email address.
            pending.username = user.username
            let code = sendCode(to: user.username, purpose: "signIn", now: call.now)
            pending.step = .code(address: user.username, code: code, final: false)
            web.pages[handle] = pending
            return codePage(handle: handle, address: user.username, error: nil, call: call)
        case .code(let address, let expected, let final):
            let given = (form["code"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard given == expected else {
                return codePage(
                    handle: handle, address: address, error: "That code is incorrect. Try again.", call: call)
            }
            guard let user = user(named: pending.username ?? "") else {
                web.pages[handle] = nil
                return errorPage(.userNotFound, call)
            }
            return final
                ? finishSignIn(handle: handle, pending: pending, user: user, call: call)
                : afterFirstWebFactor(handle: handle, pending: pending, user: user, call: call)
        }
    }

    /// After the password or email code: the code of a second factor for a user with MFA methods,
    /// else the authorization code. (Method registration is not asked for in the browser.)
    private mutating func afterFirstWebFactor(
        handle: String, pending: PendingSignIn, user: EmulatedUser, call: Call
    ) -> HTTPResponse {
        var pending = pending
        pending.username = user.username
        if let method = mfaMethods(of: user).first {
            let code = sendCode(to: method.address, purpose: "mfa", now: call.now)
            pending.step = .code(address: method.address, code: code, final: true)
            web.pages[handle] = pending
            return codePage(handle: handle, address: method.address, error: nil, call: call)
        }
        return finishSignIn(handle: handle, pending: pending, user: user, call: call)
    }

    private mutating func finishSignIn(
        handle: String, pending: PendingSignIn, user: EmulatedUser, call: Call
    ) -> HTTPResponse {
        web.pages[handle] = nil
        web.codes = web.codes.filter { call.now < $0.value.expiresAt }
        var code = "1." + Encoding.randomToken(byteCount: 48, from: random)
        while web.codes[code] != nil { code = "1." + Encoding.randomToken(byteCount: 48, from: random) }
        web.codes[code] = IssuedAuthorizationCode(
            username: user.username, request: pending.request,
            expiresAt: call.now.addingTimeInterval(settings.authorizationCodeLifetime))
        // Like Entra: `code` and `state`, no `iss`.
        return redirectBack(
            to: pending.request.redirectURI, mode: pending.request.responseMode, [("code", code)],
            state: pending.request.state, call: call)
    }

    private func codePage(handle: String, address: String, error: String?, call: Call) -> HTTPResponse {
        page(
            status: 200,
            EmulatorLoginPage.code(
                action: loginAction, context: handle, target: Encoding.maskedLabel(address), error: error), call)
    }

    private mutating func storePage(_ pending: PendingSignIn, now: Date) -> String {
        web.pages = web.pages.filter { now < $0.value.expiresAt }
        var handle = Encoding.randomToken(byteCount: 32, from: random)
        while web.pages[handle] != nil { handle = Encoding.randomToken(byteCount: 32, from: random) }
        web.pages[handle] = pending
        return handle
    }

    // MARK: - The authorization code grant

    /// `grant_type=authorization_code` on `oauth2/v2.0/token`: the code must be one the tenant
    /// issued, unused and unexpired on the tenant's clock, the `redirect_uri` the one it was issued
    /// for, and the `code_verifier` must hash to its S256 challenge. The answer is the same as a
    /// native sign-in's, but its ID token is RS256-signed and carries the request's `nonce`; so
    /// are the ID tokens of every refresh of its refresh token.
    mutating func authorizationCodeGrant(_ call: Call) throws(APIError) -> JSONObject {
        let code = try required("code", in: call)
        guard var issued = web.codes[code] else { throw .invalidAuthorizationCode }
        guard !issued.redeemed else { throw .authorizationCodeRedeemed }
        guard call.now < issued.expiresAt else { throw .expiredAuthorizationCode }
        let redirectURI = call.form["redirect_uri"] ?? ""
        guard redirectURI == issued.request.redirectURI else {
            throw .redirectURIMismatch(redirectURI, issued: issued.request.redirectURI)
        }
        let verifier = call.form["code_verifier"] ?? ""
        guard Self.verifier(verifier, matches: issued.request.codeChallenge) else { throw .codeVerifierMismatch }
        issued.redeemed = true
        web.codes[code] = issued
        guard let user = user(named: issued.username) else { throw .userNotFound }
        return issueTokens(
            for: user, scopes: issued.request.scopes, now: call.now,
            signedIDToken: SignedIDToken(nonce: issued.request.nonce))
    }

    /// RFC 7636 §4.6: 43 to 128 unreserved characters whose SHA-256, base64url-encoded, is the challenge.
    static func verifier(_ verifier: String, matches challenge: String) -> Bool {
        let unreserved = verifier.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                    || "-._~".unicodeScalars.contains(scalar))
        }
        guard (43...128).contains(verifier.utf8.count), unreserved else { return false }
        return Encoding.base64URL(Data(SHA256.hash(Array(verifier.utf8)))) == challenge
    }

    // MARK: - End session

    /// `GET oauth2/v2.0/logout`: the tenant keeps no browser session, so there is nothing to end;
    /// with a registered `post_logout_redirect_uri` the browser goes back there (with `state`),
    /// otherwise it stays on a "signed out" page. Refresh tokens are not revoked, as with Entra.
    mutating func endSession(_ call: Call) -> HTTPResponse {
        let query = (try? Self.query(of: call.request)) ?? FormBody()
        if let target = query["post_logout_redirect_uri"], !target.isEmpty, isRegisteredRedirectURI(target) {
            var parameters: [(String, String)] = []
            if let state = query["state"] { parameters.append(("state", state)) }
            return redirect(to: Self.appending(parameters, to: target, mode: .query), call: call)
        }
        return page(
            status: 200,
            EmulatorLoginPage.message(
                title: "You signed out of your account", text: "It's a good idea to close all browser windows."),
            call)
    }

    // MARK: - Answers

    /// The browser sent back to `redirectURI` with `parameters` and `state`.
    private func redirectBack(
        to redirectURI: String, mode: AcceptedAuthorizationRequest.ResponseMode, _ parameters: [(String, String)],
        state: String?, call: Call
    ) -> HTTPResponse {
        var all = parameters
        if let state { all.append(("state", state)) }
        return redirect(to: Self.appending(all, to: redirectURI, mode: mode), call: call)
    }

    private func redirect(to location: String, call: Call) -> HTTPResponse {
        var response = page(status: 302, EmulatorLoginPage.movedTo(location), call)
        response.headers["Location"] = location
        return response
    }

    /// `error`, `error_description` (with the trace and correlation ids, as Entra writes it).
    private func errorParameters(_ error: APIError, call: Call, correlationId: String?) -> [(String, String)] {
        let traceId = Encoding.randomUUID(from: random)
        let description = error.description(
            traceId: traceId, correlationId: correlationId ?? Encoding.randomUUID(from: random),
            timestamp: Encoding.errorTimestamp(call.now))
        return [("error", error.error), ("error_description", description)]
    }

    /// An HTML error page; the browser stays at the tenant.
    private func errorPage(_ error: APIError, _ call: Call) -> HTTPResponse {
        let traceId = Encoding.randomUUID(from: random)
        let correlationId = call.correlationId ?? Encoding.randomUUID(from: random)
        let text = error.description(
            traceId: traceId, correlationId: correlationId, timestamp: Encoding.errorTimestamp(call.now))
        return page(
            status: 400,
            EmulatorLoginPage.message(title: "Sorry, but we're having trouble signing you in.", text: text), call)
    }

    private func page(status: Int, _ html: String, _ call: Call) -> HTTPResponse {
        var headers = headers(now: call.now, correlationId: call.correlationId)
        headers["Content-Type"] = "text/html; charset=utf-8"
        headers["Cache-Control"] = "no-store, no-cache"
        headers["X-Content-Type-Options"] = "nosniff"
        headers["X-Frame-Options"] = "DENY"
        return HTTPResponse(statusCode: status, headers: headers, body: Data(html.utf8))
    }

    /// `uri` with `parameters` added to its query (after any it has) or, for `fragment`, as its fragment.
    static func appending(
        _ parameters: [(String, String)], to uri: String, mode: AcceptedAuthorizationRequest.ResponseMode
    ) -> String {
        guard !parameters.isEmpty else { return uri }
        let encoded = parameters.map { formEscape($0.0) + "=" + formEscape($0.1) }.joined(separator: "&")
        switch mode {
        case .fragment:
            return uri + "#" + encoded
        case .query:
            return uri + (uri.contains("?") ? "&" : "?") + encoded
        }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func formEscape(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            let unreserved =
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || "-._~".utf8.contains(byte)
            if unreserved {
                output.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return output
    }
}

/// How the ID token of a browser sign-in (and of the refreshes of its refresh token) is made:
/// RS256-signed with ``EmulatorSigningKey``, with the authorization request's `nonce`.
struct SignedIDToken: Sendable {
    var nonce: String?
}

// MARK: - The errors of the browser endpoints

extension APIError {
    /// Entra's AADSTS900144.
    static func webMissingParameter(_ name: String) -> APIError {
        APIError(
            "invalid_request", code: 900144,
            "The request body must contain the following parameter: '\(name)'.")
    }

    static func unregisteredRedirectURI(_ uri: String, clientId: String) -> APIError {
        APIError(
            "invalid_request", code: 50011,
            "The redirect URI '\(uri)' specified in the request does not match the redirect URIs configured for "
                + "the application '\(clientId)'.")
    }

    static func unsupportedResponseType(_ value: String) -> APIError {
        APIError(
            "unsupported_response_type", code: 700054,
            "response_type '\(value)' is not enabled for the application.")
    }

    static func unsupportedResponseMode(_ value: String) -> APIError {
        APIError("invalid_request", code: 90100, "The response_mode '\(value)' is not supported.")
    }

    static let pkceRequired = APIError(
        "invalid_request", code: 9002325, "Proof Key for Code Exchange is required: send code_challenge.")

    static let invalidCodeChallengeMethod = APIError(
        "invalid_request", code: 50149, "Invalid Code_Challenge_method parameter: only S256 is accepted.")

    static let invalidCodeChallengeSize = APIError(
        "invalid_request", code: 501491, "Invalid size of Code_Challenge parameter.")

    static let loginRequired = APIError(
        "login_required", code: 50058, "A silent sign-in request was sent but no user is signed in.")

    /// Entra names no code for a user who cancels the sign-in page.
    static let signInCancelled: APIError = {
        var error = APIError("access_denied", code: 0, "The user canceled the sign-in.")
        error.codes = []
        return error
    }()

    static let signInPageExpired = APIError(
        "invalid_request", code: 50089, "Flow token expired: the sign-in page is no longer valid. Start again.")

    static let invalidAuthorizationCode = APIError(
        "invalid_grant", code: 70000, "The provided value for the 'code' parameter is not valid.")

    static let authorizationCodeRedeemed = APIError(
        "invalid_grant", code: 54005,
        "OAuth2 Authorization code was already redeemed, please retry with a new valid code or use an existing "
            + "refresh token.")

    static let expiredAuthorizationCode = APIError(
        "invalid_grant", code: 70008,
        "The provided authorization code or refresh token has expired due to inactivity. Send a new interactive "
            + "authorization request for this user and resource.")

    static func redirectURIMismatch(_ given: String, issued: String) -> APIError {
        APIError(
            "invalid_grant", code: 50011,
            "The reply address '\(given)' does not match the reply address '\(issued)' provided when requesting "
                + "Authorization code.")
    }

    static let codeVerifierMismatch = APIError(
        "invalid_grant", code: 501481,
        "The Code_Verifier does not match the code_challenge supplied in the authorization request.")
}
