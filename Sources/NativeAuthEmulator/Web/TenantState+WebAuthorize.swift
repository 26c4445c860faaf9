import Foundation
import NativeAuth

/// The authorization endpoint: the checks of an authorization request, and the sign-in page it opens.
extension TenantState {
    /// How long a sign-in page stays usable once shown.
    static let signInPageLifetime: TimeInterval = 3600

    /// `GET oauth2/v2.0/authorize`: checks the request and shows the sign-in page.
    ///
    /// An unknown client or a redirect URI that is not registered gets an error page (the browser
    /// stays at the tenant: nothing may be sent to a URI the app did not register). Any other problem
    /// goes back to the redirect URI as `error=…&error_description=…&state=…`. With
    /// ``EmulatorSettings/pushedAuthorizationRequests`` on, a `request_uri` stands for the pushed
    /// request's parameters (see ``authorizePushed(_:query:call:)``); when they are required, a
    /// request without one goes back with `invalid_request` (RFC 9126 §4). So does the `request_uri`
    /// of a first-party sign-in's `redirect_to_web` answer, with ``EmulatorSettings/authorizationChallengeEndpoint`` on.
    mutating func authorize(_ call: Call) -> HTTPResponse {
        let query: FormBody
        do throws(FormBody.Malformed) {
            query = try Self.query(of: call.request)
        } catch {
            return errorPage(.malformedBody(error.reason), call)
        }
        if settings.pushedAuthorizationRequests != .off || settings.authorizationChallengeEndpoint,
            let requestURI = query["request_uri"]
        {
            return authorizePushed(requestURI, query: query, call: call)
        }
        let correlationId = query["client-request-id"] ?? call.correlationId
        switch check(query, call: call) {
        case .errorPage(let error):
            return errorPage(error, call)
        case .refused(let error, let redirectURI, let mode, let state):
            return redirectBack(
                to: redirectURI, mode: mode, errorParameters(error, call: call, correlationId: correlationId),
                state: state, call: call)
        case .accepted(let request, let loginHint, let silent):
            func refuse(_ error: APIError) -> HTTPResponse {
                redirectBack(
                    to: request.redirectURI, mode: request.responseMode,
                    errorParameters(error, call: call, correlationId: correlationId), state: request.state, call: call)
            }
            if settings.pushedAuthorizationRequests == .required { return refuse(.pushedAuthorizationRequired) }
            if silent { return refuse(.loginRequired) }
            return showSignIn(request, loginHint: loginHint, call: call)
        }
    }

    /// What the checks of an authorization request's parameters found.
    enum AuthorizationCheck {
        /// A request the tenant takes; `silent` for `prompt=none`, which it cannot honour (it keeps
        /// no browser session).
        case accepted(AcceptedAuthorizationRequest, loginHint: String, silent: Bool)
        /// The client or the redirect URI is wrong: nothing may go back to the app.
        case errorPage(APIError)
        /// Anything else, which goes back to the redirect URI.
        case refused(
            APIError, redirectURI: String, mode: AcceptedAuthorizationRequest.ResponseMode, state: String?)
    }

    /// Checks the parameters of an authorization request, from the URL or pushed: the client, the
    /// redirect URI, `response_mode`, `response_type`, the scopes, PKCE (S256 only), and that no
    /// parameter is sent twice; with ``EmulatorSettings/dpop`` on, a `dpop_jkt` (RFC 9449 §10).
    func check(_ parameters: FormBody, call: Call) -> AuthorizationCheck {
        guard let clientId = parameters["client_id"], !clientId.isEmpty else {
            return .errorPage(.webMissingParameter("client_id"))
        }
        guard clientId == environment.clientId else {
            return .errorPage(.invalidClient(clientId, tenant: environment.tenantSubdomain))
        }
        guard let redirectURI = parameters["redirect_uri"], !redirectURI.isEmpty else {
            return .errorPage(.webMissingParameter("redirect_uri"))
        }
        guard isRegisteredRedirectURI(redirectURI) else {
            return .errorPage(.unregisteredRedirectURI(redirectURI, clientId: clientId))
        }
        let state = parameters["state"]
        let mode = AcceptedAuthorizationRequest.ResponseMode(rawValue: parameters["response_mode"] ?? "query")
        func refuse(_ error: APIError) -> AuthorizationCheck {
            .refused(error, redirectURI: redirectURI, mode: mode ?? .query, state: state)
        }
        if let duplicate = Self.repeatedName(in: parameters) {
            return refuse(.invalidParameter(duplicate, "it appears more than once"))
        }
        guard let mode else { return refuse(.unsupportedResponseMode(parameters["response_mode"] ?? "")) }
        guard let responseType = parameters["response_type"], !responseType.isEmpty else {
            return refuse(.webMissingParameter("response_type"))
        }
        guard responseType == "code" else { return refuse(.unsupportedResponseType(responseType)) }
        var scopeCall = call
        scopeCall.form = parameters
        let scopes: [String]
        do throws(APIError) {
            scopes = try self.scopes(in: scopeCall)
        } catch {
            return refuse(error)
        }
        guard let challenge = parameters["code_challenge"], !challenge.isEmpty else { return refuse(.pkceRequired) }
        guard parameters["code_challenge_method"] == "S256" else { return refuse(.invalidCodeChallengeMethod) }
        guard Self.isS256Challenge(challenge) else { return refuse(.invalidCodeChallengeSize) }
        var request = AcceptedAuthorizationRequest(
            redirectURI: redirectURI, responseMode: mode, state: state, nonce: parameters["nonce"],
            codeChallenge: challenge, scopes: scopes)
        if settings.dpop != .off, let thumbprint = parameters["dpop_jkt"] {
            // RFC 9449 §10: the code is bound to the key of this JWK thumbprint (a SHA-256 one, 43
            // base64url characters).
            guard DPoPProofChecker.base64URL(thumbprint)?.count == 32 else {
                return refuse(.invalidParameter("dpop_jkt", "it is not a base64url SHA-256 JWK thumbprint"))
            }
            request.dpopKey = thumbprint
        }
        return .accepted(
            request, loginHint: parameters["login_hint"] ?? "", silent: parameters.list("prompt").contains("none"))
    }

    /// Shows the sign-in page for `request`, the username from `loginHint`.
    mutating func showSignIn(_ request: AcceptedAuthorizationRequest, loginHint: String, call: Call) -> HTTPResponse {
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

    private mutating func storePage(_ pending: PendingSignIn, now: Date) -> String {
        web.pages = web.pages.filter { now < $0.value.expiresAt }
        return Self.insert(pending, byteCount: 32, from: random, into: &web.pages)
    }
}
