import Foundation

/// What every step of one first-party sign-in shares: the client, the provider's metadata and
/// endpoint, the PKCE verifier of the first request, the scopes and the correlation id.
///
/// It reads each answer of the authorization challenge endpoint into the next result, redeems an
/// authorization code through the browser sign-in's own path (``WebProvider/redeem(_:redirectURI:verifier:nonce:maxAge:metadata:correlationId:dpopKey:subject:acrValues:)``)
/// and stores the account as a browser sign-in does.
final class FirstPartySignIn: Sendable {
    /// Where the sign-in happens and its account is kept.
    let site: WebSignInSite
    let metadata: ProviderMetadata
    /// The authorization challenge endpoint; `nil` only for a sign-in that can go on in a browser
    /// only (a refresh's challenge at a provider that publishes no endpoint).
    let endpoint: URL?
    let pkce: PKCE
    let scopes: [String]
    let username: String
    let correlationId: UUID
    /// The sign-in's DPoP key: every challenge request and the token request prove it (§9.5.1).
    let dpopKey: DPoPBoundKey?
    /// The `sub` of the account the sign-in continues (a step-up, or a refresh's challenge): the
    /// new ID token must carry it. `nil` for a new sign-in.
    let subject: String?
    /// The resource's requirements a step-up carries (RFC 9470): sent with the first request, and
    /// the new ID token is checked against them (`auth_time` with `max_age`, `acr`). `nil` for
    /// any other sign-in.
    let stepUp: StepUpChallenge?

    init(
        site: WebSignInSite, metadata: ProviderMetadata, endpoint: URL?, pkce: PKCE, scopes: [String],
        username: String, correlationId: UUID, dpopKey: DPoPBoundKey?, subject: String? = nil,
        stepUp: StepUpChallenge? = nil
    ) {
        self.site = site
        self.metadata = metadata
        self.endpoint = endpoint
        self.pkce = pkce
        self.scopes = scopes
        self.username = username
        self.correlationId = correlationId
        self.dpopKey = dpopKey
        self.subject = subject
        self.stepUp = stepUp
    }

    /// What one request led to.
    enum Step: Sendable {
        case next(FirstPartySignInResult)
        /// The request failed. `authSession` is the `auth_session` its answer carried, if any;
        /// `usable` says whether the step can be tried again (a wrong code, a cancellation, no
        /// answer, a transient server failure), always false once a code was issued.
        case failed(WebSignInError, authSession: Secret?, usable: Bool)
    }

    var provider: WebProvider { site.provider }

    private var signer: DPoPSigner? {
        dpopKey.flatMap { key in provider.dpop.map { provider.signer(key, context: $0) } }
    }

    /// Sends `request` and reads its answer; on a code, redeems it and stores the account.
    /// `authSession` is the one the request carried: the account keeps it when the token answer
    /// brings no newer one (§5.3.1: "store the `auth_session` beyond the issuance of the
    /// authorization code").
    func run(_ request: AuthorizationChallengeRequest, authSession sent: Secret?) async -> Step {
        let sentAt = provider.clock.now()
        let answer: AuthorizationChallengeAnswer
        do {
            answer = try await request.send(
                through: provider.pipeline, authentication: provider.tokens.authentication,
                assertion: provider.tokens.assertion, dpop: signer)
        } catch {
            return .failed(error, authSession: nil, usable: Self.isRetryable(error))
        }
        switch answer {
        case .authorizationCode(let code):
            do {
                return .next(.completed(try await complete(code: code, redirectURI: nil, authSession: sent)))
            } catch {
                return .failed(error, authSession: nil, usable: false)
            }
        case .insufficientAuthorization(let asked):
            // §5.3.1: the newest `auth_session`; an answer without one leaves the one sent in force.
            return .next(
                .challengeRequired(
                    FirstPartyChallengeState(signIn: self, authSession: asked.authSession ?? sent, asked: asked)))
        case .redirectToWeb(let requestURI, let expiresIn, let authSession, let description):
            let pushed = requestURI.map { uri in
                FirstPartyBrowserRequiredState.RequestURI(
                    value: uri, expiresAt: expiresIn.map { sentAt.addingTimeInterval(TimeInterval($0)) })
            }
            return .next(
                .browserRequired(
                    FirstPartyBrowserRequiredState(
                        signIn: self, requestURI: pushed, authSession: authSession ?? sent, message: description)))
        case .failed(let error, let authSession):
            return .failed(
                error.with(correlationId: correlationId), authSession: authSession,
                usable: error.isInvalidGrant || Self.isRetryable(error))
        }
    }

