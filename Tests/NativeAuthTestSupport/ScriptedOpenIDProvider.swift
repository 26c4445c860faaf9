public import Foundation
public import NativeAuth

/// An OpenID Connect provider on a script, for the web sign-in, sign-out, device and registration
/// tests: a discovery document naming the endpoints it was given, the test key set, and each
/// endpoint answering as the test says. It keeps every request.
///
/// The token endpoint answers with ``tokenAnswer``, which sees the form and the nonce the browser
/// saw (``InstantAgent`` tells the provider); `nil` passes the request to ``fallback`` (the native
/// API of a tenant whose web endpoints these are), or answers 404 without one.
public final class ScriptedOpenIDProvider: HTTPTransport, Sendable {
    public static let issuer = "https://login.example.com"
    /// The end-session endpoint of ``Endpoints/standard(base:device:revocation:registration:endSession:)``,
    /// with a query of its own.
    public static let endSession = "\(issuer)/logout?tenant=main"

    /// Where the provider's endpoints are, as full URLs; `nil` leaves one out of the discovery document.
    public struct Endpoints: Sendable {
        public var discovery: String
        public var authorization: String
        public var token: String
        public var jwks: String
        public var device: String?
        public var revocation: String?
        public var registration: String?
        public var endSession: String?
        /// The pushed authorization request endpoint (RFC 9126).
        public var par: String?

        /// A provider whose issuer is `base`, each endpoint a path of its own under it.
        public static func standard(
            base: String = ScriptedOpenIDProvider.issuer, device: Bool = false, revocation: Bool = false,
            registration: Bool = false, endSession: Bool = false, par: Bool = false
        ) -> Endpoints {
            Endpoints(
                discovery: base + "/.well-known/openid-configuration", authorization: base + "/authorize",
                token: base + "/token", jwks: base + "/jwks", device: device ? base + "/device" : nil,
                revocation: revocation ? base + "/revoke" : nil, registration: registration ? base + "/register" : nil,
                endSession: endSession ? ScriptedOpenIDProvider.endSession : nil, par: par ? base + "/par" : nil)
        }

        /// A CIAM tenant's endpoints under its authority (`https://{subdomain}.ciamlogin.com/{tenant}`),
        /// as the native client's browser fallback finds them.
        public static func ciam(authority: String) -> Endpoints {
            Endpoints(
                discovery: authority + "/v2.0/.well-known/openid-configuration",
                authorization: authority + "/oauth2/v2.0/authorize", token: authority + "/oauth2/v2.0/token",
                jwks: authority + "/discovery/v2.0/keys")
        }
    }

    /// One request to the token endpoint, as the answer sees it.
    public struct TokenExchange: Sendable {
        public var request: HTTPRequest
        /// The form body as sent.
        public var form: String
        /// The form's `grant_type`.
        public var grantType: String?
        /// The nonce of the last authorization URL a browser was shown.
        public var nonce: String
    }

    /// One answer of a scripted endpoint: a response, or no answer at all (`URLError(.timedOut)`).
    public enum Step: Sendable {
        case answer(HTTPResponse)
        case noAnswer
    }

    public let endpoints: Endpoints
    /// The discovery document.
    public let discovery: String
    /// Whether discovery answers 500.
    public let discoveryFails = LockedValue(false)
    /// The key sets the key endpoint answers, in turn; the last one again and again.
    public let jwks: LockedValue<[String]>
    public let tokenAnswer: LockedValue<@Sendable (TokenExchange) throws -> HTTPResponse?>
    public let deviceAnswer: LockedValue<HTTPResponse>
    public let revokeAnswer = LockedValue<@Sendable () throws -> HTTPResponse>({ HTTPResponse(statusCode: 200) })
    /// The registration endpoint's answer (404 until a test sets one).
    public let registrationAnswer = LockedValue<@Sendable (HTTPRequest) throws -> HTTPResponse>({ _ in
        HTTPResponse(statusCode: 404)
    })
    /// The pushed authorization request endpoint's answer to each push: by default
    /// ``pushing(expiresIn:)``, which keeps the form and answers 201 with a fresh `request_uri`.
    public let parAnswer: LockedValue<@Sendable (HTTPRequest) throws -> HTTPResponse>
    /// The forms pushed, as text, by the `request_uri` answered for them; taken out when a
    /// browser follows the `request_uri` (one use each).
    public let pushed = LockedValue<[String: String]>([:])
    /// The nonce and login hint of the last authorization URL a browser was shown.
    public let nonce = LockedValue("")
    public let loginHint = LockedValue<String?>(nil)
    public let fallback: (any HTTPTransport)?
    private let received = LockedValue<[HTTPRequest]>([])

