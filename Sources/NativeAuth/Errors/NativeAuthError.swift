public import Foundation

/// What every error of the SDK carries: what went wrong, the server's raw answer, the flow's
/// correlation id. Never a password, code or token.
public struct NativeAuthErrorDetails: Sendable {
    /// The fields, behind one reference: every error type of the SDK holds only this, so copying,
    /// storing and throwing an error moves one pointer.
    private var box: Box

    /// The fields as constants of a class, not as a struct, so that no code to copy or assign
    /// them is compiled: an amendment builds a new box.
    private final class Box: Sendable {
        let kind: ErrorKind
        let server: ServerError?
        let unexpected: UnexpectedAnswer?
        let note: String?
        let unhandledOutcome: (any Sendable)?
        let localInvalidAttributes: [String]
        let correlationId: UUID
        let underlyingError: (any Error)?
        let redirectReason: String?
        let stateConsumed: Bool
        let resetPending: Bool
        let challengeClaims: String?
        let browserContinuation: (any BrowserHandoff)?
        let endpoint: RequestEndpoint?
        let interaction: (any Sendable)?

        init(
            _ kind: ErrorKind, server: ServerError?, unexpected: UnexpectedAnswer?, note: String?,
            unhandledOutcome: (any Sendable)?, localInvalidAttributes: [String], correlationId: UUID,
            underlyingError: (any Error)?, redirectReason: String?, stateConsumed: Bool, resetPending: Bool,
            challengeClaims: String?, browserContinuation: (any BrowserHandoff)?, endpoint: RequestEndpoint?,
            interaction: (any Sendable)? = nil
        ) {
            self.interaction = interaction
            self.kind = kind
            self.server = server
            self.unexpected = unexpected
            self.note = note
            self.unhandledOutcome = unhandledOutcome
            self.localInvalidAttributes = localInvalidAttributes
            self.correlationId = correlationId
            self.underlyingError = underlyingError
            self.redirectReason = redirectReason
            self.stateConsumed = stateConsumed
            self.resetPending = resetPending
            self.challengeClaims = challengeClaims
            self.browserContinuation = browserContinuation
            self.endpoint = endpoint
        }

        /// A copy with the fields an error can be amended in given anew.
        func amended(
            kind: ErrorKind, stateConsumed: Bool, resetPending: Bool, challengeClaims: String?,
            browserContinuation: (any BrowserHandoff)?, endpoint: RequestEndpoint?
        ) -> Box {
            Box(
                kind, server: server, unexpected: unexpected, note: note, unhandledOutcome: unhandledOutcome,
                localInvalidAttributes: localInvalidAttributes, correlationId: correlationId,
                underlyingError: underlyingError, redirectReason: redirectReason, stateConsumed: stateConsumed,
                resetPending: resetPending, challengeClaims: challengeClaims,
                browserContinuation: browserContinuation, endpoint: endpoint, interaction: interaction)
        }
    }

    /// Amends a copy: errors are built once and rarely amended. Not inlined: one call per amendment.
    @inline(never)
    private mutating func amend(
        kind: ErrorKind? = nil, stateConsumed: Bool? = nil, resetPending: Bool? = nil,
        challengeClaims: String?? = nil, browserContinuation: (any BrowserHandoff)?? = nil,
        endpoint: RequestEndpoint?? = nil
    ) {
        box = box.amended(
            kind: kind ?? box.kind, stateConsumed: stateConsumed ?? box.stateConsumed,
            resetPending: resetPending ?? box.resetPending,
            challengeClaims: challengeClaims ?? box.challengeClaims,
            browserContinuation: browserContinuation ?? box.browserContinuation, endpoint: endpoint ?? box.endpoint)
    }

    var kind: ErrorKind {
        get { box.kind }
        set { amend(kind: newValue) }
    }
    var server: ServerError? { box.server }
    var unexpected: UnexpectedAnswer? { box.unexpected }
    /// A client-side note, such as which argument was empty.
    var note: String? { box.note }
    /// The outcome a delegate could not receive, when ``NativeAuthError/isMissingDelegateMethod`` is true.
    var unhandledOutcome: (any Sendable)? { box.unhandledOutcome }
    /// Attributes found invalid before any request.
    var localInvalidAttributes: [String] { box.localInvalidAttributes }
    /// The server had already moved past the state's continuation token when the action failed,
    /// so the state is spent whatever the failure.
    var stateConsumed: Bool {
        get { box.stateConsumed }
        set { amend(stateConsumed: .some(newValue)) }
    }
    /// The action failed while waiting for a submitted password reset, which goes on on the server.
    var resetPending: Bool {
        get { box.resetPending }
        set { amend(resetPending: .some(newValue)) }
    }
    /// A claims challenge from a resource's `WWW-Authenticate` header, decoded.
    var challengeClaims: String? {
        get { box.challengeClaims }
        set { amend(challengeClaims: .some(newValue)) }
    }
    /// What a browser sign-in needs to continue the flow, when the server asked for a browser.
    var browserContinuation: (any BrowserHandoff)? {
        get { box.browserContinuation }
        set { amend(browserContinuation: .some(newValue)) }
    }

