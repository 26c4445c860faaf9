public import Foundation

extension WebAuthClient {
    /// Signs `account` out: here, at the provider's token service, and optionally in the browser.
    ///
    /// In order:
    /// 1. **Locally**, always and first: the account's credentials leave the credential store and
    ///    the cache, and ``SessionEvent/signedOut(_:reason:)`` is published, exactly as
    ///    ``UserAccountResult/signOut()`` does. The refresh token and ID token are taken with it.
    /// 2. **Revocation** (RFC 7009): the refresh token is sent to the provider's
    ///    `revocation_endpoint` with `token_type_hint=refresh_token`, authenticated as the
    ///    configuration's ``WebAuthConfiguration/clientAuthentication`` says (many providers
    ///    revoke for confidential clients only). Revoking a refresh token also ends the access
    ///    tokens issued with it at most providers (RFC 7009 §2.1).
    /// 3. **End of the provider's session** (OpenID Connect RP-Initiated Logout 1.0), only when an
    ///    `agent` is given: the agent shows the provider's `end_session_endpoint` with
    ///    `id_token_hint`, `client_id`, `post_logout_redirect_uri` and a fresh `state`, and the
    ///    URL it comes back with must carry that `state`. Without this step the browser may still
    ///    be signed in at the provider, and the next sign-in may not ask for a password.
    ///
    /// Steps 2 and 3 never undo step 1, and nothing is thrown: each step's outcome is in the
    /// result (``WebSignOutResult/Outcome/done``, ``WebSignOutResult/Outcome/notSupported`` when
    /// the provider has no such endpoint, ``WebSignOutResult/Outcome/skipped`` when there was
    /// nothing to do, ``WebSignOutResult/Outcome/failed(_:)`` with the error).
    ///
    /// ```swift
    /// let result = await client.signOut(
    ///     account, endingSessionUsing: agent,
    ///     postLogoutRedirectURI: URL(string: "com.example.app:/signed-out")!)
    /// ```
    ///
    /// - Parameters:
    ///   - account: an account of this client. An account of another client is signed out
    ///     locally only, and both provider steps report ``WebSignInError/isInvalidParameters``.
    ///   - agent: what shows the end-session page; `nil` (the default) leaves the provider's
    ///     browser session alone.
    ///   - postLogoutRedirectURI: where the provider sends the browser back; it must be registered
    ///     at the provider as a post-logout redirect URI. `nil` uses the client's ``redirectURI``.
    /// - Returns: the local sign-out and the outcome of each step at the provider.
    @discardableResult
    public func signOut(
        _ account: UserAccountResult, endingSessionUsing agent: (any ExternalUserAgent)? = nil,
        postLogoutRedirectURI: URL? = nil
    ) async -> WebSignOutResult {
        let correlationId = UUID()
        let identifier = account.account.identifier
        guard account.manager === accounts else {
            let local = await account.manager.signOut(identifier: identifier)
            let error = WebSignInError.invalidParameters(
                "The account was not signed in with this client; it was signed out locally only.",
                correlationId: correlationId)
            return WebSignOutResult(local: local, revocation: .failed(error), endSession: .failed(error))
        }
        // A DPoP-bound refresh token is revoked with a proof of its key, read before sign-out deletes it.
        let signer = try? await accounts.dpopSigner(identifier: identifier)
        let (local, credentials) = await accounts.signOutTakingCredentials(identifier: identifier)
        // The stored ID token is the newest (a refresh may have replaced it); the account's own
        // copy serves when the account was signed out before.
        let idToken = credentials?.idToken ?? account.idToken
        let refreshToken = credentials?.refreshToken.flatMap { $0.isEmpty ? nil : Secret($0) }

        // Each step decides itself whether it runs: an await under a condition here would repeat
        // the code after it in every branch.
        let endpoints = await signOutEndpoints(
            needed: refreshToken != nil || agent != nil, correlationId: correlationId)
        let revocation = await revoke(refreshToken, endpoints: endpoints, dpop: signer, correlationId: correlationId)
        let endSession = await endSession(
            using: agent, endpoints: endpoints, idToken: idToken,
            postLogoutRedirectURI: postLogoutRedirectURI ?? redirectURI, correlationId: correlationId)
        provider.log(
            .info, "provider sign-out steps",
            ["revocation": revocation.name, "endSession": endSession.name], correlationId: correlationId)
        return WebSignOutResult(local: local, revocation: revocation, endSession: endSession)
    }

