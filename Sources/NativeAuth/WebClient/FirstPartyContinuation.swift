import AuthSupport
import Foundation

/// Where a web client signs users in and keeps their account: its provider, its account manager
/// and its redirect URI. A first-party sign-in holds it, not the client: one that goes on from a
/// refresh is made where only these exist, and may outlive the client.
/// A class: made once, then shared by the states of a sign-in.
final class WebSignInSite: Sendable {
    let provider: WebProvider
    let accounts: AccountManager
    let redirectURI: URL

    init(provider: WebProvider, accounts: AccountManager, redirectURI: URL) {
        self.provider = provider
        self.accounts = accounts
        self.redirectURI = redirectURI
    }

    /// A browser sign-in through `agent` (``WebAuthClient/signIn(_:using:)``), stored as the account.
    /// With `subject`, the sign-in continues that account's: the new ID token must carry its `sub`,
    /// and nothing is stored otherwise.
    func signIn(_ parameters: WebSignInParameters, subject: String? = nil, using agent: any ExternalUserAgent)
        async throws(WebSignInError) -> UserAccountResult
    {
        let (answer, claims, correlationId, dpopKey) = try await provider.signIn(
            parameters, redirectURI: redirectURI, subject: subject, using: agent)
        let record = await accounts.signedIn(
            answer, username: claims.preferredUsername ?? claims.string("email") ?? "",
            scopes: parameters.scopes, correlationId: correlationId, dpopKey: dpopKey)
        return UserAccountResult(record: record, manager: accounts)
    }
}

/// The account manager of a web client, held weakly by its refresh redeemer (the manager owns
/// the redeemer). A refresh runs on the manager, so the manager is there whenever the redeemer
/// needs it.
final class WebAccountsLink: Sendable {
    private struct Reference: Sendable { weak var accounts: AccountManager? }

    private let reference = Locked(Reference())

    var accounts: AccountManager? { reference.current.accounts }

    func connect(_ accounts: AccountManager) { reference.withLock { $0.accounts = accounts } }
}

extension WebAuthClient {
    /// Signs the user of `account` in again at the authorization challenge endpoint, continuing
    /// the provider's session: the first request carries the `auth_session` the account keeps
    /// (OAuth 2.0 for First-Party Applications §5.3.1, from the token answer of its sign-in, §6.1),
    /// so the provider can restore the session and ask only for what it still needs, such as a
    /// second factor for a step-up (the draft's Appendix A.7).
    ///
    /// The request is a first request like ``signInFirstParty(_:)``'s (`scope`, a new PKCE
    /// challenge, the account's username), with the account's `auth_session` when it keeps one (a
    /// sign-in at a provider that gave none sends none: the provider then asks for everything).
    /// With ``WebAuthConfiguration/dpop``, its proofs are made with the account's key, the key the
    /// provider bound the `auth_session` to (§9.6.1). The provider answers as at any first request;
    /// the account the sign-in ends with must be the same user (the ID token's `sub`), and replaces
    /// the earlier one's tokens, with the newest `auth_session`. The account stays signed in
    /// whatever happens before.
    ///
    /// With `stepUp`, the challenge of a resource that refused the account's token
    /// (``AuthorizedRequestError/stepUpChallenge``, RFC 9470), the sign-in meets it as the draft's
    /// §7 says: the first request adds the challenge's `acr_values` and `max_age`, and its scopes
    /// to the sign-in's; the new ID token must then carry an `auth_time` no older than `max_age`
    /// allows (OpenID Connect Core §3.1.3.7 item 13, with the SDK's clock allowance), and an `acr`,
    /// when it has one, among the `acr_values` (item 12). A token that fails either is refused with
    /// ``WebSignInError/isInvalidIDToken`` (``IDTokenCheck/authTime``,
    /// ``IDTokenCheck/authenticationContext``) and nothing is stored.
    ///
    /// ```swift
    /// do {
    ///     return try await account.send(request)
    /// } catch where error.isStepUpRequired {
    ///     let result = try await client.signInFirstParty(continuing: account, stepUp: error.stepUpChallenge)
    ///     // … a one-time code, as for any first-party sign-in; then send the request again.
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - account: the signed-in account of this client.
    ///   - stepUp: the resource's step-up challenge, when the sign-in answers one.
    ///   - password: the password, when the app asks for it up front; usually `nil`.
    ///   - scopes: the scopes to request besides `openid`; `nil` asks for the account's sign-in
    ///     scopes. The step-up's scopes are added to them.
    ///   - additionalParameters: more parameters of the provider's profile; the names the SDK sets
    ///     are refused, as in ``FirstPartySignInParameters/additionalParameters``, and with
    ///     `stepUp`, `acr_values` and `max_age` too (they are the step-up's). Without `stepUp`,
    ///     `acr_values` and `max_age` given here are sent as they are and not checked.
    /// - Throws: what ``signInFirstParty(_:)`` throws; ``WebSignInError/isInvalidParameters`` when
    ///   `account` is not the signed-in account of this client, or `stepUp` holds a negative
    ///   `maxAge` or an empty or spaced `acrValues` entry (nothing sent);
    ///   ``WebSignInError/isInvalidSession`` when the provider no longer knows the `auth_session`
    ///   (sign in with ``signInFirstParty(_:)``); ``WebSignInError/isInvalidIDToken`` when the
    ///   provider signed another user in (``IDTokenCheck/subject``) or did not meet the step-up
    ///   (``IDTokenCheck/authTime``, ``IDTokenCheck/authenticationContext``): nothing is stored.
    @inline(never)
    public func signInFirstParty(
        continuing account: UserAccountResult, stepUp: StepUpChallenge? = nil, password: String? = nil,
        scopes: [String]? = nil, additionalParameters: [String: String] = [:]
    ) async throws(WebSignInError) -> FirstPartySignInResult {
        let correlationId = UUID()
        guard account.manager === accounts, let record = await accounts.record(of: account.account.identifier) else {
            throw .invalidParameters(
                "The account is not the signed-in account of this client.", correlationId: correlationId)
        }
        let parameters = FirstPartySignInParameters(
            username: record.username, password: password,
            scopes: (scopes ?? record.signInScopes) + (stepUp?.scopes ?? []),
            additionalParameters: additionalParameters, correlationId: correlationId)
        return try await beginFirstParty(parameters, continuing: record, stepUp: stepUp)
    }

