import Foundation
import NativeAuth

/// What the tenant remembers of browser sign-ins: sign-in pages being filled in, and the
/// authorization codes it issued. Short-lived; not part of a snapshot.
struct WebSignInState: Sendable {
    /// Sign-in pages by their request handle (the form's hidden `ctx`).
    var pages: [String: PendingSignIn] = [:]
    /// Issued authorization codes by code, kept until they expire so a second use is recognised.
    var codes: [String: IssuedAuthorizationCode] = [:]
    /// Pushed authorization requests by `request_uri`, kept a lifetime past their expiry so a
    /// second use or a late one is recognised.
    var pushed: [String: PushedAuthorizationRequest] = [:]
    /// First-party sign-ins waiting for a one-time code, by `auth_session`.
    var challengeSessions: [String: AuthorizationChallengeSession] = [:]
    /// First-party sign-ins the token endpoint finished, by the `auth_session` of its answer.
    var signedInSessions: [String: SignedInSession] = [:]
    /// The users (lowercased) whose next refresh is answered `insufficient_authorization`.
    var challengedRefreshes: Set<String> = []
    /// What the protected resource asks of a token's sign-in (RFC 9470), when anything.
    var stepUp: StepUpRequirement? = nil
    /// Whether the next continued first-party session ignores its `max_age`.
    var ignoresNextMaxAge = false
    /// The `jti` of every client assertion taken (RFC 7523 §3 item 7), with its `exp`: kept until
    /// then, so a replay is refused.
    var usedAssertions: [String: Date] = [:]
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
    /// The `dpop_jkt` of the request (RFC 9449 §10), when DPoP is on: the code is then redeemed
    /// only with a proof of that key.
    var dpopKey: String? = nil
    /// Whether the request named its redirect URI; one made from a first-party sign-in did not, and
    /// its code is redeemed without `redirect_uri` (First-Party Applications §6; RFC 6749 §4.1.3).
    var redirectURIInRequest = true
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
    /// Set for a code of the authorization challenge endpoint: its token answer carries an
    /// `auth_session`.
    var firstParty: FirstPartyCode? = nil
    /// The authentication the code comes from: its tokens' `auth_time` and `acr`.
    var authentication: AuthenticationEvent? = nil
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
/// page, the `authorization_code` grant, and end session. The authorization endpoint, the sign-in
/// page, the grant and the answers they share are in the `TenantState+Web…` files beside this one.
extension TenantState {
    /// `https://{sub}.ciamlogin.com/{tenantId}`: the base of the endpoints the discovery document
    /// names; on the server's origin (`http://127.0.0.1:PORT/{tenantId}`) when served over HTTP, so
    /// a browser or a URLSession client can reach them. The issuer stays as it is either way.
    func webBase(_ call: Call) -> String {
        "\(call.publicOrigin ?? "https://\(environment.host)")/\(environment.tenantId)"
    }

    func webURL(_ endpoint: EmulatorEndpoint, _ call: Call) -> String { webBase(call) + "/" + endpoint.rawValue }