    /// A provider at `endpoints` whose discovery document says `issuer` (the standard base by
    /// default) and has the members `extraDiscovery` (raw JSON members, comma-separated), answering
    /// token requests with `tokenAnswer`.
    public init(
        endpoints: Endpoints = .standard(), issuer: String = ScriptedOpenIDProvider.issuer,
        jwks: [String] = [WebTestSigner.jwks()], deviceAnswer: HTTPResponse = ScriptedOpenIDProvider.deviceAnswer(),
        fallback: (any HTTPTransport)? = nil, extraDiscovery: String = "",
        tokenAnswer: @escaping @Sendable (TokenExchange) throws -> HTTPResponse? = { _ in nil }
    ) {
        self.endpoints = endpoints
        var members = [
            "\"issuer\":\"\(issuer)\"", "\"authorization_endpoint\":\"\(endpoints.authorization)\"",
            "\"token_endpoint\":\"\(endpoints.token)\"", "\"jwks_uri\":\"\(endpoints.jwks)\"",
            "\"response_types_supported\":[\"code\"]", "\"subject_types_supported\":[\"public\"]",
            "\"id_token_signing_alg_values_supported\":[\"RS256\"]", "\"code_challenge_methods_supported\":[\"S256\"]",
        ]
        if let device = endpoints.device { members.append("\"device_authorization_endpoint\":\"\(device)\"") }
        if let revocation = endpoints.revocation { members.append("\"revocation_endpoint\":\"\(revocation)\"") }
        if let registration = endpoints.registration { members.append("\"registration_endpoint\":\"\(registration)\"") }
        if let endSession = endpoints.endSession { members.append("\"end_session_endpoint\":\"\(endSession)\"") }
        if let par = endpoints.par { members.append("\"pushed_authorization_request_endpoint\":\"\(par)\"") }
        if !extraDiscovery.isEmpty { members.append(extraDiscovery) }
        discovery = "{" + members.joined(separator: ",") + "}"
        self.jwks = LockedValue(jwks)
        self.deviceAnswer = LockedValue(deviceAnswer)
        self.fallback = fallback
        self.tokenAnswer = LockedValue(tokenAnswer)
        parAnswer = LockedValue({ _ in HTTPResponse(statusCode: 404) })
        parAnswer.withLock { $0 = pushing() }
    }

    /// A provider with a device authorization endpoint (unless `deviceEndpoint` is `false`) whose
    /// token endpoint answers `steps` in order, the last one again when they run out.
    public convenience init(
        deviceEndpoint: Bool = true, deviceAnswer: HTTPResponse = ScriptedOpenIDProvider.deviceAnswer(), steps: [Step]
    ) {
        self.init(endpoints: .standard(device: deviceEndpoint), deviceAnswer: deviceAnswer)
        script(steps)
    }

    /// Makes the token endpoint answer `steps` in order, the last one again when they run out
    /// (no answer at all when there are none).
    public func script(_ steps: [Step]) {
        let queue = LockedValue(steps)
        tokenAnswer.withLock {
            $0 = { _ in
                switch queue.withLock({ $0.count > 1 ? $0.removeFirst() : $0.first }) {
                case .answer(let response)?: return response
                case .noAnswer?, nil: throw URLError(.timedOut)
                }
            }
        }
    }

