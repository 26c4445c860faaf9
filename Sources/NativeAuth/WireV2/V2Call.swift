import Foundation

/// One request of native authentication V2, with everything it sends (Docs/NativeAuthV2Protocol.md).
///
/// Start, resume and the token exchange go to fixed paths under the authority; every other call
/// goes to a ``V2Link`` the resolver made from the current answer. Secrets travel as ``Secret``
/// so that no rendering of a call can show them.
enum V2Call: Sendable {
    /// Step 1, form: `client_id` ("Step 1: start authorization").
    case startAuthorization
    /// Step 3, form: `continuation_token` only ("Step 3: resume authorization, the code").
    case resumeAuthorization(continuationToken: Secret)
    /// Step 2, JSON: `username`, `continuationToken` ("Step 2: start a journey").
    case startSignIn(V2Link, username: String, continuationToken: Secret)
    /// Step 2, JSON: `continuationToken` only.
    case startSignUp(V2Link, continuationToken: Secret)
    /// Step 2, JSON: `username`, `continuationToken`.
    case startResetPassword(V2Link, username: String, continuationToken: Secret)
    /// JSON: `continuationToken` ("Interaction requests").
    case challenge(V2Link, continuationToken: Secret)
    /// JSON: `continuationToken`.
    case resend(V2Link, continuationToken: Secret)
    /// JSON: `continuationToken`, `otp`.
    case verifyCode(V2Link, continuationToken: Secret, code: Secret)
    /// JSON: `continuationToken`, `password`.
    case verifyPassword(V2Link, continuationToken: Secret, password: Secret)
    /// JSON, **PUT**: `continuationToken`, `newPassword`.
    case updatePassword(V2Link, continuationToken: Secret, newPassword: Secret)
    /// JSON: `continuationToken`.
    case poll(V2Link, continuationToken: Secret)
    /// JSON: `continuationToken`, to the password method's `recover` link: inline password reset
    /// inside a sign-in ("Link relations"; the body is the SDK's choice, see "Inline password reset").
    case recover(V2Link, continuationToken: Secret)
    /// JSON: `continuationToken`, to the `riskverify` link of an answer to an SMS method's
    /// `challenge` ("Risk verification"; the body is the SDK's choice, see there).
    case riskVerify(V2Link, continuationToken: Secret)
    /// JSON: `continuationToken`, `attributes` (an object: attribute id → value). A sign-up's
    /// password travels as the `password` attribute, kept a ``Secret`` until the body is written.
    case submitAttributes(V2Link, continuationToken: Secret, attributes: [String: JSONValue], password: Secret? = nil)
    /// JSON: `continuationToken`, `target` (the contact to register), to a method's `enroll` link
    /// ("Registering a method (JIT)").
    case enroll(V2Link, continuationToken: Secret, target: String)
    /// JSON: `continuationToken`, `code` (not `otp`: the source sends the code of an activation as
    /// `code`), to the `activate` link.
    case activate(V2Link, continuationToken: Secret, code: Secret)
    /// Step 4, form: `grant_type=authorization_code`, `code`, `client_id`, `client_info=true`,
    /// `scope` when there are scopes, `claims` when given ("Step 4: the token exchange, and PKCE").
    case exchangeCode(code: Secret, scopes: [String], claims: String?)

    /// Which answer the call gets, for ``V2Outcome/init(_:to:)``.
    var answerKind: V2AnswerKind {
        switch self {
        case .startAuthorization: .startAuthorization
        case .resumeAuthorization: .resumeAuthorization
        case .exchangeCode: .token
        case .startSignIn, .startSignUp, .startResetPassword, .challenge, .resend, .verifyCode, .verifyPassword,
            .updatePassword, .poll, .recover, .riskVerify, .submitAttributes, .enroll, .activate:
            .interaction
        }
    }