    /// How the user goes on when the server asked for an interaction the SDK can carry on (a
    /// first-party provider's authorization challenge answering a refresh), typed where the
    /// layer that makes it reads it.
    var interaction: (any Sendable)? { box.interaction }

    /// The flow's correlation id: the `client-request-id` sent with every request of the flow.
    public var correlationId: UUID { box.correlationId }
    /// The error that caused this one, such as the transport's `URLError`.
    public var underlyingError: (any Error)? { box.underlyingError }
    /// The server's `redirect_reason`, when the server asked for a browser.
    public var redirectReason: String? { box.redirectReason }
    /// The endpoint of the request that got no answer (or that a request interceptor refused),
    /// when ``NativeAuthError/isNetworkError``; such as `oauth2/v2.0/token`.
    public internal(set) var endpoint: RequestEndpoint? {
        get { box.endpoint }
        set { amend(endpoint: .some(newValue)) }
    }

    init(
        _ kind: ErrorKind, correlationId: UUID, server: ServerError? = nil, unexpected: UnexpectedAnswer? = nil,
        underlyingError: (any Error)? = nil, redirectReason: String? = nil, note: String? = nil,
        unhandledOutcome: (any Sendable)? = nil, invalidAttributes: [String] = [], endpoint: RequestEndpoint? = nil,
        interaction: (any Sendable)? = nil
    ) {
        box = Box(
            kind, server: server, unexpected: unexpected, note: note, unhandledOutcome: unhandledOutcome,
            localInvalidAttributes: invalidAttributes, correlationId: correlationId, underlyingError: underlyingError,
            redirectReason: redirectReason, stateConsumed: false, resetPending: false, challengeClaims: nil,
            browserContinuation: nil, endpoint: endpoint, interaction: interaction)
    }

    /// The server's `error` value (such as `invalid_grant`), when the server answered with an error.
    public var error: String? { server?.error }
    /// The server's `suberror` value (such as `invalid_oob_value`).
    public var suberror: String? { server?.suberror }
    /// The server's `error_codes` (such as `[50126]`).
    public var errorCodes: [Int] { server?.errorCodes ?? [] }
    /// The server's `error_description`.
    public var errorDescription: String? { server?.errorDescription }
    /// The server's `trace_id`.
    public var traceId: String? { server?.traceId }
    /// The server's `correlation_id`, which should equal ``correlationId``.
    public var serverCorrelationId: String? { server?.correlationId }
    /// The HTTP status of the answer, when one came.
    public var httpStatusCode: Int? { server?.status ?? unexpected?.status }
    /// The `Content-Type` of an answer the SDK could not use.
    public var contentType: String? { unexpected?.contentType }
    /// Attributes the server named as invalid.
    public var invalidAttributes: [String] { server?.invalidAttributes ?? localInvalidAttributes }
    /// The claims request (JSON) the server or a resource asked for: pass it as `claims` to the
    /// next sign-in or ``UserAccountResult/getAccessToken(scopes:forceRefresh:claims:)``.
    public var claims: String? { challengeClaims ?? server?.claims }

    /// The plain-language sentence plus the client-side note, if any.
    var message: String {
        var text = kind.sentence
        if let note { text += " " + note }
        if let refusal = underlyingError as? RequestInterceptorError { text += " " + refusal.description }
        if let unexpected { text += " Received " + unexpected.summary + "." }
        if let redirectReason, !redirectReason.isEmpty { text += " Reason: \(redirectReason.prefix(200))." }
        return text
    }

    /// The description of an error of type `type` holding these details: its type, the
    /// plain-language description, the raw server fields and the correlation id.
    func description(of type: any NativeAuthError.Type) -> String { "\(type): \(message) [\(context)]" }