    /// Every request so far, in order.
    public var requests: [HTTPRequest] { received.current }
    /// The requests to `path`.
    public func requests(to path: String) -> [HTTPRequest] { requests.filter { $0.url.path == path } }
    /// The form bodies sent to `path`, as text.
    public func forms(to path: String) -> [String] { requests(to: path).map(Self.body) }
    /// How many requests went to `path`.
    public func count(_ path: String) -> Int { requests(to: path).count }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let response = try answer(request) { return response }
        if let fallback { return try await fallback.send(request) }
        return HTTPResponse(statusCode: 404)
    }

    /// The answer to `request`, at once; `nil` when the request is for ``fallback`` (or nobody:
    /// ``send(_:)`` then answers 404).
    public func answer(_ request: HTTPRequest) throws -> HTTPResponse? {
        received.withLock { $0.append(request) }
        let path = request.url.path
        func serves(_ endpoint: String?) -> Bool { endpoint.flatMap { URL(string: $0)?.path } == path }
        if serves(endpoints.discovery) {
            return discoveryFails.current ? HTTPResponse(statusCode: 500) : Self.json(200, discovery)
        }
        if serves(endpoints.jwks) {
            return Self.json(200, jwks.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] })
        }
        if serves(endpoints.device) { return deviceAnswer.current }
        if serves(endpoints.revocation) { return try revokeAnswer.current() }
        if serves(endpoints.registration) { return try registrationAnswer.current(request) }
        if serves(endpoints.par) { return try parAnswer.current(request) }
        if serves(endpoints.token) {
            let form = Self.body(request)
            let grantType = form.split(separator: "&").first { $0.hasPrefix("grant_type=") }.map {
                String($0.dropFirst("grant_type=".count))
            }
            let exchange = TokenExchange(request: request, form: form, grantType: grantType, nonce: nonce.current)
            if let response = try tokenAnswer.current(exchange) { return response }
        }
        return nil
    }

    /// The body of `request` as text.
    public static func body(_ request: HTTPRequest?) -> String {
        String(decoding: request?.body ?? Data(), as: UTF8.self)
    }

    public static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }
}

// MARK: Pushed authorization requests

extension ScriptedOpenIDProvider {
    /// The PAR endpoint as RFC 9126 §2.2 has it: keeps each pushed form under a fresh
    /// `urn:ietf:params:oauth:request_uri:…` (or what `requestURI` makes of the push's number) and
    /// answers 201 with it and `expiresIn`.
    public func pushing(
        expiresIn: String = "60",
        requestURI: @escaping @Sendable (Int) -> String = {
            "urn:ietf:params:oauth:request_uri:pushed-\($0)"
        }
    ) -> @Sendable (HTTPRequest) -> HTTPResponse {
        let count = LockedValue(0)
        return { [pushed] request in
            let number = count.withLock {
                $0 += 1
                return $0
            }
            let uri = requestURI(number)
            pushed.withLock { $0[uri] = ScriptedOpenIDProvider.body(request) }
            return ScriptedOpenIDProvider.json(201, "{\"request_uri\":\"\(uri)\",\"expires_in\":\(expiresIn)}")
        }
    }

    /// The pushed form behind `requestURI`, taken out (a `request_uri` is good once); `nil` when
    /// none was pushed under it or it was used.
    public func takePushed(_ requestURI: String) -> [URLQueryItem]? {
        guard let form = pushed.withLock({ $0.removeValue(forKey: requestURI) }) else { return nil }
        var components = URLComponents()
        components.percentEncodedQuery = form
        return components.queryItems ?? []
    }
}

// MARK: Token answers

extension ScriptedOpenIDProvider {
    /// A token answer carrying `idToken` (none when empty).
    public static func answer(idToken: String, refresh: String? = "web-refresh-1", access: String = "web-access-1")
        -> HTTPResponse
    {
        var body =
            "{\"token_type\":\"bearer\",\"expires_in\":3600,\"access_token\":\"\(access)\",\"id_token\":\"\(idToken)\""
        if let refresh { body += ",\"refresh_token\":\"\(refresh)\"" }
        body += "}"
        return json(200, body)
    }