    /// What the call asks: the link relation it follows, or the fixed endpoint's name. V2's error
    /// catalogue is keyed by it (``ServerError/v2Kind(asked:)``).
    var asked: String {
        switch self {
        case .startAuthorization, .resumeAuthorization: "authorize-challenge"
        case .exchangeCode: "token"
        case .startSignIn: "sign_in"
        case .startSignUp: "sign_up"
        case .startResetPassword: "reset_password"
        case .verifyCode, .verifyPassword: "verify"
        case .updatePassword: "update"
        case .challenge: "challenge"
        case .resend: "resend"
        case .poll: "poll"
        case .recover: "recover"
        case .riskVerify: "riskverify"
        case .submitAttributes: "submitAttributes"
        case .enroll: "enroll"
        case .activate: "activate"
        }
    }

    /// A name for logs and metrics; never a URL or a value.
    var name: String {
        switch self {
        case .startAuthorization: "authorize-challenge"
        case .resumeAuthorization: "authorize-challenge (resume)"
        case .startSignIn: "sign-in start"
        case .startSignUp: "sign-up start"
        case .startResetPassword: "reset-password start"
        case .challenge: "challenge"
        case .resend: "resend"
        case .verifyCode: "verify (code)"
        case .verifyPassword: "verify (password)"
        case .updatePassword: "update"
        case .poll: "poll"
        case .recover: "recover"
        case .riskVerify: "riskverify"
        case .submitAttributes: "submitAttributes"
        case .enroll: "enroll"
        case .activate: "activate"
        case .exchangeCode: "token"
        }
    }
}

/// The answers V2 gives, by the call that gets them.
enum V2AnswerKind: Sendable, Equatable {
    /// The 401 of step 1, flat OAuth.
    case startAuthorization
    /// The HAL envelope of a journey start or an interaction.
    case interaction
    /// The `code` of step 3.
    case resumeAuthorization
    /// The OAuth token answer of step 4.
    case token
}

/// A V2 request body: its bytes, and its field names for logs.
struct V2Body: Sendable, Equatable {
    let data: Data
    let contentType: String
    let fieldNames: [String]

    /// A form body.
    init(form: FormBody) {
        data = form.encoded
        contentType = "application/x-www-form-urlencoded"
        fieldNames = form.names
    }

    /// A JSON object body. Keys are written sorted (``JSONValue/description``), so the same call
    /// always sends the same bytes.
    init(json members: [String: JSONValue]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(members.values.reduce(64) { $0 + ($1.stringValue?.utf8.count ?? 16) + 24 })
        JSONValue.object(members).write(into: &bytes)
        data = Data(bytes)
        contentType = "application/json"
        fieldNames = members.sortedKeys
    }
}

/// Builds the HTTP request of each ``V2Call``, with the headers of the V1 requests
/// (``RequestBuilder/headers(correlationId:)``: correlation id, client SKU and version, the app's
/// custom headers) and the content type of its body.
struct V2RequestBuilder: Sendable {
    static let authorizeChallengePath = "oauth2/v2.0/authorize-challenge"
    static let tokenPath = "oauth2/v2.0/token"

    let base: RequestBuilder

    init(configuration: NativeAuthConfiguration) {
        base = RequestBuilder(configuration: configuration)
        resolver = V2HrefResolver(authority: base.authority, dataCenter: configuration.sliceConfig?.dc)
        let dc = [(name: "dc", value: configuration.sliceConfig?.dc)]
        authorizeChallengeURL = SliceConfig.appending(
            dc, to: base.authority.appendingPathComponent(Self.authorizeChallengePath, isDirectory: false))
        tokenURL = SliceConfig.appending(
            dc, to: base.authority.appendingPathComponent(Self.tokenPath, isDirectory: false))
    }

    /// `authorize-challenge` and the token endpoint, with the configured `dc` as MSAL adds it to
    /// its fixed V2 endpoints (Docs/NativeAuthV2Protocol.md, "The slice parameters").
    private let authorizeChallengeURL: URL
    private let tokenURL: URL

    var clientId: String { base.clientId }
    var authority: URL { base.authority }