    /// Continues `account`'s provider session, as ``signInFirstParty(continuing:stepUp:password:scopes:additionalParameters:)``
    /// does, and reports the outcome to `delegate`, once, on the main actor.
    public func signInFirstParty(
        continuing account: UserAccountResult, stepUp: StepUpChallenge? = nil, password: String? = nil,
        scopes: [String]? = nil, additionalParameters: [String: String] = [:], delegate: any FirstPartySignInDelegate
    ) {
        reportFirstParty(to: delegate) { () async throws(WebSignInError) in
            try await self.signInFirstParty(
                continuing: account, stepUp: stepUp, password: password, scopes: scopes,
                additionalParameters: additionalParameters)
        }
    }
}

extension RetrieveAccessTokenError {
    /// The provider answered the refresh with `insufficient_authorization` (OAuth 2.0 for
    /// First-Party Applications §6.2): the user must interact before a token can be had, and
    /// ``firstPartyContinuation`` is how. ``isInteractionRequired`` is true as well; the account and
    /// its refresh token are kept.
    public var isAuthorizationChallengeRequired: Bool { firstPartyContinuation != nil }

    /// How the user goes on after a refresh answered `insufficient_authorization` (§6.2); `nil`
    /// for every other error.
    ///
    /// - ``FirstPartySignInResult/challengeRequired(_:)`` at a provider that publishes an
    ///   authorization challenge endpoint: the state carries the answer's `auth_session` (else the
    ///   one the account keeps), ``FirstPartyChallengeState/isCodeRequired`` and
    ///   ``FirstPartyChallengeState/parameters`` as the answer says (`otp_required`, the draft's
    ///   Appendix B.4), and its first request opens the authorization (`scope` and a PKCE challenge
    ///   with the `auth_session` and what the user entered).
    /// - ``FirstPartySignInResult/browserRequired(_:)`` at a provider that publishes none: a new
    ///   browser sign-in for the account's user.
    ///
    /// The sign-in it ends with must be the account's user; it replaces the account's tokens, as
    /// any sign-in does. Concurrent callers of the refresh share one state: the first to act on it
    /// goes on, the others get ``WebSignInError/isStateBusy`` or ``WebSignInError/isStateAlreadyUsed``.
    public var firstPartyContinuation: FirstPartySignInResult? { details.interaction as? FirstPartySignInResult }
}

extension AuthorizedRequestError {
    /// The refresh before the request was answered with an authorization challenge, as
    /// ``RetrieveAccessTokenError/isAuthorizationChallengeRequired``; nothing was sent to the API.
    public var isAuthorizationChallengeRequired: Bool { firstPartyContinuation != nil }

    /// How the user goes on, as ``RetrieveAccessTokenError/firstPartyContinuation``.
    public var firstPartyContinuation: FirstPartySignInResult? { details.interaction as? FirstPartySignInResult }
}