    /// ID token claims as a browser sign-in gets them, for the nonce the browser saw.
    public static func claims(
        nonce: String, iss: String = issuer, aud: String = "\"web-app\"", sub: String? = "user-1",
        exp: Int = 1_800_003_600, iat: Int = 1_800_000_000, extra: String = ""
    ) -> String {
        var fields = [
            "\"iss\":\"\(iss)\"", "\"aud\":\(aud)", "\"exp\":\(exp)", "\"iat\":\(iat)", "\"nonce\":\"\(nonce)\"",
            "\"preferred_username\":\"ada@example.com\"",
        ]
        if let sub { fields.append("\"sub\":\"\(sub)\"") }
        if !extra.isEmpty { fields.append(extra) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// Answers every authorization-code exchange with an ID token signed over ``claims(nonce:iss:aud:sub:exp:iat:extra:)``
    /// for the nonce the browser saw, and `refresh` as the refresh token.
    public static func signingIn(refresh: String? = "web-refresh-1") -> @Sendable (TokenExchange) -> HTTPResponse? {
        { exchange in answer(idToken: WebTestSigner.token(claims: claims(nonce: exchange.nonce)), refresh: refresh) }
    }
}

// MARK: Device authorization

extension ScriptedOpenIDProvider {
    public static let deviceCode = "dc-SECRET-4f2BYdoEEUFwAfY7"
    public static let userCode = "WDJB-MJHT"
    public static let accessToken = "device-access-SECRET-1"
    public static let refreshToken = "device-refresh-SECRET-1"

    /// A device authorization answer; `nil` leaves a field out.
    public static func deviceAnswer(
        deviceCode: String? = ScriptedOpenIDProvider.deviceCode, userCode: String? = ScriptedOpenIDProvider.userCode,
        verificationURI: String? = "https://login.example.com/device", expiresIn: String? = "600",
        interval: String? = "5", extra: String = ""
    ) -> HTTPResponse {
        var fields: [String] = []
        if let deviceCode { fields.append("\"device_code\":\"\(deviceCode)\"") }
        if let userCode { fields.append("\"user_code\":\"\(userCode)\"") }
        if let verificationURI { fields.append("\"verification_uri\":\"\(verificationURI)\"") }
        if let expiresIn { fields.append("\"expires_in\":\(expiresIn)") }
        if let interval { fields.append("\"interval\":\(interval)") }
        if !extra.isEmpty { fields.append(extra) }
        return json(200, "{" + fields.joined(separator: ",") + "}")
    }

    /// The token endpoint's OAuth error answer.
    public static func error(_ code: String, status: Int = 400) -> Step {
        .answer(json(status, "{\"error\":\"\(code)\"}"))
    }

    public static let pending = error("authorization_pending")
    public static let slowDown = error("slow_down")

    /// Signed ID token claims as a device flow issues them (no `nonce`).
    public static func deviceClaims(aud: String = "\"web-app\"", sub: String = "user-7") -> String {
        """
        {"iss":"\(issuer)","aud":\(aud),"sub":"\(sub)","exp":1800003600,"iat":1800000000,\
        "preferred_username":"grace@example.com"}
        """
    }

    /// A device flow's token answer with an ID token signed over `idTokenClaims`; `nil` sends none.
    public static func success(idTokenClaims: String? = deviceClaims()) -> Step {
        var body = "{\"token_type\":\"Bearer\",\"expires_in\":3600,\"access_token\":\"\(accessToken)\","
        body += "\"refresh_token\":\"\(refreshToken)\",\"scope\":\"openid offline_access\""
        if let idTokenClaims { body += ",\"id_token\":\"\(WebTestSigner.token(claims: idTokenClaims))\"" }
        body += "}"
        return .answer(json(200, body))
    }
}

/// A browser that signs in at once: it keeps the authorization URL it was shown, tells the
/// provider the nonce and login hint in it, and comes back to the redirect URI with `code` and
/// the request's `state` (or another, to test the check), or is closed by the user.
public final class InstantAgent: ExternalUserAgent, Sendable {
    public let provider: ScriptedOpenIDProvider
    public let state: String?
    public let cancel: Bool
    public let code: String
    private let shown = LockedValue<[URL]>([])

    public init(provider: ScriptedOpenIDProvider, state: String? = nil, cancel: Bool = false, code: String = "the-code")
    {
        self.provider = provider
        self.state = state
        self.cancel = cancel
        self.code = code
    }

    /// Every authorization URL shown so far.
    public var shownURLs: [URL] { shown.current }

    /// The values of `name` in every URL shown so far.
    public func values(_ name: String) -> [String] {
        shownURLs.compactMap { url in
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
        }
    }

    public func authorize(url: URL, redirectURI: URL) async throws -> URL {
        shown.withLock { $0.append(url) }
        if cancel { throw ExternalUserAgentError.cancelled }
        var items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        // A pushed request (RFC 9126 §4): the provider reads its parameters by `request_uri`. One
        // it does not know, or knows as used, leaves the browser on an error page.
        if let requestURI = items.first(where: { $0.name == "request_uri" })?.value {
            guard let pushed = provider.takePushed(requestURI) else {
                throw TestFailure("the provider knows no pushed request \(requestURI)")
            }
            items = pushed
        }
        let value = { (name: String) in items.first { $0.name == name }?.value }
        provider.nonce.withLock { $0 = value("nonce") ?? "" }
        provider.loginHint.withLock { $0 = value("login_hint") }
        var callback = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        callback?.queryItems = [
            URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state ?? value("state") ?? ""),
        ]
        return callback?.url ?? redirectURI
    }
}
