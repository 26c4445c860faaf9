import AuthSupport
import Foundation

/// What a browser sign-in needs to pick up a native flow the server could not continue: the
/// client, who was signing in, the scopes and the correlation id.
/// A class: it never changes once made, and the error that carries it holds one reference.
final class BrowserContinuation: BrowserHandoff {
    let client: ClientCore
    let username: String
    let scopes: [String]

    init(client: ClientCore, username: String, scopes: [String]) {
        self.client = client
        self.username = username
        self.scopes = scopes
    }
}

extension ClientCore {
    /// The tenant's OpenID Connect issuer as the native authority names it (`{authority}/v2.0`).
    var webIssuer: URL { configuration.authority.appendingPathComponent("v2.0", isDirectory: false) }

    /// The tenant as a web provider, made once per client.
    func webProvider() throws(WebSignInError) -> WebProvider {
        if let cached = browserProvider.current { return cached }
        let provider = try WebProvider(
            issuer: webIssuer, clientId: configuration.clientId, pipeline: wire.pipeline.with(retry: .never),
            clock: ServerTimeClock.resolve(configuration.clock, transport: wire.pipeline.transport),
            tokenEndpointQuery: sliceQuery)
        return browserProvider.withLock { cached in
            if let cached { return cached }
            cached = provider
            return provider
        }
    }

    /// The slice parameters a browser sign-in sends to the authorization and token endpoints, as
    /// MSAL's `sliceConfig` does for "all requests made by an application" (Docs/NativeAuthV2Protocol.md,
    /// "The slice parameters").
    var sliceQuery: [(name: String, value: String?)] {
        [("slice", configuration.sliceConfig?.slice), ("dc", configuration.sliceConfig?.dc)]
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
        // MSAL's interactive sign-in sends the slice parameters to the authorization endpoint too.
        for (name, value) in sliceQuery {
            guard let value, !request.extraParameters.keys.contains(where: { $0.lowercased() == name }) else {
                continue
            }
            request.extraParameters[name] = value
        }
        let (answer, claims, correlationId, _) = try await provider.signIn(
            request, redirectURI: redirectURI, using: agent)
        let record = await accounts.signedIn(
            answer, username: parameters.loginHint ?? claims.preferredUsername ?? "", scopes: parameters.scopes,
            correlationId: correlationId)
        return UserAccountResult(record: record, manager: accounts)
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