    /// The resolver for hrefs of this authority's answers.
    let resolver: V2HrefResolver

    func body(for call: V2Call) -> V2Body {
        var form = FormBody()
        switch call {
        case .startAuthorization:
            form.add("client_id", clientId)
        case .resumeAuthorization(let token):
            form.add("continuation_token", secret: token)
        case .exchangeCode(let code, let scopes, let claims):
            form.add("grant_type", "authorization_code")
            form.add("code", secret: code)
            form.add("client_id", clientId)
            form.add("client_info", "true")
            form.add("scope", Self.scopeField(scopes))
            form.add("claims", claims.flatMap { $0.isEmpty ? nil : $0 })
        case .startSignIn(_, let username, let token), .startResetPassword(_, let username, let token):
            return V2Body(json: ["username": .string(username), "continuationToken": .string(token.reveal)])
        case .startSignUp(_, let token), .challenge(_, let token), .resend(_, let token), .poll(_, let token),
            .recover(_, let token), .riskVerify(_, let token):
            return V2Body(json: ["continuationToken": .string(token.reveal)])
        case .verifyCode(_, let token, let code):
            return V2Body(json: ["continuationToken": .string(token.reveal), "otp": .string(code.reveal)])
        case .verifyPassword(_, let token, let password):
            return V2Body(json: ["continuationToken": .string(token.reveal), "password": .string(password.reveal)])
        case .updatePassword(_, let token, let password):
            return V2Body(json: ["continuationToken": .string(token.reveal), "newPassword": .string(password.reveal)])
        case .enroll(_, let token, let target):
            return V2Body(json: ["continuationToken": .string(token.reveal), "target": .string(target)])
        case .activate(_, let token, let code):
            return V2Body(json: ["continuationToken": .string(token.reveal), "code": .string(code.reveal)])
        case .submitAttributes(_, let token, var attributes, let password):
            if let password { attributes["password"] = .string(password.reveal) }
            return V2Body(json: ["continuationToken": .string(token.reveal), "attributes": .object(attributes)])
        }
        return V2Body(form: form)
    }

    /// The scopes, split on spaces and de-duplicated in order; `nil` (no `scope` field) when there
    /// are none. The engine adds the scopes it needs (as ``RequestBuilder/scopeField(_:)`` does
    /// for V1); the wire sends what it is given.
    static func scopeField(_ scopes: [String]) -> String? {
        var seen = Set<String>()
        let merged = scopes.flatMap { $0.split(separator: " ").map(String.init) }.filter { seen.insert($0).inserted }
        return merged.isEmpty ? nil : merged.joined(separator: " ")
    }

    func url(for call: V2Call) -> URL {
        switch call {
        case .startAuthorization, .resumeAuthorization: authorizeChallengeURL
        case .exchangeCode: tokenURL
        case .startSignIn(let link, _, _), .startSignUp(let link, _), .startResetPassword(let link, _, _),
            .challenge(let link, _), .resend(let link, _), .verifyCode(let link, _, _),
            .verifyPassword(let link, _, _), .updatePassword(let link, _, _), .poll(let link, _),
            .recover(let link, _), .riskVerify(let link, _), .submitAttributes(let link, _, _, _),
            .enroll(let link, _, _),
            .activate(let link, _, _):
            link.url
        }
    }

    func method(for call: V2Call) -> String {
        if case .updatePassword = call { return "PUT" }
        return "POST"
    }

    func request(for call: V2Call, correlationId: UUID) -> HTTPRequest {
        request(for: call, body: body(for: call), correlationId: correlationId)
    }

    /// The request of `call` with its `body` already built.
    func request(for call: V2Call, body: V2Body, correlationId: UUID) -> HTTPRequest {
        var headers = base.headers(correlationId: correlationId)
        headers["Content-Type"] = body.contentType
        return HTTPRequest(method: method(for: call), url: url(for: call), headers: headers, body: body.data)
    }
}