    /// The description plus the server's `error_description`.
    func debugDescription(of type: any NativeAuthError.Type) -> String {
        guard let errorDescription else { return description(of: type) }
        return description(of: type) + " server description: \(errorDescription.prefix(500))"
    }

    /// The raw server fields and the correlation id, on one line.
    var context: String {
        // Concatenations rather than interpolations: the same text in less code.
        var parts: [String] = []
        if let server {
            parts.append("error=" + server.error)
            if let suberror = server.suberror { parts.append("suberror=" + suberror) }
            if !server.errorCodes.isEmpty {
                parts.append("codes=" + server.errorCodes.map(String.init).joined(separator: ","))
            }
            parts.append("status=" + String(server.status))
        }
        if let endpoint { parts.append("endpoint=" + endpoint.name) }
        if let underlyingError { parts.append("cause=" + RequestPipeline.describe(underlyingError)) }
        parts.append("correlation-id=" + correlationId.uuidString.lowercased())
        return parts.joined(separator: " ")
    }
}

/// The common face of every error the SDK throws: raw server fields, the correlation id, and the
/// questions every step can answer. Each step's error type adds its own `isXxx` questions.
public protocol NativeAuthError: Error, LocalizedError, CustomStringConvertible, CustomDebugStringConvertible,
    Sendable
{
    /// Everything the error carries.
    var details: NativeAuthErrorDetails { get }
}

extension NativeAuthError {
    /// The error that caused this one (``NativeAuthErrorDetails/underlyingError``), such as the
    /// transport's `URLError`: the same question a ``WebSignInError`` answers, so one pattern
    /// reads both.
    public var underlyingError: (any Error)? { details.underlyingError }

    /// The server cannot continue natively: fall back to a browser-based sign-in
    /// (``NativeAuthErrorDetails/redirectReason`` says why).
    public var isBrowserRequired: Bool { details.kind == .browserRequired }
    /// The app is misconfigured for native authentication (`invalid_client`, `unauthorized_client`,
    /// `nativeauthapi_disabled`, a confidential client): a developer error, not a user error.
    public var isConfigurationError: Bool { details.kind == .configuration }
    /// No answer came from the server: no connection, a timeout, a reset. The state is still usable.
    public var isNetworkError: Bool { details.kind == .network }
    /// The task was cancelled. The state is still usable.
    public var isCancelled: Bool { details.kind == .cancelled }
    /// The server answered with something the API never gives (HTML, a 5xx, a missing field).
    public var isUnexpectedResponse: Bool { details.kind == .unexpectedResponse }
    /// The user does not exist, or no longer does (`user_not_found`, 50034).
    public var isUserNotFound: Bool { details.kind == .userNotFound }
    /// The flow expired (`expired_token`): start it again.
    public var isFlowExpired: Bool { details.kind == .flowExpired }
    /// The state was already used; nothing was sent.
    public var isStateAlreadyUsed: Bool { details.kind == .stateSpent }
    /// Another action on the same state is in flight; nothing was sent.
    public var isStateBusy: Bool { details.kind == .stateBusy }
    /// Whether the state the failed action was called on can be used again: the user can correct
    /// the input (a wrong code or password, refused attributes) or simply retry (a network failure,
    /// a cancellation). `false` when the flow cannot go on from that state and must start again.
    public var isStateStillUsable: Bool { details.kind.leavesStateUsable && !details.stateConsumed }
    /// The delegate lacks the optional method for the outcome; the outcome is kept in the error.
    public var isMissingDelegateMethod: Bool {
        if case .missingDelegateMethod = details.kind { return true }
        return false
    }

    /// The server's `error`, `suberror`, `error_codes`, `error_description`, as they came.
    public var serverError: String? { details.error }
    /// The server's `suberror`.
    public var serverSuberror: String? { details.suberror }
    /// The server's `error_codes`.
    public var errorCodes: [Int] { details.errorCodes }
    /// The server's `error_description`.
    public var serverErrorDescription: String? { details.errorDescription }
    /// The flow's correlation id.
    public var correlationId: UUID { details.correlationId }
    /// The server's `redirect_reason`, when ``isBrowserRequired``.
    public var redirectReason: String? { details.redirectReason }

    /// A plain-language description, followed by the raw server fields and the correlation id.
    public var description: String { details.description(of: Self.self) }
    /// The description plus the server's `error_description`.
    public var debugDescription: String { details.debugDescription(of: Self.self) }
    /// The plain-language description, for showing to a developer.
    public var errorDescription: String? { details.message }
}

