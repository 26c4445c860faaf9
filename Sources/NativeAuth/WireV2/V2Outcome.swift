import Foundation

/// The answer of step 1 (Docs/NativeAuthV2Protocol.md, "Step 1: start authorization"): a continuation
/// token and the journey links, hrefs not yet resolved.
///
/// Read as tolerantly as any of the three MSAL clients: the token as `continuation_token` or
/// `continuationToken`; each link under `_links` (relations `signIn`, `signUp`, `resetPassword`,
/// or their snake_case spellings) first, as [Android] and [iOS] let `_links` win, else at the top
/// level (`sign_in`, `sign_up`, `reset_password`, or `resetPassword` as [Reset] spells it). This is
/// safe because no href is called before ``V2HrefResolver`` checked it.
/// A class: it never changes once read, and its fields are shared rather than copied.
final class V2StartAnswer: Sendable, Equatable {
    let continuationToken: Secret
    let signIn: String?
    let signUp: String?
    let resetPassword: String?

    /// `nil` unless the answer has a token and at least one journey link: as in [JS] and
    /// [Android], that pair, not the `error` value, makes the answer a continuation.
    init?(_ object: WireObject) {
        guard let token = object.token(snakeFirst: true) else { return nil }
        let links = V2Links(object.object("_links"))
        func link(_ camel: String, _ snake: String) -> String? {
            links[camel] ?? links[snake] ?? object.members[camel].flatMap(V2Links.href)
                ?? object.members[snake].flatMap(V2Links.href)
        }
        continuationToken = token
        signIn = link("signIn", "sign_in")
        signUp = link("signUp", "sign_up")
        resetPassword = link("resetPassword", "reset_password")
        guard signIn != nil || signUp != nil || resetPassword != nil else { return nil }
    }

    static func == (lhs: V2StartAnswer, rhs: V2StartAnswer) -> Bool {
        lhs.continuationToken == rhs.continuationToken && lhs.signIn == rhs.signIn && lhs.signUp == rhs.signUp
            && lhs.resetPassword == rhs.resetPassword
    }
}

