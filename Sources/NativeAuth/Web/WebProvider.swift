import Foundation

/// What a web client knows of its provider: discovery, the token endpoint client, the signing
/// keys and the clock. Shared by sign-in and refresh.
final class WebProvider: Sendable {
    let clientId: String
    let transport: any HTTPTransport
    let discovery: ProviderDiscovery
    let tokens: WebTokenClient
    let clock: any NativeAuthClock
    let log: Log
    private let keys = Locked<(url: URL, cache: JWKSCache)?>(nil)
    /// The provider's clock minus ours, from the `Date` header of its last token answer.
    private let skew = Locked<TimeInterval>(0)

    init(issuer: URL, clientId: String, transport: any HTTPTransport, clock: any NativeAuthClock, log: Log)
        throws(WebSignInError)
    {
        self.clientId = clientId
        self.transport = transport
        discovery = try ProviderDiscovery(issuer: issuer, transport: transport, log: log)
        tokens = WebTokenClient(transport: transport, log: log)
        self.clock = clock
        self.log = log
    }

    /// Now on the provider's clock.
    func providerNow() -> Date { clock.now().addingTimeInterval(skew.current) }

    func noteServerDate(_ date: Date?) {
        guard let date else { return }
        skew.withLock { $0 = date.timeIntervalSince(clock.now()) }
    }

    /// The key cache for the provider's `jwks_uri`.
    func keyCache(_ metadata: ProviderMetadata) throws(WebSignInError) -> JWKSCache {
        guard let url = metadata.jwksURI else {
            throw WebSignInError(.invalidIDToken(.signature), note: "The provider publishes no signing keys.")
        }
        return keys.withLock { current in
            if let current, current.url == url { return current.cache }
            let cache = JWKSCache(url: url, transport: transport)
            current = (url, cache)
            return cache
        }
    }

    /// Checks an ID token of this provider.
    func validate(_ idToken: Secret, metadata: ProviderMetadata, expecting: IDTokenValidator.Expectations)
        async throws(WebSignInError) -> Claims
    {
        let validator = IDTokenValidator(issuer: metadata.issuer, clientId: clientId)
        return try await validator.validate(idToken, keys: try keyCache(metadata), expecting: expecting)
    }
}
