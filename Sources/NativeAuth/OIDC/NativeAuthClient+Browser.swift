import AuthSupport
public import Foundation

/// What a browser sign-in needs to pick up a native flow the server could not continue: the
/// client, who was signing in, the scopes and the correlation id.
struct BrowserContinuation: Sendable {
    let client: ClientCore
    let username: String
    let scopes: [String]
}

extension ClientCore {
    /// The tenant's OpenID Connect issuer as the native authority names it (`{authority}/v2.0`).
    var webIssuer: URL { configuration.authority.appendingPathComponent("v2.0", isDirectory: false) }

    /// The tenant as a web provider, made once per client.
    func webProvider() throws(WebSignInError) -> WebProvider {
        if let cached = browserProvider.current { return cached }
        let provider = try WebProvider(
            issuer: webIssuer, clientId: configuration.clientId, pipeline: wire.pipeline, clock: configuration.clock)
        return browserProvider.withLock { cached in
            if let cached { return cached }
            cached = provider
            return provider
        }
    }

    /// A flow context to attach to an error of a flow's first step.
    func context(username: String, scopes: [String], correlationId: UUID) -> FlowContext {
        FlowContext(
            client: self, correlationId: correlationId,
            username: username.trimmingCharacters(in: .whitespacesAndNewlines), scopes: scopes)
    }

    /// Signs in through the browser and keeps the account as a native sign-in would.
    func signInWithBrowser(
        _ parameters: WebSignInParameters, redirectURI: URL, using agent: any ExternalUserAgent
    ) async throws(WebSignInError) -> UserAccountResult {
        let provider = try webProvider()
        // Like the native flows, ask for `profile offline_access` too: without a refresh token the
        // account could not refresh at the tenant's token endpoint once its access token expires.
        var request = parameters
        request.scopes = parameters.scopes + ["profile", "offline_access"]
        let (answer, claims, correlationId) = try await provider.signIn(
            request, redirectURI: redirectURI, using: agent)
        let record = await accounts.signedIn(
            answer, username: parameters.loginHint ?? claims.preferredUsername ?? "", scopes: parameters.scopes,
            correlationId: correlationId)
        return UserAccountResult(record: record, manager: accounts)
    }
}

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
        guard isBrowserRequired, let continuation = details.browserContinuation else {
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

extension DetailedError {
    /// This error with what a browser sign-in needs to continue the flow, when it says the browser
    /// is required.
    func continuing(_ flow: FlowContext) -> Self {
        guard details.kind == .browserRequired, details.browserContinuation == nil else { return self }
        return Self(details: details.continuing(flow))
    }
}

extension NativeAuthErrorDetails {
    /// The details with what a browser sign-in needs to continue `flow`, when the server asked for a browser.
    func continuing(_ flow: FlowContext) -> Self {
        guard kind == .browserRequired, browserContinuation == nil else { return self }
        var details = self
        details.browserContinuation = BrowserContinuation(
            client: flow.client, username: flow.username, scopes: flow.scopes)
        return details
    }
}

extension BrowserContinuation: CustomReflectable {
    /// Nothing of the client shows in a `dump()` of an error.
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