    /// Redeems `code` with this sign-in's verifier, checks the ID token (no `nonce` was sent; the
    /// account's `sub` when the sign-in continues one; a step-up's `max_age` and `acr_values`) and
    /// stores the account, replacing any earlier one of the client, with the answer's
    /// `auth_session`, else `authSession`. Nothing is stored when a check fails.
    func complete(code: Secret, redirectURI: URL?, authSession: Secret?) async throws(WebSignInError)
        -> UserAccountResult
    {
        let (answer, claims) = try await provider.redeem(
            code, redirectURI: redirectURI, verifier: pkce.verifier, nonce: nil, maxAge: stepUp?.maxAge,
            metadata: metadata, correlationId: correlationId, dpopKey: dpopKey, subject: subject,
            acrValues: stepUp?.acrValues ?? [])
        let tokens = TokenAnswer(answer, authSession: authSession)
        let record = await site.accounts.signedIn(
            tokens, username: claims.preferredUsername ?? claims.string("email") ?? username,
            scopes: scopes, correlationId: correlationId, dpopKey: dpopKey?.storedForm)
        return UserAccountResult(record: record, manager: site.accounts)
    }

    /// A failure that says nothing about the sign-in itself: a cancellation, no answer, or a
    /// server failure (a 429 or 5xx, `server_error`, `temporarily_unavailable`).
    static func isRetryable(_ error: WebSignInError) -> Bool {
        if error.isCancelled || error.isNetworkError { return true }
        guard error.code == .server else { return false }
        if let status = error.httpStatusCode, status == 429 || status >= 500 { return true }
        return ["server_error", "temporarily_unavailable"].contains(error.serverError?.lowercased() ?? "")
    }
}

extension WebAuthClient {
    /// Signs the user in on the app's own screens, with no browser, at a provider that publishes
    /// an `authorization_challenge_endpoint` (OAuth 2.0 for First-Party Applications,
    /// draft-ietf-oauth-first-party-apps).
    ///
    /// The first request sends `username` (and `password` when given), the scopes and a PKCE
    /// challenge. The provider answers with an authorization code, which the SDK redeems with the
    /// verifier and checks as a browser sign-in's (the ID token's signature, issuer, audience,
    /// times); or asks for more (``FirstPartySignInResult/challengeRequired(_:)``, with the
    /// `auth_session` carried by the state); or sends the user to a browser
    /// (``FirstPartySignInResult/browserRequired(_:)``). The account is the same
    /// ``UserAccountResult`` as a browser sign-in's, stored, refreshed and reported the same way.
    ///
    /// - Throws: ``WebSignInError``: ``WebSignInError/isUnsupported`` when the provider publishes
    ///   no `authorization_challenge_endpoint` (only discovery was sent),
    ///   ``WebSignInError/isInvalidParameters`` (nothing sent), ``WebSignInError/isInvalidGrant``
    ///   for a refused username or password (try again), ``WebSignInError/isAccessDenied``,
    ///   ``WebSignInError/isNetworkError``, ``WebSignInError/isCancelled``,
    ///   ``WebSignInError/isUnexpectedResponse``, ``WebSignInError/isInvalidIDToken``, …
    ///   Nothing is stored on a failure.
    public func signInFirstParty(_ parameters: FirstPartySignInParameters)
        async throws(WebSignInError) -> FirstPartySignInResult
    {
        try await beginFirstParty(parameters, continuing: nil)
    }

    /// Signs the user in with a username and, when given, a password; see
    /// ``signInFirstParty(_:)``.
    ///
    /// - Throws: what ``signInFirstParty(_:)`` throws.
    public func signInFirstParty(username: String, password: String? = nil, scopes: [String] = [])
        async throws(WebSignInError) -> FirstPartySignInResult
    {
        try await signInFirstParty(FirstPartySignInParameters(username: username, password: password, scopes: scopes))
    }
}
