public import Foundation

/// An error of browser-based sign-in (OpenID Connect with the authorization code flow and PKCE).
///
/// Ask it what happened with its `isXxx` properties; several can be true at once (a refused grant
/// is also a server error). It keeps the provider's raw OAuth fields (``serverError``,
/// ``serverErrorDescription``, ``serverErrorURI``), the HTTP status and the correlation id.
///
/// Its description never holds an authorization code, PKCE verifier, `state`, `nonce` or token.
public struct WebSignInError: Error, LocalizedError, CustomStringConvertible, CustomDebugStringConvertible,
    Sendable
{
    /// What went wrong. Kept in the error's box, so not indirect itself.
    enum Code: Sendable, Equatable {
        case cancelled
        case network
        case invalidParameters
        case discoveryFailed(DiscoveryProblem)
        case stateMismatch
        case issuerMismatch
        case invalidCallback
        case missingCode
        case accessDenied
        case interactionRequired
        case invalidGrant
        case configuration
        case server
        case unexpectedResponse
        case invalidIDToken(IDTokenCheck)
        case unsupported
        case expired
        case pushedRequestExpired
        case stateBusy
        case stateSpent
        case invalidSession
        case proofOfPossession(DPoPProblem)
    }

    /// Why discovery failed.
    indirect enum DiscoveryProblem: Error, Equatable {
        case network
        case status(Int)
        case tooLarge
        case notJSON
        case notAnObject
        case missingField(String)
        case wrongType(String)
        case invalidURL(String)
        case insecureURL(String)
        case issuerMismatch(expected: String, found: String)
    }

    /// The fields, behind one reference: the error is one pointer to copy, store and throw.
    private var box: Box

    /// The fields themselves, kept in the class rather than in a struct inside it, so that no
    /// copy or destroy code is made for a struct of nine fields.
    private final class Box: Sendable {
        let code: Code
        let note: String?
        let serverError: String?
        let serverErrorDescription: String?
        let serverErrorURI: String?
        let httpStatusCode: Int?
        let correlationId: UUID?
        let underlyingError: (any Error)?
        let endpoint: RequestEndpoint?

        init(
            code: Code, note: String?, serverError: String?, serverErrorDescription: String?,
            serverErrorURI: String?, httpStatusCode: Int?, correlationId: UUID?, underlyingError: (any Error)?,
            endpoint: RequestEndpoint?
        ) {
            self.code = code
            self.note = note
            self.serverError = serverError
            self.serverErrorDescription = serverErrorDescription
            self.serverErrorURI = serverErrorURI
            self.httpStatusCode = httpStatusCode
            self.correlationId = correlationId
            self.underlyingError = underlyingError
            self.endpoint = endpoint
        }

        /// These fields with another note, correlation id or endpoint.
        func with(note: String?, correlationId: UUID?, endpoint: RequestEndpoint?) -> Box {
            Box(
                code: code, note: note, serverError: serverError, serverErrorDescription: serverErrorDescription,
                serverErrorURI: serverErrorURI, httpStatusCode: httpStatusCode, correlationId: correlationId,
                underlyingError: underlyingError, endpoint: endpoint)
        }
    }

    var code: Code { box.code }
    /// A client-side note: which parameter, which field. Never a secret.
    var note: String? { box.note }

    /// The provider's OAuth `error` value (such as `access_denied` or `invalid_grant`), when it sent one.
    public var serverError: String? { box.serverError }
    /// The provider's `error_description`, as it came.
    public var serverErrorDescription: String? { box.serverErrorDescription }
    /// The provider's `error_uri`, as it came.
    public var serverErrorURI: String? { box.serverErrorURI }
    /// The HTTP status of the answer, when the error came from an HTTP answer.
    public var httpStatusCode: Int? { box.httpStatusCode }
    /// The sign-in's correlation id (sent as `client-request-id`), when the error belongs to a sign-in.
    public var correlationId: UUID? { box.correlationId }
    /// The error that caused this one, such as the transport's `URLError`, or a
    /// ``RequestInterceptorError`` when an interceptor refused the request.
    public var underlyingError: (any Error)? { box.underlyingError }
    /// The endpoint of the request that got no answer (or that a request interceptor refused),
    /// when the error is one.
    public internal(set) var endpoint: RequestEndpoint? {
        get { box.endpoint }
        set { box = box.with(note: box.note, correlationId: box.correlationId, endpoint: newValue) }
    }

    /// Not inlined: the web client builds its errors in many places, each one a call.
    @inline(never)
    init(
        _ code: Code, note: String? = nil, serverError: String? = nil, serverErrorDescription: String? = nil,
        serverErrorURI: String? = nil, httpStatusCode: Int? = nil, correlationId: UUID? = nil,
        underlyingError: (any Error)? = nil
    ) {
        box = Box(
            code: code, note: note, serverError: serverError, serverErrorDescription: serverErrorDescription,
            serverErrorURI: serverErrorURI, httpStatusCode: httpStatusCode, correlationId: correlationId,
            underlyingError: underlyingError, endpoint: nil)
    }

    /// This error with `correlationId`, unless it has one already.
    func with(correlationId: UUID?) -> WebSignInError {
        guard self.correlationId == nil, let correlationId else { return self }
        var copy = self
        copy.box = box.with(note: box.note, correlationId: correlationId, endpoint: box.endpoint)
        return copy
    }

    /// This error with `extra` after its note.
    func adding(note extra: String) -> WebSignInError {
        var copy = self
        copy.box = box.with(
            note: box.note.map { $0 + " " + extra } ?? extra, correlationId: box.correlationId, endpoint: box.endpoint)
        return copy
    }

    // MARK: Questions

    /// The sign-in was cancelled: the calling task was cancelled, or the user closed the browser.
    public var isCancelled: Bool { code == .cancelled }

    /// The user, or the provider on the user's behalf, refused the sign-in (`error=access_denied`).
    public var isAccessDenied: Bool { code == .accessDenied }

    /// The provider needs the user to interact (`login_required`, `interaction_required`,
    /// `consent_required`, `account_selection_required`), typically after `prompt=none`:
    /// sign in again without `prompt=none`.
    public var isInteractionRequired: Bool { code == .interactionRequired }

    /// The callback's `state` is not the one the SDK sent: the response does not belong to this
    /// sign-in (a stale tab, or a forged response). Nothing was exchanged.
    public var isStateMismatch: Bool { code == .stateMismatch }

    /// The callback's `iss` (RFC 9207) is not the provider's issuer, or is missing although the
    /// provider announces it: the response may come from another provider. Nothing was exchanged.
    public var isIssuerMismatch: Bool { code == .issuerMismatch }

    /// The callback URL is not a usable authorization response: not the redirect URI, a parameter
    /// given twice, no `code`, or a response in the fragment (only `response_mode=query` is used).
    public var isInvalidCallback: Bool { code == .invalidCallback || code == .missingCode }

    /// The provider's metadata could not be discovered or was refused: unreachable, not found, not a
    /// valid document, an issuer other than the configured one, or an endpoint that is not `https`.
    /// ``isNetworkError`` is also true when no answer came.
    public var isDiscoveryFailed: Bool {
        if case .discoveryFailed = code { return true }
        return false
    }

    /// No answer came from the provider: no connection, a timeout, a reset. Trying again may help.
    public var isNetworkError: Bool { code == .network || code == .discoveryFailed(.network) }

    /// The sign-in's parameters or the client's configuration are not valid (an extra parameter
    /// that the protocol sets itself, a negative `max_age`, a malformed scope); nothing was sent.
    public var isInvalidParameters: Bool { code == .invalidParameters }

    /// The authorization code, PKCE verifier or refresh token was refused at the token endpoint
    /// (`invalid_grant`, or a provider's equivalent): start a new sign-in. At an authorization
    /// challenge endpoint (``WebAuthClient/signInFirstParty(_:)``) it is a refused password or
    /// code: the user may try again.
    public var isInvalidGrant: Bool { code == .invalidGrant }

    /// The provider says the app is misconfigured (`invalid_client`, `unauthorized_client`,
    /// `unsupported_response_type`, `unsupported_grant_type`, `invalid_scope`), refused its client
    /// authentication, or refused a client registration (`invalid_redirect_uri`,
    /// `invalid_client_metadata`, …): a developer error.
    public var isConfigurationError: Bool { code == .configuration }

    /// The provider answered with an error: any OAuth error answer (``serverError`` says which, and
    /// the more specific questions above narrow it) or a server failure (a 5xx status).
    public var isServerError: Bool {
        switch code {
        case .accessDenied, .interactionRequired, .invalidGrant, .configuration, .server, .invalidSession: true
        case .expired, .pushedRequestExpired: serverError != nil
        default: false
        }
    }

    /// The provider answered with something the SDK could not use: not JSON, a missing field, an
    /// unsupported `token_type`, a redirect.
    public var isUnexpectedResponse: Bool { code == .unexpectedResponse }

    /// The provider does not offer what was asked for: its metadata names no endpoint for it (such
    /// as no `device_authorization_endpoint` for a device code sign-in, no `registration_endpoint`
    /// for dynamic client registration, or no `pushed_authorization_request_endpoint` when pushed
    /// authorization requests are required), or it takes only pushed authorization requests and
    /// the configuration never pushes. Nothing was sent to it.
    public var isUnsupported: Bool { code == .unsupported }

    /// The device code expired before the user approved the sign-in: the provider answered
    /// `expired_token`, or the wait reached the code's expiry (then no request was sent after it).
    /// Or a pushed authorization request's `request_uri` expired before the browser was opened
    /// (then the browser was not), or the provider refused it as expired or used
    /// (`invalid_request_uri`). Start a new sign-in.
    public var isExpired: Bool { code == .expired || code == .pushedRequestExpired }

    /// Another action on this state is still running (such as a second `waitForCompletion` on a
    /// ``DeviceSignInState``); nothing was sent.
    public var isStateBusy: Bool { code == .stateBusy }

    /// This state was already used to the end (signed in, refused or expired); nothing was sent.
    public var isStateAlreadyUsed: Bool { code == .stateSpent }

    /// The provider no longer knows the first-party sign-in's `auth_session` (`invalid_session`,
    /// OAuth 2.0 for First-Party Applications §5.2.2.1): it is invalid, expired or revoked. Start
    /// a new sign-in.
    public var isInvalidSession: Bool { code == .invalidSession }

    // MARK: Descriptions

    /// The plain-language sentence plus the client-side note, if any.
    var message: String {
        var text = sentence
        if let note { text += " " + note }
        if let refusal = underlyingError as? RequestInterceptorError { text += " " + refusal.description }
        return text
    }

    private var sentence: String {
        switch code {
        case .cancelled: "The sign-in was cancelled."
        case .network: "The provider could not be reached."
        case .invalidParameters: "The sign-in parameters are not valid."
        case .discoveryFailed(let problem): "The provider's metadata could not be used: " + problem.sentence
        case .stateMismatch: "The authorization response does not belong to this sign-in (state mismatch)."
        case .issuerMismatch: "The authorization response comes from another issuer than the provider's."
        case .invalidCallback: "The callback is not a usable authorization response."
        case .missingCode: "The authorization response has no code."
        case .accessDenied: "The sign-in was refused (access denied)."
        case .interactionRequired: "The provider needs the user to interact to sign in."
        case .invalidGrant: "The provider refused the grant; start a new sign-in."
        case .configuration: "The provider says the app is not configured for this request."
        case .server: "The provider answered with an error."
        case .unexpectedResponse: "The provider gave an answer the SDK could not use."
        case .invalidIDToken(let check): "The ID token failed the \(check) check."
        case .unsupported: "The provider does not support this request."
        case .expired: "The device code expired before the sign-in was approved; start a new one."
        case .pushedRequestExpired: "The pushed authorization request expired or was already used; start a new sign-in."
        case .stateBusy: "Another action on this state is still in progress."
        case .stateSpent: "This state was already used; start a new sign-in."
        case .invalidSession: "The provider no longer knows this sign-in's session; start a new sign-in."
        case .proofOfPossession(let problem): problem.sentence
        }
    }

    /// The raw OAuth fields, status and correlation id, on one line.
    var context: String {
        var parts: [String] = []
        if let serverError { parts.append("error=\(serverError.prefix(80))") }
        if let httpStatusCode { parts.append("status=\(httpStatusCode)") }
        if let endpoint { parts.append("endpoint=\(endpoint)") }
        if let underlyingError { parts.append("cause=" + RequestPipeline.describe(underlyingError)) }
        if let correlationId { parts.append("correlation-id=\(correlationId.uuidString.lowercased())") }
        return parts.joined(separator: " ")
    }

    /// A plain-language description, followed by the raw OAuth error, the status and the correlation id.
    public var description: String {
        let context = context
        return "WebSignInError: \(message)" + (context.isEmpty ? "" : " [\(context)]")
    }

    /// The description plus the provider's `error_description` and `error_uri`.
    public var debugDescription: String {
        var text = description
        if let serverErrorDescription { text += " server description: \(serverErrorDescription.prefix(500))" }
        if let serverErrorURI { text += " error uri: \(serverErrorURI.prefix(300))" }
        return text
    }

    /// The plain-language description, for showing to a developer.
    public var errorDescription: String? { message }
}