    /// The provider's revocation and end-session endpoints when a step needs them (`nil` when
    /// none does): only these two are kept, not the whole metadata, across the steps' suspensions.
    private func signOutEndpoints(needed: Bool, correlationId: UUID) async -> SignOutEndpoints? {
        guard needed else { return nil }
        do {
            let found = try await provider.discovery.metadata(correlationId: correlationId)
            return .success((found.revocationEndpoint, found.endSessionEndpoint))
        } catch {
            return .failure(error)
        }
    }

    /// Revokes `token` (RFC 7009) when there is one and the provider has a revocation endpoint.
    private func revoke(_ token: Secret?, endpoints: SignOutEndpoints?, dpop: DPoPSigner?, correlationId: UUID) async
        -> WebSignOutResult.Outcome
    {
        guard let token, let endpoints else { return .skipped }
        let endpoint: URL
        switch endpoints.map(\.revocation) {
        case .failure(let error): return .failed(error)
        case .success(nil): return .notSupported
        case .success(let found?): endpoint = found
        }
        do {
            try await provider.tokens.revoke(
                TokenRevocationRequest(
                    endpoint: endpoint, token: token, hint: .refreshToken, clientId: clientId,
                    correlationId: correlationId),
                dpop: dpop)
            return .done
        } catch {
            return .failed(error)
        }
    }

    /// Ends the provider's session through `agent` when one is given and the provider has an
    /// end-session endpoint.
    private func endSession(
        using agent: (any ExternalUserAgent)?, endpoints: SignOutEndpoints?, idToken: String,
        postLogoutRedirectURI: URL, correlationId: UUID
    ) async -> WebSignOutResult.Outcome {
        guard let agent, let endpoints else { return .skipped }
        let endpoint: URL
        switch endpoints.map(\.endSession) {
        case .failure(let error): return .failed(error)
        case .success(nil): return .notSupported
        case .success(let found?): endpoint = found
        }
        do throws(WebSignInError) {
            let request = try EndSessionRequest(
                endpoint: endpoint, idTokenHint: idToken, clientId: clientId,
                postLogoutRedirectURI: postLogoutRedirectURI, state: OAuthRandom.token(), correlationId: correlationId)
            let callback = try await provider.show(
                request.url, redirectURI: postLogoutRedirectURI, using: agent, correlationId: correlationId)
            try request.check(callback: callback)
            return .done
        } catch {
            return .failed(error)
        }
    }

    /// The revocation and end-session endpoints, or why the metadata could not be read.
    private typealias SignOutEndpoints = Result<(revocation: URL?, endSession: URL?), WebSignInError>
}

extension WebSignOutResult.Outcome {
    /// The outcome's name without the error, for logs.
    var name: String {
        switch self {
        case .done: "done"
        case .notSupported: "notSupported"
        case .skipped: "skipped"
        case .failed(let error): error.isCancelled ? "cancelled" : "failed"
        }
    }
}

extension WebSignInError {
    /// What an ``ExternalUserAgent`` threw: the user closing the browser (or the task being
    /// cancelled) is ``isCancelled``; anything else means the browser did not come back.
    static func agentFailure(_ error: any Error, correlationId: UUID) -> WebSignInError {
        if let error = error as? ExternalUserAgentError, error.isCancelled {
            return WebSignInError(.cancelled, correlationId: correlationId, underlyingError: error)
        }
        if error is CancellationError { return .cancelled(correlationId: correlationId) }
        return WebSignInError(
            .invalidCallback, note: "The browser did not return to the app.", correlationId: correlationId,
            underlyingError: error)
    }
}
