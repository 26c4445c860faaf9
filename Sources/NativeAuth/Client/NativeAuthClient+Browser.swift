public import Foundation

extension NativeAuthClient {
    /// Signs the user in with the tenant's browser-based sign-in (OpenID Connect, authorization
    /// code with PKCE), for when native sign-in cannot go on (``NativeAuthError/isBrowserRequired``)
    /// or the app prefers it. The account is the same kind, in the same store, as a native sign-in.
    /// As with a native sign-in, `openid profile offline_access` are always asked for.
    ///
    /// - Parameters:
    ///   - parameters: scopes, `loginHint` (the username), prompt, …
    ///   - redirectURI: the redirect URI registered for the app (a custom scheme, https, or a
    ///     loopback `http://127.0.0.1:PORT/path` for ``LoopbackUserAgent``).
    ///   - agent: what shows the browser.
    /// - Throws: ``WebSignInError``.
    public func signInWithBrowser(
        _ parameters: WebSignInParameters, redirectURI: URL, using agent: any ExternalUserAgent
    ) async throws(WebSignInError) -> UserAccountResult {
        try await core.signInWithBrowser(parameters, redirectURI: redirectURI, using: agent)
    }
}

extension NativeAuthError {
    /// Continues in the browser a native flow that answered ``isBrowserRequired``: the same user
    /// (as `login_hint`), the flow's scopes and correlation id; the account lands in the same store
    /// as a native sign-in.
    ///
    /// - Throws: ``WebSignInError``; ``WebSignInError/isInvalidParameters`` when this error is not
    ///   one that continues in the browser.
    public func continueInBrowser(redirectURI: URL, using agent: any ExternalUserAgent)
        async throws(WebSignInError) -> UserAccountResult
    {
        guard isBrowserRequired, let continuation = details.browserContinuation as? BrowserContinuation else {
            throw WebSignInError.invalidParameters(
                "Only an error that says the browser is required continues in the browser.",
                correlationId: correlationId)
        }
        var parameters = WebSignInParameters(scopes: continuation.scopes)
        if !continuation.username.isEmpty { parameters.loginHint = continuation.username }
        parameters.correlationId = correlationId
        return try await continuation.client.signInWithBrowser(parameters, redirectURI: redirectURI, using: agent)
    }
}

extension NativeAuthClient {
    /// Signs the user in with the tenant's browser-based sign-in and reports the outcome to
    /// `delegate`, once, on the main actor. The delegate form of
    /// ``signInWithBrowser(_:redirectURI:using:)``.
    public func signInWithBrowser(
        _ parameters: WebSignInParameters, redirectURI: URL, using agent: any ExternalUserAgent,
        delegate: any WebSignInDelegate
    ) {
        reportWebSignIn(to: delegate) { () async throws(WebSignInError) in
            try await self.signInWithBrowser(parameters, redirectURI: redirectURI, using: agent)
        }
    }
}

extension NativeAuthError {
    /// Continues in the browser a native flow that answered ``isBrowserRequired`` and reports the
    /// outcome to `delegate`, once, on the main actor. The delegate form of
    /// ``continueInBrowser(redirectURI:using:)``.
    public func continueInBrowser(
        redirectURI: URL, using agent: any ExternalUserAgent, delegate: any WebSignInDelegate
    ) {
        reportWebSignIn(to: delegate) { () async throws(WebSignInError) in
            try await self.continueInBrowser(redirectURI: redirectURI, using: agent)
        }
    }
}