extension WebSignInError.DiscoveryProblem {
    var sentence: String {
        switch self {
        case .network: "no answer came."
        case .status(let status): "the provider answered with HTTP status \(status)."
        case .tooLarge: "the document is larger than 1 MiB."
        case .notJSON: "the document is not JSON."
        case .notAnObject: "the document is not a JSON object."
        case .missingField(let field): "the document has no '\(field)'."
        case .wrongType(let field): "'\(field)' has the wrong type."
        case .invalidURL(let field): "'\(field)' is not an absolute URL."
        case .insecureURL(let field): "'\(field)' is not https (http is allowed for loopback hosts only)."
        case .issuerMismatch(let expected, let found):
            "the document's issuer '\(found.prefix(200))' is not the configured issuer '\(expected.prefix(200))'."
        }
    }
}

extension WebSignInError {
    /// An error for a parameter the caller got wrong; `note` names it.
    @inline(never)
    static func invalidParameters(_ note: String, correlationId: UUID? = nil) -> WebSignInError {
        WebSignInError(.invalidParameters, note: note, correlationId: correlationId)
    }

    /// The sign-in was cancelled (by the task or the user).
    static func cancelled(correlationId: UUID? = nil) -> WebSignInError {
        WebSignInError(.cancelled, correlationId: correlationId)
    }

