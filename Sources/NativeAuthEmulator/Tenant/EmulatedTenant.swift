import AuthSupport
public import Foundation
public import NativeAuth

/// An in-process Microsoft Entra External ID tenant that speaks the native authentication API.
///
/// The tenant is an ``HTTPTransport``: hand it to a client instead of the network and every flow
/// (sign-up, sign-in with password or email code, MFA, method registration, password reset,
/// refresh) runs against it, with no network and no waiting.
///
/// ```swift
/// let tenant = EmulatedTenant(clock: ManualClock(), random: SeededRandomSource(seed: 1))
/// tenant.addUser(EmulatedUser(username: "ada@contoso.com", password: "Analytical-Engine-1843"))
/// // Point a client at `tenant.authority` and `tenant.clientId`, with `tenant` as its transport.
/// // Codes the tenant "sends" land in `tenant.outbox`: read one with `tenant.lastCode(sentTo:)`.
/// ```
///
/// It answers as Docs/Protocol.md describes: `POST {authority}/{endpoint}` with a
/// form-encoded body, JSON answers with `client-request-id` and `Date` headers, 400 error bodies
/// with the documented `error`, `suberror` and `error_codes`. Use ``force(_:on:times:)`` to make an
/// endpoint misbehave, ``receivedRequests`` to check what a client sent, and ``settings`` to shape
/// the tenant's policies. The clock and random source are injected, so tests are deterministic.
///
/// It also serves the tenant's OpenID Connect endpoints for browser sign-in: discovery at
/// `{authority}/v2.0/.well-known/openid-configuration` (see ``issuer``), the keys, the
/// authorization endpoint with its sign-in page, the `authorization_code` grant with PKCE and
/// RS256-signed ID tokens, and end session. ``EmulatedBrowser`` fills in the sign-in page in tests;
/// users made with ``EmulatedUser/requiresBrowser`` can sign in only that way. With
/// ``EmulatorSettings/dpop`` on, it binds the tokens of browser sign-ins to the key of a DPoP proof
/// (RFC 9449), checking each proof with its own code, and its protected resource takes them.
///
/// With ``EmulatorSettings/nativeAuthV2`` (on by default) it also serves the sign-in journey of
/// Native Auth V2 (Docs/NativeAuthV2.md): ``EmulatorEndpoint/authorizeChallenge``, HAL answers
/// whose links lead under `/{tenantId}/api/v2.0/`, and the `authorization_code` grant of its codes.
///
/// All methods are safe to call from any task: the tenant's state sits behind one lock, and each
/// request is answered as one atomic step.
public final class EmulatedTenant: ServerClockTransport, Sendable {
    /// The tenant's subdomain, as in `https://{subdomain}.ciamlogin.com`.
    public let tenantSubdomain: String
    /// The client id of the one app registered in the tenant; any other `client_id` is refused
    /// with `invalid_client`.
    public let clientId: String
    /// The tenant id: a GUID that depends only on the subdomain. It is the `tid` claim of the
    /// tokens, and `https://{subdomain}.ciamlogin.com/{tenantId}` is accepted as an authority too.
    public let tenantId: String
    /// The authority to point a client at: `https://{subdomain}.ciamlogin.com/{subdomain}.onmicrosoft.com`.
    public let authority: URL

    let state: Locked<TenantState>

    /// Creates an empty tenant.
    ///
    /// - Parameters:
    ///   - tenantSubdomain: The subdomain. It is lowercased and kept to letters, digits and `-`;
    ///     an empty result falls back to `contoso`.
    ///   - clientId: The client id of the registered app.
    ///   - clock: The clock for token lifetimes, code timestamps and the `Date` header.
    ///   - random: The source of codes, tokens and ids; a ``SeededRandomSource`` makes them reproducible.
    public init(
        tenantSubdomain: String = "contoso", clientId: String = "emulator-client-id",
        clock: any NativeAuthClock = SystemClock(), random: any EmulatorRandomSource = SystemRandomSource()
    ) {
        let cleaned = String(
            tenantSubdomain.lowercased().unicodeScalars.filter { scalar in
                scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-")
            })
        let subdomain = cleaned.isEmpty ? "contoso" : cleaned
        let tenantId = Encoding.stableUUID("tenant:\(subdomain)")
        let host = "\(subdomain).ciamlogin.com"
        var components = URLComponents()
        components.scheme = "https"
        components.host = host
        components.path = "/\(subdomain).onmicrosoft.com"
        self.tenantSubdomain = subdomain
        self.clientId = clientId
        self.tenantId = tenantId
        self.authority = components.url ?? URL(fileURLWithPath: "/\(subdomain).onmicrosoft.com")
        let environment = TenantEnvironment(
            tenantSubdomain: subdomain, tenantId: tenantId, clientId: clientId, host: host,
            tenantPaths: ["\(subdomain).onmicrosoft.com", tenantId], clock: clock, random: random)
        self.state = Locked(TenantState(environment: environment))
    }