/// An error type the SDK can build from details.
///
/// Each type declares the meanings it gives the server's errors (``naming``), once: the flow
/// engine keeps a server error raw, and the error is named where this type is made of it.
protocol DetailedError: NativeAuthError {
    init(details: NativeAuthErrorDetails)
    /// The meanings this type gives a server error, before the meanings every step shares
    /// (``ServerError/sharedKind``). None unless the type says.
    static var naming: ErrorNaming { get }
    /// The meanings this type gives a server error that `endpoint` answered: ``naming``, unless
    /// the type's steps read the same answer differently at different endpoints.
    static func naming(at endpoint: Endpoint) -> ErrorNaming
}

extension DetailedError {
    static var naming: ErrorNaming { .none }

    /// ``naming``, except for the list of methods the engine asks for after a token answer asks
    /// for a second factor or a registration: that call is no step's own, so no step names its
    /// errors.
    static func naming(at endpoint: Endpoint) -> ErrorNaming {
        switch endpoint {
        case .signInIntrospect, .registerIntrospect: .none
        default: naming
        }
    }

    init(_ kind: ErrorKind, correlationId: UUID, note: String? = nil) {
        self.init(details: NativeAuthErrorDetails(kind, correlationId: correlationId, note: note))
    }

    /// Maps a failed call that `endpoint` answered to this error type, naming a server error as
    /// this type names it there.
    init(_ failure: WireFailure, correlationId: UUID, from endpoint: Endpoint) {
        self.init(
            details: NativeAuthErrorDetails(failure, correlationId: correlationId, naming: Self.naming(at: endpoint)))
    }

    /// Maps a failed call to this error type; `serverKind` is the kind of its server error, if the
    /// error has one the step names.
    init(_ failure: WireFailure, correlationId: UUID, serverKind: ErrorKind?) {
        self.init(details: NativeAuthErrorDetails(failure, correlationId: correlationId, serverKind: serverKind))
    }

    var kind: ErrorKind { details.kind }
}

extension NativeAuthErrorDetails {
    /// The details of a failed call; `naming` names the kind of a server error for the step, the
    /// catalogue's shared meanings name the rest.
    init(_ failure: WireFailure, correlationId: UUID, naming: ErrorNaming) {
        var serverKind: ErrorKind?
        if case .server(let error) = failure { serverKind = naming.kind(of: error) }
        self.init(failure, correlationId: correlationId, serverKind: serverKind)
    }

    /// These details with their server error named by `naming` (the catalogue's shared meanings
    /// name the rest); details without a server error are returned as they are.
    func named(by naming: ErrorNaming) -> NativeAuthErrorDetails {
        guard let server else { return self }
        var details = self
        details.kind = Self.kind(of: server, serverKind: naming.kind(of: server))
        return details
    }

    /// The kind of a server error: configuration first, then the step's kind, then the shared meanings.
    private static func kind(of error: ServerError, serverKind: ErrorKind?) -> ErrorKind {
        error.isConfigurationError ? .configuration : serverKind ?? error.sharedKind
    }

    /// The details of a failed call; `serverKind` is the step's kind for its server error, the
    /// catalogue's shared meanings name the rest.
    init(_ failure: WireFailure, correlationId: UUID, serverKind: ErrorKind?) {
        // One call of the memberwise init, its arguments picked per case: a call per case was an
        // inlined copy of it per case.
        var kind = ErrorKind.cancelled
        var server: ServerError?
        var unexpected: UnexpectedAnswer?
        var underlyingError: (any Error)?
        var redirectReason: String?
        var endpoint: RequestEndpoint?
        switch failure {
        case .cancelled:
            break
        case .transport(let error, let failedEndpoint):
            (kind, underlyingError, endpoint) = (.network, error, failedEndpoint)
        case .unexpected(let answer):
            (kind, unexpected) = (.unexpectedResponse, answer)
        case .redirect(let reason):
            (kind, redirectReason) = (.browserRequired, reason)
        case .server(let error):
            (kind, server) = (Self.kind(of: error, serverKind: serverKind), error)
        }
        self.init(
            kind, correlationId: correlationId, server: server, unexpected: unexpected,
            underlyingError: underlyingError,
            redirectReason: redirectReason, endpoint: endpoint)
    }
}

/// What a browser sign-in needs to continue a native flow (the flow engine's
/// `BrowserContinuation`), held by an error that says the browser is required. The error only
/// carries it: the engine and the client, above this layer, read it.
protocol BrowserHandoff: Sendable {}