    /// Maps an OAuth error answer (from the callback or the token endpoint) to its code.
    static func oauth(
        error: String, description: String?, uri: String?, status: Int?, correlationId: UUID?
    ) -> WebSignInError {
        let code: Code
        switch error.lowercased() {
        case "access_denied": code = .accessDenied
        // OAuth 2.0 for First-Party Applications §5.2.2.1: the `auth_session` is no longer valid.
        case "invalid_session": code = .invalidSession
        // RFC 9449 §5, §8: the DPoP proof was refused (`use_dpop_nonce` only after its one retry).
        case "invalid_dpop_proof", "use_dpop_nonce": code = .proofOfPossession(.proofRefused)
        // RFC 9126 §4, RFC 9101 §6.2: the `request_uri` of a pushed request expired or was used.
        case "invalid_request_uri": code = .pushedRequestExpired
        // RFC 8628 §3.5: the device code's lifetime is over.
        case "expired_token": code = .expired
        case "login_required", "interaction_required", "consent_required", "account_selection_required":
            code = .interactionRequired
        // glewlwyd answers a wrong PKCE verifier, or an unknown code, with `invalid_code`.
        case "invalid_grant", "invalid_code": code = .invalidGrant
        case "invalid_client", "unauthorized_client", "unsupported_response_type", "unsupported_grant_type",
            "invalid_scope":
            code = .configuration
        // RFC 7591 §3.2.2: the registration request itself is wrong.
        case "invalid_redirect_uri", "invalid_client_metadata", "invalid_software_statement",
            "unapproved_software_statement":
            code = .configuration
        default: code = .server
        }
        return WebSignInError(
            code, serverError: error, serverErrorDescription: description, serverErrorURI: uri, httpStatusCode: status,
            correlationId: correlationId)
    }
}
