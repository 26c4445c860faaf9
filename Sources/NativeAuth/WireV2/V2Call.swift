import Foundation

/// One request of native authentication V2, with everything it sends
/// (Docs/NativeAuthV2Protocol.md, "What the SDK reads and sends"): where it goes, how, and its
/// fields in order. Each request is made by its factory below, which cites its source.
///
/// Start, resume and the token exchange go to fixed paths under the authority; every other call
/// goes to a ``V2Link`` the resolver made from the current answer. Secrets travel as ``Secret``
/// so that no rendering of a call can show them.
///
/// A class: built once and only read, a call is one reference in the async steps that carry it.
final class V2Call: Sendable {
    /// Its only payload is a class reference, so a value is one word.
    enum Target: Sendable { case authorizeChallenge, token, link(V2Link) }

    /// A field's value; written only when the body is (``V2RequestBuilder/body(for:)``).
    enum Field: Sendable {
        case text(String)
        case secret(Secret)
        /// The client's id, which the builder knows.
        case clientId
        /// An object (a sign-up's attributes), with the password as its `password` member.
        case attributes([String: JSONValue], password: Secret?)
    }

    /// A name for logs and metrics; never a URL or a value.
    let name: String
    /// What the call asks: the link relation it follows, or the fixed endpoint's name. V2's error
    /// catalogue is keyed by it (``ServerError/v2Kind(asked:)``).
    let asked: String
    let target: Target
    /// Which answer the call gets, for ``V2Outcome/init(_:to:)``.
    let answerKind: V2AnswerKind
    /// A form body (the fixed endpoints), else JSON.
    let isForm: Bool
    let method: String
    /// The fields, in the order they are written; a `nil` value is left out.
    let fields: KeyValuePairs<String, Field?>

    init(
        name: String, asked: String, target: Target, answerKind: V2AnswerKind, isForm: Bool = false,
        method: String = "POST", fields: KeyValuePairs<String, Field?>
    ) {
        self.name = name
        self.asked = asked
        self.target = target
        self.answerKind = answerKind
        self.isForm = isForm
        self.method = method
        self.fields = fields
    }

    /// JSON `continuationToken` and `extra` to `link`, the interaction requests' shape ("Interaction
    /// requests").
    private static func follow(
        _ link: V2Link, _ name: String, asked: String? = nil, method: String = "POST", token: Secret,
        _ extra: (String, Field)? = nil
    ) -> V2Call {
        let fields: KeyValuePairs<String, Field?> =
            if let extra { ["continuationToken": .secret(token), extra.0: extra.1] } else {
                ["continuationToken": .secret(token)]
            }
        return V2Call(
            name: name, asked: asked ?? name, target: .link(link), answerKind: .interaction, method: method,
            fields: fields)
    }

