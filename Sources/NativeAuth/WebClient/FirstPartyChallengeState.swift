import AuthSupport
public import Foundation

/// A first-party sign-in the provider answered with `insufficient_authorization` (the draft's
/// §5.2.2.1): it wants more from the user before it issues a code. Usually a one-time code
/// (``isCodeRequired``, the draft's Appendix B `otp_required`): call ``submitCode(_:)``. A
/// provider's own profile may ask for something else, which ``parameters`` describe; send it with
/// ``submit(_:)``.
///
/// The state keeps the answer's `auth_session` and sends it with every request it makes (§5.3.1),
/// replacing it with any newer one an answer brings. It keeps the rules of every state: one
/// action at a time (a second fails with ``WebSignInError/isStateBusy``, sending nothing); an
/// action that moves the sign-in on spends it (then ``WebSignInError/isStateAlreadyUsed``); a wrong
/// code (``WebSignInError/isInvalidGrant``), a cancellation, no answer or a transient server
/// failure leave it usable, for the user to try again.
///
/// Its description holds no secret: neither the `auth_session` nor a code.
public final class FirstPartyChallengeState: Sendable, CustomStringConvertible, CustomReflectable {
    /// Whether the provider asks for a one-time code (`otp_required: true`, the draft's Appendix B.2).
    public let isCodeRequired: Bool
    /// The answer's members besides `error`, `error_description`, `error_uri`, `auth_session`,
    /// `request_uri` and `expires_in`: what the provider's profile says it needs (§5.2.2 lets
    /// each provider define them), such as `otp_required`.
    public let parameters: [String: JSONValue]
    /// The provider's `error_description`, when it sent one: text for the developer, not the user.
    public let message: String?
    /// The username the sign-in started with.
    public var username: String { signIn.username }
    /// The sign-in's correlation id, sent as `client-request-id` with every request.
    public var correlationId: UUID { signIn.correlationId }

    private let signIn: FirstPartySignIn
    private let phase = Locked<WebStatePhase>(.ready)
    private let authSession: Locked<Secret?>
    /// For a state the token endpoint's challenge made (§6.2), what its requests add to open the
    /// authorization: no request to the challenge endpoint went before them.
    private let opening: AuthorizationChallengeRequest.Opening?

    init(
        signIn: FirstPartySignIn, authSession: Secret?, isCodeRequired: Bool, parameters: [String: JSONValue],
        message: String?, opensAuthorization: Bool = false
    ) {
        self.signIn = signIn
        self.authSession = Locked(authSession)
        opening =
            opensAuthorization
            ? AuthorizationChallengeRequest.Opening(
                scopes: WebSignInParameters(scopes: signIn.scopes).scopeList, pkce: signIn.pkce,
                username: signIn.username)
            : nil
        self.isCodeRequired = isCodeRequired
        self.parameters = parameters
        self.message = message
    }

    /// Sends the one-time code the user entered, as `otp` with the `auth_session` (the draft's
    /// Appendix B.1).
    ///
    /// - Returns: the signed-in account, another challenge, or a browser requirement.
    /// - Throws: ``WebSignInError``: ``WebSignInError/isInvalidParameters`` for an empty code
    ///   (nothing sent; the state stays usable), ``WebSignInError/isInvalidGrant`` for a wrong code
    ///   (the state stays usable), ``WebSignInError/isInvalidSession`` when the provider no longer
    ///   knows the sign-in, ``WebSignInError/isNetworkError``, ``WebSignInError/isCancelled``,
    ///   ``WebSignInError/isStateBusy``, ``WebSignInError/isStateAlreadyUsed``, …
    public func submitCode(_ code: String) async throws(WebSignInError) -> FirstPartySignInResult {
        guard !code.isEmpty else {
            throw .invalidParameters("The code is empty.", correlationId: correlationId)
        }
        return try await send(credentials: [("otp", Secret(code))], additional: [:])
    }

    /// Sends what the provider's profile asks for, with the `auth_session`: parameters the draft
    /// leaves to each provider (§5.3). Values are sent as given, and never logged or described.
    ///
    /// - Throws: what ``submitCode(_:)`` throws; ``WebSignInError/isInvalidParameters`` for no
    ///   parameter, an empty name, or one the SDK sets itself (`auth_session`, `client_id`, …;
    ///   `otp` goes through ``submitCode(_:)``).
    public func submit(_ parameters: [String: String]) async throws(WebSignInError) -> FirstPartySignInResult {
        guard !parameters.isEmpty else {
            throw .invalidParameters("There is nothing to submit.", correlationId: correlationId)
        }
        try FirstPartySignInParameters.check(parameters, correlationId: correlationId)
        return try await send(credentials: [], additional: parameters)
    }

    /// Whether the state was used to the end.
    var isSpent: Bool { phase.current == .spent }

    private func send(credentials: [(name: String, value: Secret)], additional: [String: String])
        async throws(WebSignInError) -> FirstPartySignInResult
    {
        try phase.claim(correlationId: correlationId)
        if Task.isCancelled {
            phase.withLock { $0 = .ready }
            throw .cancelled(correlationId: correlationId)
        }
        guard let endpoint = signIn.endpoint else {
            phase.withLock { $0 = .spent }
            throw WebSignInError(
                .unsupported, note: "The provider publishes no authorization_challenge_endpoint.",
                correlationId: correlationId)
        }
        let sent = authSession.current
        let request = AuthorizationChallengeRequest.followUp(
            endpoint: endpoint, clientId: signIn.provider.clientId, authSession: sent, credentials: credentials,
            additional: additional, opening: opening, correlationId: correlationId)
        switch await signIn.run(request, authSession: sent) {
        case .next(let result):
            phase.withLock { $0 = .spent }
            return result
        case .failed(let error, let newSession, let usable):
            if let newSession { authSession.withLock { $0 = newSession } }
            phase.withLock { $0 = usable ? .ready : .spent }
            throw error.with(correlationId: correlationId)
        }
    }

    /// What the provider asks for; never the `auth_session`.
    public var description: String {
        let names = parameters.sortedKeys.joined(separator: ",")
        return
            "FirstPartyChallengeState(username: \(username), isCodeRequired: \(isCodeRequired), parameters: [\(names)])"
    }

    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
