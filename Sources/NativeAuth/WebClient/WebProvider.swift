import AuthSupport
import Foundation

/// What a web client knows of its provider: discovery, the token endpoint client, the signing
/// keys and the clock. Shared by sign-in and refresh.
final class WebProvider: Sendable {
    let clientId: String
    let pipeline: RequestPipeline
    let discovery: ProviderDiscovery
    let tokens: WebTokenClient
    let clock: any NativeAuthClock
    let log: Log
    let pushedAuthorization: PushedAuthorizationRequestPolicy
    /// DPoP's keys and nonces, when the client binds its tokens to a key (RFC 9449).
    let dpop: DPoPContext?
    /// Query parameters added to the token endpoint of a code's redemption: the native client's
    /// slice parameters (``SliceConfig``); none for any other provider.
    let tokenEndpointQuery: [(name: String, value: String?)]
    /// The ID token signature algorithms accepted (``WebAuthConfiguration/idTokenAlgorithms``).
    let idTokenAlgorithms: Set<String>
    private let keys = Locked<(url: URL, cache: JWKSCache)?>(nil)
    /// The provider's clock minus ours, from the `Date` header of its last token answer, when
    /// within ``maximumClockCorrection``; 0 otherwise.
    private let skew: Locked<TimeInterval>
    /// The provider's clock minus ours when the last `Date` header was further off than
    /// ``maximumClockCorrection``, so that an error a time check then fails with can say why;
    /// `nil` when it was within.
    private let uncorrected = Locked<TimeInterval?>(nil)

    /// The largest difference between the provider's clock and ours that the ID token checks
    /// correct. A `Date` header further off (a clock set wrong, or an answer held back or forged)
    /// is not believed: the checks use the local clock, so they are never widened by more than
    /// this beyond their leeway.
    static let maximumClockCorrection: TimeInterval = 120

    /// A provider whose metadata is discovered from `issuer`.
    convenience init(
        issuer: URL, clientId: String, pipeline: RequestPipeline, clock: any NativeAuthClock,
        authentication: WebClientAuthentication = .none,
        pushedAuthorization: PushedAuthorizationRequestPolicy = .whenAvailable, dpop: DPoPContext? = nil,
        tokenEndpointQuery: [(name: String, value: String?)] = [],
        idTokenAlgorithms: Set<String> = WebAuthConfiguration.supportedIDTokenAlgorithms
    ) throws(WebSignInError) {
        self.init(
            discovery: try ProviderDiscovery(issuer: issuer, pipeline: pipeline), clientId: clientId,
            pipeline: pipeline, clock: clock, authentication: authentication,
            pushedAuthorization: pushedAuthorization, dpop: dpop, tokenEndpointQuery: tokenEndpointQuery,
            idTokenAlgorithms: idTokenAlgorithms)
    }

    /// A provider whose metadata `discovery` gives: discovered, or the app's own.
    init(
        discovery: ProviderDiscovery, clientId: String, pipeline: RequestPipeline, clock: any NativeAuthClock,
        authentication: WebClientAuthentication = .none,
        pushedAuthorization: PushedAuthorizationRequestPolicy = .whenAvailable, dpop: DPoPContext? = nil,
        tokenEndpointQuery: [(name: String, value: String?)] = [],
        idTokenAlgorithms: Set<String> = WebAuthConfiguration.supportedIDTokenAlgorithms
    ) {
        self.idTokenAlgorithms = idTokenAlgorithms
        self.clientId = clientId
        self.tokenEndpointQuery = tokenEndpointQuery
        self.pipeline = pipeline
        self.discovery = discovery
        let skew = Locked<TimeInterval>(0)
        tokens = WebTokenClient(
            pipeline: pipeline, authentication: authentication,
            assertion: ClientAssertionContext(
                audiences: { [discovery] (correlationId) async throws(WebSignInError) in
                    let metadata = try await discovery.metadata(correlationId: correlationId)
                    return ClientAssertionAudiences(
                        issuer: metadata.issuer, tokenEndpoint: metadata.tokenEndpoint,
                        acceptedAlgorithms: metadata.tokenEndpointAuthSigningAlgValuesSupported)
                },
                now: { [skew] in clock.now().addingTimeInterval(skew.current) }))
        self.skew = skew
        self.clock = clock
        log = pipeline.log
        self.pushedAuthorization = pushedAuthorization
        self.dpop = dpop
    }