/// What one V2 call came to: every answer, typed, so that the engine switches over it and never
/// reads a body itself (the V2 counterpart of ``StepOutcome``).
/// Indirect: a value is one reference to its case's fields, so copying it, and the code
/// that copies and destroys it, stay small.
indirect enum V2Outcome: Sendable {
    /// Step 1 answered with a token and the journey links.
    case started(V2StartAnswer)
    /// `state: interactionRequired` with a known `action`, a continuation token and the link the
    /// action is followed by.
    case interaction(V2Envelope)
    /// `state: continue`: the journey is done; resume authorization with the token. `continueHref`
    /// is the `continue` link when the answer gave one.
    case journeyComplete(continuationToken: Secret, continueHref: String?)
    /// Step 3 issued the authorization code.
    case authorizationCode(Secret)
    /// Step 4 issued tokens.
    case tokens(TokenAnswer)
    /// `state: webFallbackRequired` or the error `redirect_to_web`: finish in a browser.
    case browserRequired(reason: String?)
    /// `interactionRequired` with an action this version does not know ([Android]'s
    /// `UnsupportedAction`, an error of its own kind).
    case unsupportedAction(String)
    /// A `state` this version does not know.
    case unknownState(String)
    /// An answer V2 does not give: the wrong status, not JSON, a required member missing.
    case malformed(UnexpectedAnswer)
    /// An error answer.
    case refused(ServerError)

    /// Reads `response` as the answer of a call of `kind`. Never traps, whatever the body.
    init(_ response: HTTPResponse, to kind: V2AnswerKind) {
        let status = response.statusCode
        func malformed(_ problem: UnexpectedAnswer.Problem) -> Self { Self.malformed(problem, response) }
        guard response.body.count <= RequestPipeline.maximumBodySize else {
            self = malformed(.tooLarge)
            return
        }
        guard !response.body.isEmpty else {
            self = malformed((200...299).contains(status) ? .emptyBody : .status)
            return
        }
        guard let parsed = try? JSONValue.parse(response.body) else {
            self = malformed(.notJSON)
            return
        }
        guard let members = parsed.objectValue else {
            self = malformed(.notAnObject)
            return
        }
        let object = WireObject(members)
        let error = ServerError(v2Status: status, object: object)
        // Checked before anything else, on every answer, as [Android] does.
        if object.string("state").map(V2State.init(wire:)) == .webFallbackRequired {
            self = .browserRequired(reason: nil)
            return
        }
        if let error, error.isBrowserRequired {
            self = .browserRequired(reason: error.errorDescription)
            return
        }
        switch (kind, status) {
        case (.startAuthorization, 401), (.startAuthorization, 200...299):
            if let answer = V2StartAnswer(object) {
                self = .started(answer)
            } else if let error, !error.namesFolded("InsufficientAuthorization") {
                self = .refused(error)
            } else {
                self = malformed(
                    .missingField(object.token(snakeFirst: true) == nil ? "continuation_token" : "sign_in"))
            }
        case (_, 200...299):
            if let error, object.members["state"] == nil {
                self = .refused(error)
            } else {
                self = Self.success(object, response: response, kind: kind)
            }
        case (_, 400...599):
            if let error {
                self = .refused(error)
            } else {
                self = malformed(status < 500 ? .missingField("error") : .status)
            }
        default:
            self = malformed(.status)
        }
    }

    /// The malformed outcome of `response`, for `problem`.
    private static func malformed(_ problem: UnexpectedAnswer.Problem, _ response: HTTPResponse) -> Self {
        var answer = UnexpectedAnswer(
            status: response.statusCode, contentType: response.header("Content-Type"), problem: problem,
            bodyLength: response.body.count)
        answer.retryAfterHeader = response.header("Retry-After")
        return .malformed(answer)
    }

    private static func success(_ object: WireObject, response: HTTPResponse, kind: V2AnswerKind) -> Self {
        func malformed(_ problem: UnexpectedAnswer.Problem) -> Self { Self.malformed(problem, response) }
        switch kind {
        case .startAuthorization:
            return malformed(.status)
        case .token:
            do {
                return .tokens(try TokenAnswer(object, headers: response))
            } catch .unexpected(let answer) {
                return malformed(answer.problem)
            } catch {
                return malformed(.status)
            }
        case .resumeAuthorization:
            // [Android] also reads `authorizationCode`, and [Draft] §5.2.1 names the code
            // `authorization_code`; what a resume answer asking for more interaction looks like is
            // not described, so one with a `state` is read as HAL.
            for name in ["code", "authorizationCode", "authorization_code"] {
                if let code = object.string(name), !code.isEmpty { return .authorizationCode(Secret(code)) }
            }
            guard object.members["state"] != nil else { return malformed(.missingField("code")) }
            return envelope(V2Envelope(object), response)
        case .interaction:
            return envelope(V2Envelope(object), response)
        }
    }

    /// The outcome of a HAL answer, with the rules of Docs/NativeAuthV2Protocol.md, "`state` and `action`".
    static func envelope(_ envelope: V2Envelope, _ response: HTTPResponse) -> Self {
        func malformed(_ problem: UnexpectedAnswer.Problem) -> Self { Self.malformed(problem, response) }
        switch envelope.state {
        case nil:
            return malformed(.missingField("state"))
        case .webFallbackRequired:
            return .browserRequired(reason: nil)
        case .unknown(let value):
            return .unknownState(value)
        case .continue:
            guard let token = envelope.continuationToken else { return malformed(.missingField("continuationToken")) }
            return .journeyComplete(continuationToken: token, continueHref: envelope.links["continue"])
        case .interactionRequired:
            guard let action = envelope.action else { return malformed(.missingField("action")) }
            guard let relation = action.relation else {
                if case .unknown(let value) = action { return .unsupportedAction(value) }
                return malformed(.missingField("action"))
            }
            // [Android] rejects a non-`continue` answer without a token.
            guard envelope.continuationToken != nil else { return malformed(.missingField("continuationToken")) }
            guard envelope.offers(relation) else { return malformed(.missingField("_links.\(relation)")) }
            if action == .collectAttributes, envelope.attributes.isEmpty { return malformed(.emptyList("attributes")) }
            return .interaction(envelope)
        }
    }
}