    /// The URL of `endpoint` on this tenant: ``authority`` followed by the endpoint's path.
    public func url(for endpoint: EmulatorEndpoint) -> URL {
        authority.appendingPathComponent(endpoint.rawValue)
    }

    // MARK: - Settings

    /// The tenant's settings. Reading and writing each take the whole value at once; to change
    /// several fields atomically, use ``configure(_:)``.
    public var settings: EmulatorSettings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// Changes the settings in one atomic step.
    ///
    /// `body` runs while the tenant is locked: it must not call the tenant.
    ///
    /// ```swift
    /// tenant.configure { $0.codeLength = 6; $0.mfaRequiredForAll = true }
    /// ```
    public func configure(_ body: (inout EmulatorSettings) -> Void) {
        state.withLock { body(&$0.settings) }
    }

    // MARK: - Users

    /// Adds `user`, replacing any user with the same username (compared case-insensitively).
    public func addUser(_ user: EmulatedUser) {
        state.withLock { $0.users[user.username.lowercased()] = user }
    }

    /// Removes the user named `username`, if any. Flows already under way for them then fail with
    /// `user_not_found`, and their refresh and access tokens stop working.
    public func removeUser(named username: String) {
        _ = state.withLock { $0.users.removeValue(forKey: username.lowercased()) }
    }

    /// The current state of the user named `username` (case-insensitive), or `nil`: includes users
    /// created by sign-up, passwords changed by a reset and methods added by a registration.
    public func user(named username: String) -> EmulatedUser? {
        state.withLock { $0.user(named: username) }
    }

    /// Makes every refresh token issued to `username` stop working, as an administrator revoking
    /// the user's sessions would; a refresh then fails with `invalid_grant`. Access tokens already
    /// issued stay valid until they expire, as with a real tenant.
    public func revokeRefreshTokens(for username: String) {
        state.withLock { state in
            for (token, record) in state.refreshTokens where record.username.lowercased() == username.lowercased() {
                state.refreshTokens[token]?.revoked = true
            }
        }
    }

    // MARK: - Snapshots

    /// The tenant's lasting state as JSON, for ``restore(from:)`` in this process or a later one.
    ///
    /// A snapshot holds every user (username, password, attributes, MFA methods, whether a method
    /// must be registered, password history, whether the browser is required) and every refresh
    /// token that has not expired: its token, its user, its expiry, whether it was revoked (so a
    /// revoked token stays revoked) and whether it came from a browser sign-in. It has a
    /// `"format": 2` field (format 1 snapshots still load), and expiries are numbers of seconds
    /// since 1970 on the tenant's clock, ``EmulatorSettings/serverClockOffset`` included.
    ///
    /// It does not hold what the program sets up each time it starts, the ``settings``, nor what is
    /// short-lived: flows under way, continuation tokens, codes (one-time and authorization codes),
    /// browser sign-in pages, the ``outbox``,
    /// ``receivedRequests`` and forced answers. It records the subdomain and client id, but only so
    /// that it is not restored into another tenant. Access tokens are not kept by the tenant at all:
    /// the protected resource validates their claims, so one issued before the snapshot is accepted
    /// after a restore until it expires.
    ///
    /// The same state always gives the same bytes: users, attributes and refresh tokens are sorted.
    ///
    /// ```swift
    /// try tenant.snapshot().write(to: stateFile, options: .atomic)
    /// // Later, in a new process, with the same subdomain and client id:
    /// let tenant = EmulatedTenant(tenantSubdomain: "demo")
    /// try tenant.restore(from: Data(contentsOf: stateFile))
    /// ```
    public func snapshot() -> Data {
        let content = state.withLock { TenantSnapshot(of: $0) }
        return content.json.data
    }