    /// Step 1, form: `client_id` ("Step 1: start authorization").
    static let startAuthorization = V2Call(
        name: "authorize-challenge", asked: "authorize-challenge", target: .authorizeChallenge,
        answerKind: .startAuthorization, isForm: true, fields: ["client_id": .clientId])
    /// Step 3, form: `continuation_token` only ("Step 3: resume authorization, the code").
    static func resumeAuthorization(continuationToken: Secret) -> V2Call {
        V2Call(
            name: "authorize-challenge (resume)", asked: "authorize-challenge", target: .authorizeChallenge,
            answerKind: .resumeAuthorization, isForm: true, fields: ["continuation_token": .secret(continuationToken)])
    }
    /// Step 2, JSON: `username`, `continuationToken` ("Step 2: start a journey").
    static func startSignIn(_ link: V2Link, username: String, continuationToken: Secret) -> V2Call {
        follow(link, "sign-in start", asked: "sign_in", token: continuationToken, ("username", .text(username)))
    }
    /// Step 2, JSON: `continuationToken` only.
    static func startSignUp(_ link: V2Link, continuationToken: Secret) -> V2Call {
        follow(link, "sign-up start", asked: "sign_up", token: continuationToken)
    }
    /// Step 2, JSON: `username`, `continuationToken`.
    static func startResetPassword(_ link: V2Link, username: String, continuationToken: Secret) -> V2Call {
        follow(
            link, "reset-password start", asked: "reset_password", token: continuationToken,
            ("username", .text(username)))
    }
    /// JSON: `continuationToken` ("Interaction requests").
    static func challenge(_ link: V2Link, continuationToken: Secret) -> V2Call {
        follow(link, "challenge", token: continuationToken)
    }
    /// JSON: `continuationToken`.
    static func resend(_ link: V2Link, continuationToken: Secret) -> V2Call {
        follow(link, "resend", token: continuationToken)
    }
    /// JSON: `continuationToken`, `otp`.
    static func verifyCode(_ link: V2Link, continuationToken: Secret, code: Secret) -> V2Call {
        follow(link, "verify (code)", asked: "verify", token: continuationToken, ("otp", .secret(code)))
    }
    /// JSON: `continuationToken`, `password`.
    static func verifyPassword(_ link: V2Link, continuationToken: Secret, password: Secret) -> V2Call {
        follow(link, "verify (password)", asked: "verify", token: continuationToken, ("password", .secret(password)))
    }
    /// JSON, **PUT**: `continuationToken`, `newPassword`.
    static func updatePassword(_ link: V2Link, continuationToken: Secret, newPassword: Secret) -> V2Call {
        follow(link, "update", method: "PUT", token: continuationToken, ("newPassword", .secret(newPassword)))
    }
    /// JSON: `continuationToken`.
    static func poll(_ link: V2Link, continuationToken: Secret) -> V2Call {
        follow(link, "poll", token: continuationToken)
    }
    /// JSON: `continuationToken`, to the password method's `recover` link: inline password reset
    /// inside a sign-in ("Link relations"; the body is the SDK's choice, see "Inline password reset").
    static func recover(_ link: V2Link, continuationToken: Secret) -> V2Call {
        follow(link, "recover", token: continuationToken)
    }
    /// JSON: `continuationToken`, to the `riskverify` link of an answer to an SMS method's
    /// `challenge` ("Risk verification"; the body is the SDK's choice, as [JS] sends it).
    static func riskVerify(_ link: V2Link, continuationToken: Secret) -> V2Call {
        follow(link, "riskverify", token: continuationToken)
    }
    /// JSON: `continuationToken`, `attributes` (an object: attribute id → value). A sign-up's
    /// password travels as the `password` attribute, kept a ``Secret`` until the body is written.
    static func submitAttributes(
        _ link: V2Link, continuationToken: Secret, attributes: [String: JSONValue], password: Secret? = nil
    ) -> V2Call {
        follow(
            link, "submitAttributes", token: continuationToken,
            ("attributes", .attributes(attributes, password: password)))
    }
    /// JSON: `continuationToken`, `target` (the contact to register), to a method's `enroll` link
    /// ("Registering a method (JIT)"; [iOS-JIT] `registerMethod`).
    static func enroll(_ link: V2Link, continuationToken: Secret, target: String) -> V2Call {
        follow(link, "enroll", token: continuationToken, ("target", .text(target)))
    }
    /// JSON: `continuationToken`, `code` (not `otp`: the source sends the code of an activation as
    /// `code`), to the `activate` link.
    static func activate(_ link: V2Link, continuationToken: Secret, code: Secret) -> V2Call {
        follow(link, "activate", token: continuationToken, ("code", .secret(code)))
    }
    /// Step 4, form: `grant_type=authorization_code`, `code`, `client_id`, `client_info=true`,
    /// `scope` when there are scopes, `claims` when given ("Step 4: the token exchange, and PKCE").
    static func exchangeCode(code: Secret, scopes: [String], claims: String?) -> V2Call {
        V2Call(
            name: "token", asked: "token", target: .token, answerKind: .token, isForm: true,
            fields: [
                "grant_type": .text("authorization_code"), "code": .secret(code), "client_id": .clientId,
                "client_info": .text("true"), "scope": V2RequestBuilder.scopeField(scopes).map(Field.text),
                "claims": claims.flatMap { $0.isEmpty ? nil : .text($0) },
            ])
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
/// A class: it never changes once built, and its fields are shared rather than copied.
final class V2Body: Sendable {
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
/// A class: it never changes once built, and its fields are shared rather than copied.
final class V2RequestBuilder: Sendable {
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
        if call.isForm {
            var form = FormBody()
            for (name, field) in call.fields {
                if let value = field.flatMap(text) { form.add(name, value) }
            }
            return V2Body(form: form)
        }
        var members: [String: JSONValue] = [:]
        for (name, field) in call.fields {
            if case .attributes(var attributes, let password)? = field {
                if let password { attributes["password"] = .string(password.reveal) }
                members[name] = .object(attributes)
            } else if let value = field.flatMap(text) {
                members[name] = .string(value)
            }
        }
        return V2Body(json: members)
    }

    /// What a field that is one string sends: its text, the secret revealed, or the client's id.
    private func text(_ field: V2Call.Field) -> String? {
        switch field {
        case .text(let value): value
        case .secret(let value): value.reveal
        case .clientId: clientId
        case .attributes: nil
        }
    }

    /// The scopes, split on spaces and de-duplicated in order; `nil` (no `scope` field) when there
    /// are none. The engine adds the scopes it needs (as ``RequestBuilder/scopeField(_:)`` does
    /// for V1); the wire sends what it is given.
    static func scopeField(_ scopes: [String]) -> String? {
        let joined = RequestBuilder.joinedScopes(scopes)
        return joined.isEmpty ? nil : joined
    }

    func url(for call: V2Call) -> URL {
        switch call.target {
        case .authorizeChallenge: authorizeChallengeURL
        case .token: tokenURL
        case .link(let link): link.url
        }
    }

    func request(for call: V2Call, correlationId: UUID) -> HTTPRequest {
        request(for: call, body: body(for: call), correlationId: correlationId)
    }

    /// The request of `call` with its `body` already built.
    func request(for call: V2Call, body: V2Body, correlationId: UUID) -> HTTPRequest {
        var headers = base.headers(correlationId: correlationId)
        headers["Content-Type"] = body.contentType
        return HTTPRequest(method: call.method, url: url(for: call), headers: headers, body: body.data)
    }
}