    /// The signer of `key`'s proofs, on the provider's clock, which a refused proof's answer may
    /// correct.
    func signer(_ key: DPoPBoundKey, context: DPoPContext) -> DPoPSigner {
        DPoPSigner(
            context: context, key: key, now: { [self] in providerNow() },
            noteServerDate: { [self] in noteServerDate($0) })
    }

    /// A new DPoP key for a sign-in, when the client uses DPoP.
    func newDPoPKey(_ metadata: ProviderMetadata, correlationId: UUID) async throws(WebSignInError) -> DPoPBoundKey? {
        guard let dpop else { return nil }
        do {
            return try await dpop.makeKey(acceptedByServer: metadata.dpopSigningAlgValuesSupported)
        } catch {
            throw WebSignInError(error, correlationId: correlationId)
        }
    }

    /// The DPoP key of a sign-in that may continue an account: the account's stored key, or a new
    /// one when there is no stored key. One call, so that callers do not await under a condition.
    func key(continuing storedForm: Data?, metadata: ProviderMetadata, correlationId: UUID)
        async throws(WebSignInError) -> DPoPBoundKey?
    {
        guard storedForm != nil else { return try await newDPoPKey(metadata, correlationId: correlationId) }
        return try await key(forStoredKey: storedForm, correlationId: correlationId)
    }

    /// The signer for an account's stored DPoP key; `nil` when the account has none.
    func signer(forStoredKey storedForm: Data?, correlationId: UUID?) async throws(WebSignInError) -> DPoPSigner? {
        guard let key = try await key(forStoredKey: storedForm, correlationId: correlationId), let dpop else {
            return nil
        }
        return signer(key, context: dpop)
    }

    /// An account's stored DPoP key, read back; `nil` when the account has none.
    func key(forStoredKey storedForm: Data?, correlationId: UUID?) async throws(WebSignInError) -> DPoPBoundKey? {
        guard let storedForm else { return nil }
        guard let dpop else {
            throw WebSignInError(
                .proofOfPossession(.keyUnavailable),
                note: "The account's tokens are bound to a DPoP key, and this client has DPoP turned off.",
                correlationId: correlationId)
        }
        do {
            return try await dpop.key(for: storedForm)
        } catch {
            throw WebSignInError(error, correlationId: correlationId)
        }
    }

    /// The transport as the app gave it, for its own API requests.
    var transport: any HTTPTransport { pipeline.transport }

    /// Now on the provider's clock.
    func providerNow() -> Date { clock.now().addingTimeInterval(skew.current) }

    func noteServerDate(_ date: Date?) {
        guard let date else { return }
        let measured = date.timeIntervalSince(clock.now())
        guard abs(measured) <= Self.maximumClockCorrection else {
            skew.withLock { $0 = 0 }
            uncorrected.withLock { $0 = measured.isFinite ? measured : nil }
            log(
                .warning, "provider's clock is too far from ours; ID tokens are checked on the local clock",
                ["seconds": measured.isFinite ? "\(Int(measured))" : "?"])
            return
        }
        skew.withLock { $0 = measured }
        uncorrected.withLock { $0 = nil }
    }

    /// `error`, with a note saying how far the provider's clock is from the client's when a time
    /// check failed (an ID token's times, a refused DPoP proof) after the provider's `Date` was
    /// too far off to correct: the usual cause is a clock set wrong, on the device or in
    /// ``WebAuthConfiguration/clock``.
    func explainingClock(_ error: WebSignInError) -> WebSignInError {
        switch error.code {
        case .invalidIDToken(.expired), .invalidIDToken(.issuedInFuture), .invalidIDToken(.notYetValid),
            .invalidIDToken(.authTime), .proofOfPossession(.proofRefused):
            guard let difference = uncorrected.current else { return error }
            return error.adding(note: Self.clockNote(difference))
        default:
            return error
        }
    }