    mutating func webResponse(_ call: Call) -> HTTPResponse {
        switch call.endpoint {
        case .openIDConfiguration:
            switch settings.discoveryDocuments {
            case .openIDConnect: return document(discoveryDocument(call), call: call)
            case .authorizationServerOnly:
                return notFound(
                    call.request, now: call.now, correlationId: call.correlationId, publicOrigin: call.publicOrigin)
            case .foreignOpenIDDocument:
                var foreign = discoveryDocument(call)
                foreign["issuer"] = .string("https://\(environment.host)/")
                return document(foreign, call: call)
            }
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
    /// With ``EmulatorSettings/pushedAuthorizationRequests`` on, it names the pushed authorization
    /// request endpoint and says whether pushed requests are required (RFC 9126 §5), which Entra's does not;
    /// with ``EmulatorSettings/dpop`` on, it lists `dpop_signing_alg_values_supported` (RFC 9449 §5.1);
    /// with ``EmulatorSettings/authorizationChallengeEndpoint`` on, it names
    /// `authorization_challenge_endpoint` (OAuth 2.0 for First-Party Applications §8).
    func discoveryDocument(_ call: Call) -> JSONObject {
        var document: JSONObject = [
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
        if settings.pushedAuthorizationRequests != .off {
            document["pushed_authorization_request_endpoint"] = .string(webURL(.pushedAuthorizationRequest, call))
            document["require_pushed_authorization_requests"] = .bool(settings.pushedAuthorizationRequests == .required)
        }
        if settings.authorizationChallengeEndpoint {
            // OAuth 2.0 for First-Party Applications §8.
            document["authorization_challenge_endpoint"] = .string(webURL(.authorizationChallenge, call))
        }
        if settings.dpop != .off {
            // RFC 9449 §5.1: the algorithms the tenant verifies proofs with.
            document["dpop_signing_alg_values_supported"] = .array(DPoPPublicKey.supportedAlgorithms.map(JSON.string))
        }
        return document
    }

    /// `GET /.well-known/oauth-authorization-server/{tenant}/v2.0` (RFC 8414 §3), when
    /// ``EmulatorSettings/discoveryDocuments`` publishes it: the discovery document without what a
    /// first-party-only authorization server does not serve (the authorization, end-session and
    /// pushed request endpoints). `nil` for any other request, which is then routed as usual.
    func authorizationServerMetadata(_ request: HTTPRequest, now: Date, publicOrigin: String?) -> HTTPResponse? {
        guard settings.discoveryDocuments != .openIDConnect, request.method.uppercased() == "GET",
            request.url.scheme?.lowercased() == "https", request.url.host?.lowercased() == environment.host
        else { return nil }
        let path = request.url.path.lowercased()
        let wellKnown = "/.well-known/oauth-authorization-server/"
        guard environment.tenantPaths.contains(where: { path == wellKnown + $0.lowercased() + "/v2.0" }) else {
            return nil
        }
        let call = Call(
            request: request, endpoint: .openIDConfiguration, now: now,
            correlationId: request.header("client-request-id"), publicOrigin: publicOrigin)
        var metadata = discoveryDocument(call)
        for name in [
            "authorization_endpoint", "end_session_endpoint", "pushed_authorization_request_endpoint",
            "require_pushed_authorization_requests", "http_logout_supported", "frontchannel_logout_supported",
        ] {
            metadata[name] = nil
        }
        return document(metadata, call: call)
    }

    private func document(_ body: JSONObject, call: Call) -> HTTPResponse {
        var response = jsonResponse(status: 200, body: body, call: call)
        response.headers["Cache-Control"] = "max-age=86400, private"
        response.headers["Access-Control-Allow-Origin"] = "*"
        return response
    }

    // MARK: - End session

    /// `GET oauth2/v2.0/logout`: the tenant keeps no browser session, so there is nothing to end;
    /// with a registered `post_logout_redirect_uri` the browser goes back there (with `state`),
    /// otherwise it stays on a "signed out" page. Refresh tokens are not revoked, as with Entra.
    mutating func endSession(_ call: Call) -> HTTPResponse {
        let query = (try? Self.query(of: call.request)) ?? FormBody()
        if let target = query["post_logout_redirect_uri"], !target.isEmpty, isRegisteredRedirectURI(target) {
            return redirectBack(to: target, mode: .query, [], state: query["state"], call: call)
        }
        return page(
            status: 200,
            EmulatorLoginPage.message(
                title: "You signed out of your account", text: "It's a good idea to close all browser windows."),
            call)
    }
}

/// How the ID token of a browser sign-in (and of the refreshes of its refresh token) is made:
/// RS256-signed with ``EmulatorSigningKey``, with the authorization request's `nonce`.
struct SignedIDToken: Sendable {
    var nonce: String?
}