    /// Replaces the tenant's users and refresh tokens with those of `snapshot`, as written by
    /// ``snapshot()``.
    ///
    /// Everything else is left as it is: the ``settings``, the ``outbox``, ``receivedRequests``,
    /// forced answers, and flows under way (which fail with `user_not_found` if their user is not
    /// in the snapshot). Unknown fields are ignored, so a snapshot may carry extra data; of a user
    /// only `username` is required, and a refresh token's `revoked` defaults to `false`.
    ///
    /// - Throws: ``EmulatorSnapshotError`` when `snapshot` is not a tenant snapshot
    ///   (``EmulatorSnapshotError/Kind/malformed``), has a format newer than 2
    ///   (``EmulatorSnapshotError/Kind/newerFormat``), or was taken of a tenant with another
    ///   subdomain or client id (``EmulatorSnapshotError/Kind/otherTenant``). The tenant is then
    ///   unchanged.
    public func restore(from snapshot: Data) throws(EmulatorSnapshotError) {
        let content = try TenantSnapshot(data: snapshot)
        if let subdomain = content.tenantSubdomain, subdomain != tenantSubdomain {
            throw EmulatorSnapshotError(
                .otherTenant, "The snapshot is of tenant \(subdomain), not \(tenantSubdomain).")
        }
        if let snapshotClientId = content.clientId, snapshotClientId != clientId {
            throw EmulatorSnapshotError(
                .otherTenant, "The snapshot is of client \(snapshotClientId), not \(clientId).")
        }
        state.withLock { state in
            state.users = content.users
            state.refreshTokens = content.refreshTokens
        }
    }

    // MARK: - Observing

    /// Every one-time code the tenant has "sent", oldest first.
    public var outbox: [SentCode] {
        state.withLock { $0.outbox }
    }

    /// The most recent code sent to `address` (compared case-insensitively), or `nil`.
    public func lastCode(sentTo address: String) -> String? {
        state.withLock { state in
            state.outbox.last { $0.to.lowercased() == address.lowercased() }?.code
        }
    }

    /// Every request the tenant received, oldest first, including those answered with a forced
    /// answer or a 404.
    public var receivedRequests: [HTTPRequest] {
        state.withLock { $0.receivedRequests }
    }

    /// Forgets the requests received so far.
    public func clearReceivedRequests() {
        state.withLock { $0.receivedRequests.removeAll() }
    }

    // MARK: - Misbehaving

    /// Makes the next `times` requests to `endpoint` get `answer` instead of the real one.
    ///
    /// Forced answers queue up in the order they were forced, and take effect before any check of
    /// the request, so even a malformed request gets them. They are still recorded in
    /// ``receivedRequests`` and change nothing else in the tenant.
    public func force(_ answer: ForcedAnswer, on endpoint: EmulatorEndpoint, times: Int = 1) {
        guard times > 0 else { return }
        state.withLock { state in
            state.forced[endpoint, default: []].append(contentsOf: Array(repeating: answer, count: times))
        }
    }

    // MARK: - HTTPTransport

    /// Answers `request` as the tenant would.
    ///
    /// Returns 200 for success, 400 for documented errors, 401 from the protected resource, 302
    /// (with `Location`) and HTML pages from the browser sign-in endpoints, 404 for an unknown
    /// method or path, or whatever a forced answer says.
    /// - Throws: `CancellationError` when the calling task is already cancelled (the request is
    ///   then not received); `URLError(.networkConnectionLost)` for a forced
    ///   ``ForcedAnswer/networkFailure``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, publicOrigin: nil)
    }

    /// Answers `request` at once, as ``send(_:publicOrigin:)`` would, in one atomic step; `nil`
    /// (and the request is not received) when the tenant's ``EmulatorSettings/latency`` holds
    /// answers, which only ``send(_:publicOrigin:)`` waits out. An ``EmulatorServer`` answers
    /// with it on its serving thread, without waiting for the Swift concurrency pool.
    func answerAtOnce(_ request: HTTPRequest, publicOrigin: String?) -> Outcome? {
        state.withLock { state in
            guard state.settings.latency <= 0 else { return nil }
            return state.handle(request, publicOrigin: publicOrigin)
        }
    }

    /// Answers `request` as ``send(_:)`` does; the web endpoints write their own URLs on
    /// `publicOrigin` (`http://127.0.0.1:PORT`, from an ``EmulatorServer``) when it is given.
    func send(_ request: HTTPRequest, publicOrigin: String?) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let latency = settings.latency
        if latency > 0 {
            // On the tenant's clock: a test moves a manual clock instead of waiting.
            try await state.withLock { $0.environment.clock }.sleep(seconds: latency)
        }
        switch state.withLock({ $0.handle(request, publicOrigin: publicOrigin) }) {
        case .response(let response):
            return response
        case .networkFailure:
            throw URLError(.networkConnectionLost)
        case .failure(let code):
            throw URLError(code)
        }
    }
}