    /// "The provider's clock (its `Date` header) is about 2 days ahead of this client's …".
    static func clockNote(_ difference: TimeInterval) -> String {
        let seconds = abs(difference)
        let (amount, unit): (Double, String) =
            seconds >= 172_800
            ? (seconds / 86_400, "days") : seconds >= 7_200 ? (seconds / 3_600, "hours") : (seconds / 60, "minutes")
        let side = difference > 0 ? "ahead of" : "behind"
        return "The provider's clock (its Date header) is about \(Int(amount.rounded())) \(unit) \(side) this "
            + "client's: set the device's time, or the clock in WebAuthConfiguration (an in-process emulator's "
            + "transport gives its own when the configuration keeps the system clock)."
    }

    /// The key cache for the provider's `jwks_uri`.
    func keyCache(_ metadata: ProviderMetadata) throws(WebSignInError) -> JWKSCache {
        guard let url = metadata.jwksURI else {
            throw WebSignInError(.invalidIDToken(.signature), note: "The provider publishes no signing keys.")
        }
        return keys.withLock { current in
            if let current, current.url == url { return current.cache }
            let cache = JWKSCache(url: url, pipeline: pipeline)
            current = (url, cache)
            return cache
        }
    }

    /// Checks an ID token of this provider.
    @inline(never)
    func validate(_ idToken: Secret, metadata: ProviderMetadata, expecting: IDTokenValidator.Expectations)
        async throws(WebSignInError) -> Claims
    {
        var validator = IDTokenValidator(issuer: metadata.issuer, clientId: clientId)
        validator.acceptedAlgorithms = idTokenAlgorithms
        do {
            return try await validator.validate(idToken, keys: try keyCache(metadata), expecting: expecting)
        } catch {
            throw explainingClock(error)
        }
    }

    /// Runs an authorization request through `agent`, pushed first when the policy says so, and
    /// checks everything that comes back: the callback (`state`, `iss`, `error`), the code
    /// exchange, the ID token (with `subject`, the `sub` it must carry). Stores nothing.
    func signIn(
        _ parameters: WebSignInParameters, redirectURI: URL, subject: String? = nil, using agent: any ExternalUserAgent
    ) async throws(WebSignInError) -> (TokenAnswer, Claims, UUID, dpopKey: Data?) {
        let correlationId = parameters.correlationId ?? UUID()
        let metadata = try await discovery.metadata(correlationId: correlationId)
        var parameters = parameters
        parameters.correlationId = correlationId
        // The default random source is the platform's CSPRNG.
        let request = try AuthorizationRequest(
            metadata: metadata, clientId: clientId, redirectURI: redirectURI, parameters: parameters)
        // Made before the browser opens: a key that cannot be made fails the sign-in at once.
        let key = try await newDPoPKey(metadata, correlationId: correlationId)
        try tokens.authentication.checkAssertionAlgorithm(
            acceptedBy: metadata.tokenEndpointAuthSigningAlgValuesSupported, correlationId: correlationId)
        let url = try await browserURL(for: request, metadata: metadata)
        let callbackURL = try await show(url, redirectURI: redirectURI, using: agent, correlationId: correlationId)
        let callback = try request.callback(from: callbackURL)
        let (answer, claims) = try await redeem(
            callback.code, redirectURI: request.redirectURI, verifier: request.pkce.verifier, nonce: request.nonce,
            maxAge: request.maxAge, metadata: metadata, correlationId: correlationId, dpopKey: key, subject: subject,
            acrValues: request.requiredACRValues)
        return (TokenAnswer(answer), claims, correlationId, key?.storedForm)
    }

