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

    private mutating func storePage(_ pending: PendingSignIn, now: Date) -> String {
        web.pages = web.pages.filter { now < $0.value.expiresAt }
        return Self.insert(pending, byteCount: 32, from: random, into: &web.pages)
    }
}
