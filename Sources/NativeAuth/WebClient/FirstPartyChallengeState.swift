import AuthSupport
public import Foundation

/// A first-party sign-in the provider answered with `insufficient_authorization` (the draft's
/// §5.2.2.1): it wants more from the user before it issues a code. Usually a one-time code
/// (``isCodeRequired``, the draft's Appendix B `otp_required`): call ``submitCode(_:)``. A
/// provider that asks for the username first and the password after it says
/// ``isPasswordRequired``: call ``submitPassword(_:)``. A provider's own profile may ask for
/// something else, which ``parameters`` describe; send it with ``submit(_:)``.
///
/// The state keeps the answer's `auth_session` and sends it with every request it makes (§5.3.1),
/// replacing it with any newer one an answer brings. It keeps the rules of every state: one
/// action at a time (a second fails with ``WebSignInError/isStateBusy``, sending nothing); an
/// action that moves the sign-in on spends it (then ``WebSignInError/isStateAlreadyUsed``); a wrong
/// code (``WebSignInError/isInvalidGrant``), a cancellation, no answer or a transient server
/// failure leave it usable, for the user to try again.
///
/// Its description holds no secret: neither the `auth_session` nor a code, a password or any
/// value submitted.
public final class FirstPartyChallengeState: Sendable, CustomStringConvertible, CustomReflectable {
    /// Whether the provider asks for a one-time code (`otp_required: true`, the draft's Appendix B.2).
    public let isCodeRequired: Bool
    /// Whether the provider asks for the user's password (`password_required: true`): a member of
    /// the provider's own profile, named as the draft's Appendix B.2 names `otp_required`, which an
    /// identifier-first provider answers the username with. See Docs/FirstPartyApps.md.
    public let isPasswordRequired: Bool
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

    /// A state for the answer `asked`, which keeps `authSession`: the answer's, else the newest
    /// one the sign-in had (§5.3.1).
    init(
        signIn: FirstPartySignIn, authSession: Secret?, asked: AuthorizationChallengeAnswer.InsufficientAuthorization,
        opensAuthorization: Bool = false
    ) {
        self.signIn = signIn
        self.authSession = Locked(authSession)
        opening =
            opensAuthorization
            ? AuthorizationChallengeRequest.Opening(
                scopes: WebSignInParameters.scopeList(signIn.scopes), pkce: signIn.pkce,
                username: signIn.username)
            : nil
        isCodeRequired = asked.otpRequired
        isPasswordRequired = asked.passwordRequired
        parameters = asked.parameters
        message = asked.description
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
        return try await send(credentials: [("otp", Secret(code))])
    }

    /// Sends the password the user entered, as `password` with the `auth_session`, when the
    /// provider asked for it (``isPasswordRequired``). `password` is a profile's own parameter,
    /// named as RFC 6749 §4.3.2 names the resource owner's password (see Docs/FirstPartyApps.md).
    ///
    /// - Returns: the signed-in account, another challenge (such as a one-time code), or a browser
    ///   requirement.
    /// - Throws: what ``submitCode(_:)`` throws: ``WebSignInError/isInvalidParameters`` for an
    ///   empty password (nothing sent; the state stays usable), ``WebSignInError/isInvalidGrant``
    ///   for a wrong one (the state stays usable), …
    public func submitPassword(_ password: String) async throws(WebSignInError) -> FirstPartySignInResult {
        guard !password.isEmpty else {
            throw .invalidParameters("The password is empty.", correlationId: correlationId)
        }
        return try await send(credentials: [("password", Secret(password))])
    }

    /// Sends what the provider's profile asks for, with the `auth_session`: parameters the draft
    /// leaves to each provider (§5.3), such as a `password`, an `otp`, or a passkey's signed
    /// challenge. Every value is kept as a secret: sent as given, never logged, described or put
    /// in an error.
    ///
    /// - Throws: what ``submitCode(_:)`` throws; ``WebSignInError/isInvalidParameters`` for no
    ///   parameter, an empty name, or one the SDK owns for the whole sign-in, in any letter case:
    ///   `response_type`, `client_id`, `client_secret`, `auth_session`, `scope`, `code_challenge`,
    ///   `code_challenge_method`, `username`, `redirect_uri`, `state`, `nonce`, `request_uri`,
    ///   `client-request-id`. Nothing is sent then, and the state stays usable.
    public func submit(_ parameters: [String: String]) async throws(WebSignInError) -> FirstPartySignInResult {
        guard !parameters.isEmpty else {
            throw .invalidParameters("There is nothing to submit.", correlationId: correlationId)
        }
        try FirstPartySignInParameters.check(
            parameters, reserved: AuthorizationChallengeRequest.followUpReservedNames, correlationId: correlationId)
        return try await send(credentials: parameters.sortedKeys.map { ($0, Secret(parameters[$0, default: ""])) })
    }

    /// Whether the state was used to the end.
    var isSpent: Bool { phase.current == .spent }

    private func send(credentials: [(name: String, value: Secret)]) async throws(WebSignInError)
        -> FirstPartySignInResult
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
            opening: opening, correlationId: correlationId)
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
            "FirstPartyChallengeState(username: \(username), isCodeRequired: \(isCodeRequired), "
            + "isPasswordRequired: \(isPasswordRequired), parameters: [\(names)])"
    }

    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