    /// Lets `agent` show `url` and returns the URL the browser came back with.
    ///
    /// - Throws: ``WebSignInError/isCancelled`` when the user closed the browser or the task was
    ///   cancelled, ``WebSignInError/isInvalidCallback`` when the agent failed otherwise.
    ///   One body for sign-in, sign-out and a first-party sign-in's browser step.
    @inline(never)
    func show(_ url: URL, redirectURI: URL, using agent: any ExternalUserAgent, correlationId: UUID)
        async throws(WebSignInError) -> URL
    {
        do {
            return try await agent.authorize(url: url, redirectURI: redirectURI)
        } catch {
            throw WebSignInError.agentFailure(error, correlationId: correlationId)
        }
    }

    /// Redeems an authorization code at the token endpoint with its PKCE verifier and checks the
    /// answer's ID token: the one path every code takes, from a browser's callback or from a
    /// first-party sign-in's authorization challenge endpoint. Stores nothing.
    ///
    /// - Parameters:
    ///   - redirectURI: the authorization request's `redirect_uri`; `nil` when it had none (no
    ///     `redirect_uri` is sent then, RFC 6749 §4.1.3).
    ///   - nonce: the request's `nonce`, which the ID token must carry; `nil` when none was sent.
    ///   - dpopKey: the sign-in's DPoP key, when the client binds its tokens to one.
    ///   - subject: the `sub` the ID token must carry: the account's, for a sign-in that continues it.
    ///   - acrValues: a step-up's `acr_values`, which the ID token's `acr` must be one of when it
    ///     has one; empty for no check.
    @inline(never)
    func redeem(
        _ code: Secret, redirectURI: URL?, verifier: Secret, nonce: Secret?, maxAge: Int?, metadata: ProviderMetadata,
        correlationId: UUID, dpopKey key: DPoPBoundKey?, subject: String? = nil, acrValues: [String] = []
    ) async throws(WebSignInError) -> (WebTokenAnswer, Claims) {
        let answer: WebTokenAnswer
        do {
            answer = try await tokens.send(
                WebTokenRequest(
                    tokenEndpoint: SliceConfig.appending(tokenEndpointQuery, to: metadata.tokenEndpoint),
                    clientId: clientId,
                    grant: .authorizationCode(code: code, redirectURI: redirectURI, verifier: verifier),
                    correlationId: correlationId),
                dpop: key.flatMap { key in dpop.map { signer(key, context: $0) } })
        } catch {
            throw explainingClock(error)
        }
        noteServerDate(answer.serverDate)
        guard let idToken = answer.idToken else {
            throw WebSignInError(.invalidIDToken(.missing), correlationId: correlationId)
        }
        let claims = try await validate(
            idToken, metadata: metadata,
            expecting: .init(
                nonce: nonce, subject: subject, accessToken: answer.accessToken, maxAge: maxAge, acrValues: acrValues,
                now: providerNow()))
        return (answer, claims)
    }

    /// The URL to show for `request`: its own, or, once pushed (RFC 9126), the authorization
    /// endpoint with `client_id` and the answer's `request_uri`.
    ///
    /// - Throws: what the policy and the push throw, and ``WebSignInError/isExpired`` when the
    ///   `request_uri` expired on this client's clock before the browser could be opened (its
    ///   lifetime counts from before the request was sent). Nothing is shown then.
    func browserURL(for request: AuthorizationRequest, metadata: ProviderMetadata)
        async throws(WebSignInError) -> URL
    {
        guard let endpoint = try pushedAuthorization.endpoint(for: metadata, correlationId: request.correlationId)
        else { return request.url }
        let sentAt = clock.now()
        let answer = try await PushedAuthorizationRequest(
            endpoint: endpoint, request: request, authentication: tokens.authentication, assertion: tokens.assertion
        ).send(through: pipeline)
        guard clock.now() < sentAt.addingTimeInterval(TimeInterval(answer.expiresIn)) else {
            log(
                .warning, "pushed authorization request expired before the browser opened",
                ["expires_in": "\(answer.expiresIn)"], correlationId: request.correlationId)
            throw WebSignInError(
                .pushedRequestExpired,
                note: "Its request_uri lived \(answer.expiresIn) s, which ran out before the browser was opened.",
                correlationId: request.correlationId)
        }
        return try request.url(requestURI: answer.requestURI)
    }
}