extension WebAuthClient {
    /// Starts a first-party sign-in: a new one, or one that continues `record`'s provider session
    /// (its `auth_session` and DPoP key; its `sub` for the new ID token), answering `stepUp` when
    /// given (its `acr_values` and `max_age` sent, and checked in the ID token).
    func beginFirstParty(
        _ parameters: FirstPartySignInParameters, continuing record: AccountRecord?, stepUp: StepUpChallenge? = nil
    ) async throws(WebSignInError) -> FirstPartySignInResult {
        let correlationId = parameters.correlationId ?? UUID()
        var parameters = parameters
        parameters.correlationId = correlationId
        try parameters.validate()
        if let stepUp {
            parameters.additionalParameters = try Self.adding(
                stepUp, to: parameters.additionalParameters, correlationId)
        }
        let metadata = try await provider.discovery.metadata(correlationId: correlationId)
        guard let endpoint = metadata.authorizationChallengeEndpoint else {
            throw WebSignInError(
                .unsupported, note: "The provider publishes no authorization_challenge_endpoint.",
                correlationId: correlationId)
        }
        let key = try await provider.key(continuing: record?.dpopKey, metadata: metadata, correlationId: correlationId)
        let signIn = FirstPartySignIn(
            site: site, metadata: metadata, endpoint: endpoint, pkce: PKCE(), scopes: parameters.scopes,
            username: parameters.username, correlationId: correlationId, dpopKey: key,
            subject: record?.claims.subject, stepUp: stepUp)
        let authSession = record?.authSession.map(Secret.init)
        let request = AuthorizationChallengeRequest.initial(
            endpoint: endpoint, clientId: clientId, scopes: parameters.scopeList, pkce: signIn.pkce,
            username: parameters.username, password: parameters.password.map(Secret.init), authSession: authSession,
            additional: parameters.additionalParameters, correlationId: correlationId)
        switch await signIn.run(request, authSession: authSession) {
        case .next(let result): return result
        case .failed(let error, _, _): throw error.with(correlationId: correlationId)
        }
    }

    /// `additional` with the step-up's `acr_values` (space-separated, RFC 9470 §4) and `max_age`,
    /// which it must not set itself.
    private static func adding(_ stepUp: StepUpChallenge, to additional: [String: String], _ correlationId: UUID)
        throws(WebSignInError) -> [String: String]
    {
        if let problem = stepUp.problem() { throw .invalidParameters(problem, correlationId: correlationId) }
        if additional.keys.contains(where: { ["acr_values", "max_age"].contains($0.lowercased()) }) {
            throw .invalidParameters(
                "With a step-up, acr_values and max_age are the step-up's: leave them out of additionalParameters.",
                correlationId: correlationId)
        }
        var additional = additional
        if !stepUp.acrValues.isEmpty { additional["acr_values"] = stepUp.acrValues.joined(separator: " ") }
        if let maxAge = stepUp.maxAge { additional["max_age"] = String(maxAge) }
        return additional
    }
}

extension WebRefreshRedeemer {
    /// The error of a refresh the provider answered with an authorization challenge (§6.2):
    /// ``RetrieveAccessTokenError/isInteractionRequired``, with the state the user goes on with.
    func challengeError(
        _ answer: AuthorizationChallengeAnswer, status: Int, account: AccountRecord, metadata: ProviderMetadata,
        correlationId: UUID
    ) async -> RetrieveAccessTokenError {
        guard
            case .insufficientAuthorization(let asked) = answer
        else { return RetrieveAccessTokenError(.unexpectedResponse, correlationId: correlationId) }
        let description = asked.description
        let cause = WebSignInError.oauth(
            error: "insufficient_authorization", description: description, uri: nil, status: status,
            correlationId: correlationId)
        let continuation: FirstPartySignInResult?
        do {
            continuation = try await self.continuation(
                asked, description: description, account: account, metadata: metadata, correlationId: correlationId)
        } catch {
            return Self.retrieveError(error, correlationId: correlationId)
        }
        return RetrieveAccessTokenError(
            details: .init(
                .interactionRequired, correlationId: correlationId, underlyingError: cause,
                note: "The provider asks the user to sign in again (insufficient_authorization).",
                interaction: continuation))
    }

    /// The sign-in the user goes on with after a refresh's challenge; `nil` when the account
    /// manager is gone. It decides itself, so that ``challengeError(_:status:account:metadata:correlationId:)``
    /// awaits under no condition.
    private func continuation(
        _ asked: AuthorizationChallengeAnswer.InsufficientAuthorization, description: String?, account: AccountRecord,
        metadata: ProviderMetadata, correlationId: UUID
    ) async throws(WebSignInError) -> FirstPartySignInResult? {
        guard let accounts = link.accounts else { return nil }
        let key = try await provider.key(continuing: account.dpopKey, metadata: metadata, correlationId: correlationId)
        let signIn = FirstPartySignIn(
            site: WebSignInSite(provider: provider, accounts: accounts, redirectURI: redirectURI),
            metadata: metadata, endpoint: metadata.authorizationChallengeEndpoint, pkce: PKCE(),
            scopes: account.signInScopes, username: account.username, correlationId: correlationId, dpopKey: key,
            subject: account.claims.subject)
        guard signIn.endpoint != nil else {
            return .browserRequired(
                FirstPartyBrowserRequiredState(signIn: signIn, requestURI: nil, message: description))
        }
        return .challengeRequired(
            FirstPartyChallengeState(
                signIn: signIn, authSession: asked.authSession ?? account.authSession.map(Secret.init), asked: asked,
                opensAuthorization: true))
    }
}
