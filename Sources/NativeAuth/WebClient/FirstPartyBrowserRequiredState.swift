import AuthSupport
public import Foundation

/// A first-party sign-in the provider answered with `redirect_to_web` (the draft's §5.2.2.1.1):
/// the user goes on in a browser. Call ``continueInBrowser(using:)`` with the app's
/// ``ExternalUserAgent``.
///
/// When the answer carried a `request_uri`, the browser is shown the authorization endpoint with
/// only `client_id` and that `request_uri` (the draft's §5.2.2.1.1, as RFC 9126 §4 describes), and
/// the code that comes back is redeemed with the verifier of the first request's PKCE challenge.
/// Without one (or once it expired or was tried), the client starts a new browser sign-in with PKCE
/// (``WebAuthClient/signIn(_:using:)``, with the username as `login_hint` and the same scopes).
///
/// Single-flight and single-use: a second call while one runs fails with
/// ``WebSignInError/isStateBusy``; after a sign-in, or a failure the browser cannot recover from,
/// ``WebSignInError/isStateAlreadyUsed``. A cancellation (the user closed the browser) or no
/// answer leaves it usable: the next call starts a new browser sign-in.
public final class FirstPartyBrowserRequiredState: Sendable, CustomStringConvertible, CustomReflectable {
    /// The provider's `error_description`, when it sent one: text for the developer, not the user.
    public let message: String?
    /// The username the sign-in started with, the browser's `login_hint` when it starts anew.
    public var username: String { signIn.username }
    /// The sign-in's correlation id, sent as `client-request-id` with every request.
    public var correlationId: UUID { signIn.correlationId }

    /// A `request_uri` of the answer, and when it expires on the client's clock. A class: it is
    /// only read, and the lock holds one reference to it.
    final class RequestURI: Sendable {
        let value: String
        let expiresAt: Date?

        init(value: String, expiresAt: Date?) {
            self.value = value
            self.expiresAt = expiresAt
        }
    }

    private let signIn: FirstPartySignIn
    private let phase = Locked<WebStatePhase>(.ready)
    /// Cleared once the browser was shown it: a `request_uri` is good once.
    private let requestURI: Locked<RequestURI?>
    /// The newest `auth_session` of the sign-in, kept with the account when the code of the
    /// `request_uri` is redeemed with no newer one (§5.3.1).
    private let authSession: Secret?

    init(signIn: FirstPartySignIn, requestURI: RequestURI?, authSession: Secret? = nil, message: String?) {
        self.signIn = signIn
        self.requestURI = Locked(requestURI)
        self.authSession = authSession
        self.message = message
    }

    /// Whether the provider's answer carried a `request_uri` that the next
    /// ``continueInBrowser(using:)`` will show.
    public var hasRequestURI: Bool { requestURI.current != nil }

    /// Continues the sign-in in the browser that `agent` shows, and signs the user in.
    ///
    /// - Returns: the signed-in account, stored as any browser sign-in's.
    /// - Throws: ``WebSignInError``: ``WebSignInError/isCancelled`` when the user closed the
    ///   browser (the state stays usable), ``WebSignInError/isAccessDenied``,
    ///   ``WebSignInError/isStateMismatch``, ``WebSignInError/isExpired`` when the provider refused
    ///   the `request_uri` as expired or used, ``WebSignInError/isInvalidIDToken``,
    ///   ``WebSignInError/isStateBusy``, ``WebSignInError/isStateAlreadyUsed``, … what
    ///   ``WebAuthClient/signIn(_:using:)`` throws.
    public func continueInBrowser(using agent: any ExternalUserAgent) async throws(WebSignInError)
        -> UserAccountResult
    {
        try phase.claim(correlationId: correlationId)
        do {
            let account = try await run(agent)
            phase.withLock { $0 = .spent }
            return account
        } catch {
            phase.withLock { $0 = FirstPartySignIn.isRetryable(error) ? .ready : .spent }
            throw error.with(correlationId: correlationId)
        }
    }

    private func run(_ agent: any ExternalUserAgent) async throws(WebSignInError) -> UserAccountResult {
        let site = signIn.site
        let now = site.provider.clock.now()
        let pushed = requestURI.withLock { current in
            defer { current = nil }
            return current
        }
        guard let pushed, pushed.expiresAt.map({ now < $0 }) ?? true else {
            var parameters =
                signIn.stepUp.map { WebSignInParameters(stepUp: $0, scopes: signIn.scopes, loginHint: signIn.username) }
                ?? WebSignInParameters(scopes: signIn.scopes, loginHint: signIn.username)
            parameters.correlationId = correlationId
            // A sign-in that continues an account's (a step-up, a refresh's challenge) must end
            // with the same user in the browser too.
            return try await site.signIn(parameters, subject: signIn.subject, using: agent)
        }
        // The metadata is read where needed, not copied into the frame that waits for the browser.
        let endpoint = try AuthorizationRequest.authorizationEndpoint(of: signIn.metadata, correlationId: correlationId)
        guard
            let url = AuthorizationRequest.url(
                endpoint,
                adding: [("client_id", site.provider.clientId), ("request_uri", pushed.value)])
        else {
            throw WebSignInError(
                .unexpectedResponse, note: "The authorization URL could not be built with the 'request_uri'.",
                correlationId: correlationId)
        }
        let callbackURL = try await site.provider.show(
            url, redirectURI: site.redirectURI, using: agent, correlationId: correlationId)
        // No `state` or `nonce` went with the request the provider made of the first-party one.
        let callback = try AuthorizationCallback(
            url: callbackURL, redirectURI: site.redirectURI, expectedState: nil, expectedIssuer: signIn.metadata.issuer,
            issuerRequired: signIn.metadata.authorizationResponseIssParameterSupported, correlationId: correlationId)
        return try await signIn.complete(code: callback.code, redirectURI: nil, authSession: authSession)
    }

    /// Whether a `request_uri` is waiting; never its value.
    public var description: String {
        "FirstPartyBrowserRequiredState(username: \(username), requestURI: \(hasRequestURI ? "yes" : "no"))"
    }

    /// Shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
