import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// The SDK's own PS256 and RS256 keys, with a record of what the client asked of them: the stored forms
/// made, how many were read back, and which were deleted.
final class RecordingSoftwareKeyProvider: DPoPKeyProvider {
    let inner = SoftwareDPoPKeyProvider()
    private let record = Locked<(made: [Data], restored: Int, deleted: [Data])>(([], 0, []))

    var made: [Data] { record.current.made }
    var restored: Int { record.current.restored }
    var deleted: [Data] { record.current.deleted }

    var supportedAlgorithms: [String] { inner.supportedAlgorithms }

    func makeKey(algorithm: String) async throws -> (key: any DPoPKey, storedForm: Data) {
        let made = try await inner.makeKey(algorithm: algorithm)
        record.withLock { $0.made.append(made.storedForm) }
        return made
    }

    func restoreKey(from storedForm: Data) async throws -> any DPoPKey {
        record.withLock { $0.restored += 1 }
        return try await inner.restoreKey(from: storedForm)
    }

    func deleteKey(storedForm: Data) async {
        record.withLock { $0.deleted.append(storedForm) }
        await inner.deleteKey(storedForm: storedForm)
    }

    /// The key of the first stored form made, read back outside the client.
    func firstKey() async throws -> any DPoPKey {
        try await inner.restoreKey(from: try #require(made.first))
    }
}

/// A transport that records every request with its answer.
final class ExchangeRecordingTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let recorded = Locked<[(request: HTTPRequest, response: HTTPResponse)]>([])

    init(_ inner: any HTTPTransport = URLSessionTransport(timeout: TestBounds.requestDeadline)) { self.inner = inner }

    var exchanges: [(request: HTTPRequest, response: HTTPResponse)] { recorded.current }

    /// The exchanges with a path ending in `suffix`, in order.
    func exchanges(_ suffix: String) -> [(request: HTTPRequest, response: HTTPResponse)] {
        exchanges.filter { $0.request.url.path.hasSuffix(suffix) }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        recorded.withLock { $0.append((request, response)) }
        return response
    }
}

/// DPoP (RFC 9449) against the real server. Tests/OIDCServer/setup.py runs two more instances of
/// glewlwyd's OpenID Connect plugin: `{server}/api/oidc-dpop` (`oauth-dpop-allowed`,
/// `oauth-dpop-iat-duration` 60 s, `oauth-dpop-iat-gap-duration` 5 s,
/// `oauth-dpop-dpop_bound_access_tokens-property` `dpop_bound_access_tokens`) and
/// `{server}/api/oidc-dpop-nonce` (the same, with `oauth-dpop-nonce-mandatory` and
/// `oauth-dpop-nonce-counter` 3), and the public client `dpop-app`, whose
/// `dpop_bound_access_tokens` property makes DPoP mandatory for it. The other instances keep their
/// settings, so the other live suites run as before.
///
/// Known glewlwyd 2.7.5 behaviour these tests pin down:
/// - its userinfo endpoint checks a proof's signature, `htm`, `htu`, `iat`, `ath`, `jti` and nonce,
///   but not that the proof's key is the one the access token is bound to (`cnf.jkt`, RFC 9449
///   §7.1): a proof made with any key is accepted (its token endpoint does compare keys);
/// - its token endpoint refuses a proof with `invalid_dpop_proof` and status 403 where RFC 9449 §5
///   and RFC 6749 §5.2 have 400; its userinfo endpoint with 401 and that error in a JSON body,
///   without RFC 9449 §7.1's `DPoP` challenge, and a bound token sent as `Bearer` or without a
///   proof with a bare 401 (no `WWW-Authenticate` at all);
/// - it takes a proof whose `iat` is at most `oauth-dpop-iat-gap-duration` ahead of its clock and
///   `oauth-dpop-iat-duration` behind, and refuses others like any wrong proof;
/// - it checks proofs wherever they come: `oauth-dpop-allowed` only publishes
///   `dpop_signing_alg_values_supported` (and takes `dpop_jkt` at the authorization endpoint), so
///   the first instance binds the tokens of a client that sends a proof too, and bounds its
///   `iat` by the same two settings, 0 when left out (setup.py gives every instance 60 s and 5 s,
///   or a proof there is good only in the second it was stamped);
/// - its nonce belongs to the client, not to the server or the instance; it changes after the
///   client's proofs were accepted `oauth-dpop-nonce-counter` + 1 times, and the accepting answer
///   brings the new one (`DPoP-Nonce`);
/// - it revokes refresh tokens for confidential clients only (a public one gets a bare 401), and
///   does not look at a proof there.
@Suite(
    "DPoP against a real OpenID Connect server (glewlwyd)",
    .enabled(if: OIDCServerEnvironment.issuer != nil, OIDCServerEnvironment.skipReason),
    .serialized, .oidcServerExclusive, .hangLimit)
struct OIDCServerDPoPTests {
    static let clientId = "dpop-app"

    let login = OIDCTestLogin(issuer: OIDCServerEnvironment.issuer ?? URL(fileURLWithPath: "/"))
    /// The instance with DPoP published, without nonces.
    var dpopIssuer: URL { login.api.appendingPathComponent("oidc-dpop") }
    /// The instance that demands a server nonce in every proof.
    var nonceIssuer: URL { login.api.appendingPathComponent("oidc-dpop-nonce") }

    func client(
        issuer: URL, clientId: String = Self.clientId, keys: (any DPoPKeyProvider)?,
        store: InMemoryCredentialStore = InMemoryCredentialStore(),
        transport: any HTTPTransport = URLSessionTransport(timeout: TestBounds.requestDeadline),
        authentication: WebClientAuthentication = .none
    ) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.dpop = keys.map { DPoPConfiguration(keyProvider: $0) }
        configuration.clientAuthentication = authentication
        return try WebAuthClient(
            issuer: issuer, clientId: clientId, redirectURI: OIDCTestLogin.redirectURI, transport: transport,
            credentialStore: store, configuration: configuration)
    }

    func signIn(_ client: WebAuthClient) async throws -> UserAccountResult {
        let cookie = try await login.sessionCookie(consentingFor: client.clientId)
        return try await client.signIn(
            WebSignInParameters(scopes: OIDCTestLogin.scopes), using: CookieBrowserAgent(cookie: cookie))
    }

    func metadata(_ issuer: URL) async throws -> ProviderMetadata {
        try await ProviderDiscovery(issuer: issuer, transport: login.transport).metadata()
    }

    /// The `cnf.jkt` of a JWT access token (RFC 9449 §6.1).
    static func boundThumbprint(_ accessToken: String) -> String? {
        JWT.payload(of: accessToken)?["cnf"]?["jkt"]?.stringValue
    }

    /// The stored account record of `clientId` at `issuer`.
    static func storedRecord(_ store: InMemoryCredentialStore, issuer: URL, clientId: String = clientId)
        async throws -> JSONValue?
    {
        try await store.data(forKey: "nativeauth.web.\(issuer.absoluteString).\(clientId)").map {
            try JSONValue.parse($0)
        }
    }

    // MARK: - Binding

    @Test func discoveryPublishesTheProofAlgorithmsOnlyWhereDPoPIsAllowed() async throws {
        let dpop = try await metadata(dpopIssuer)
        #expect(dpop.dpopSigningAlgValuesSupported?.contains("RS256") == true)
        #expect(dpop.dpopSigningAlgValuesSupported?.contains("ES256") == true)
        #expect(try await metadata(nonceIssuer).dpopSigningAlgValuesSupported?.contains("RS256") == true)
        #expect(try await login.metadata().dpopSigningAlgValuesSupported == nil)
    }

    /// A sign-in binds the tokens to the new key: the code exchange carried a proof of it, the
    /// answer says `DPoP`, and the access token (a JWT) names the key's RFC 7638 thumbprint.
    @Test func aSignInBindsTheTokensToTheKey() async throws {
        let keys = RecordingSoftwareKeyProvider()
        let transport = ExchangeRecordingTransport()
        let store = InMemoryCredentialStore()
        let client = try client(issuer: dpopIssuer, keys: keys, store: store, transport: transport)
        let account = try await signIn(client)
        #expect(keys.made.count == 1)
        let key = try await keys.firstKey()
        let thumbprint = try #require(DPoPProof.thumbprint(of: key.publicJWK))

        let exchange = try #require(transport.exchanges("/token").first)
        #expect(exchange.response.statusCode == 200)
        #expect(
            String(decoding: exchange.response.body, as: UTF8.self).contains(#""token_type":"DPoP""#),
            "the server's answer names the DPoP token type")
        let proof = try ReadProof(exchange.request)
        #expect(proof.header["typ"]?.stringValue == "dpop+jwt")
        // PS256 where the server lists it (glewlwyd's DPoP settings list RS, PS, ES and EdDSA), as
        // the key provider prefers it; RS256 otherwise.
        #expect(["PS256", "RS256"].contains(proof.header["alg"]?.stringValue ?? ""))
        #expect(proof.header["jwk"]?.objectValue?.mapValues { $0.stringValue ?? "" } == key.publicJWK)
        #expect(proof.claims["htm"]?.stringValue == "POST")
        #expect(proof.claims["htu"]?.stringValue == dpopIssuer.absoluteString + "/token")
        #expect(proof.claims["ath"] == nil)
        #expect(proof.nonce == nil, "this instance asks for no nonce")

        let token = try await account.getAccessToken()
        #expect(Self.boundThumbprint(token.accessToken) == thumbprint)
        #expect(JWT.payload(of: token.accessToken)?["client_id"]?.stringValue == Self.clientId)
        // The stored account keeps the key's stored form with it.
        #expect(try await Self.storedRecord(store, issuer: dpopIssuer)?["dpopKey"] != nil)
    }

    /// A refresh proves possession of the same key, and the new access token is bound to it too;
    /// the refresh token (rolled, never sent again) keeps working.
    @Test func aRefreshWithTheSameKeyWorks() async throws {
        let keys = RecordingSoftwareKeyProvider()
        let transport = ExchangeRecordingTransport()
        let client = try client(issuer: dpopIssuer, keys: keys, transport: transport)
        let account = try await signIn(client)
        let first = try await account.getAccessToken()
        let second = try await account.getAccessToken(forceRefresh: true)
        let third = try await account.getAccessToken(forceRefresh: true)
        #expect(second.accessToken != first.accessToken)
        #expect(third.accessToken != second.accessToken)
        let thumbprint = DPoPProof.thumbprint(of: try await keys.firstKey().publicJWK)
        #expect(Self.boundThumbprint(second.accessToken) == thumbprint)
        #expect(Self.boundThumbprint(third.accessToken) == thumbprint)

        let modulus = try await keys.firstKey().publicJWK["n"]
        let refreshes = transport.exchanges("/token").dropFirst()
        #expect(refreshes.count == 2)
        for refresh in refreshes {
            #expect(refresh.response.statusCode == 200)
            #expect(String(decoding: refresh.response.body, as: UTF8.self).contains(#""token_type":"DPoP""#))
            #expect(try ReadProof(refresh.request).keyName == modulus, "the refresh proves the sign-in's key")
        }
        let jtis = try transport.exchanges("/token").map { try ReadProof($0.request).claims["jti"]?.stringValue }
        #expect(Set(jtis).count == jtis.count, "every proof has its own jti")
    }

    /// `UserAccountResult.send` calls the userinfo endpoint with `Authorization: DPoP` and a proof
    /// of the key for that request (`ath` the token's hash), and the server answers.
    @Test func theUserinfoEndpointAcceptsTheBoundTokenWithAProof() async throws {
        let transport = ExchangeRecordingTransport()
        let client = try client(issuer: dpopIssuer, keys: RecordingSoftwareKeyProvider(), transport: transport)
        let account = try await signIn(client)
        let userinfo = try #require(try await metadata(dpopIssuer).userinfoEndpoint)
        let answer = try await account.send(HTTPRequest(method: "GET", url: userinfo))
        #expect(answer.statusCode == 200)
        let claims = try JSONValue.parse(answer.body)
        #expect(claims["sub"]?.stringValue == account.account.claims.subject)

        let request = try #require(transport.exchanges("/userinfo").first?.request)
        let token = try await account.getAccessToken().accessToken
        #expect(request.header("Authorization") == "DPoP \(token)")
        let proof = try ReadProof(request)
        #expect(proof.claims["htm"]?.stringValue == "GET")
        #expect(proof.claims["htu"]?.stringValue == userinfo.absoluteString)
        #expect(proof.claims["ath"]?.stringValue == DPoPProof.accessTokenHash(token))
    }

    // MARK: - Refusals

    /// The bound access token is refused as a bearer token, and as a DPoP token without a proof;
    /// the refresh token is refused without a proof and with another key's.
    @Test func theBoundTokensAreRefusedWithoutAProofOfTheirKey() async throws {
        let store = InMemoryCredentialStore()
        let client = try client(issuer: dpopIssuer, keys: RecordingSoftwareKeyProvider(), store: store)
        let account = try await signIn(client)
        let token = try await account.getAccessToken().accessToken
        let metadata = try await metadata(dpopIssuer)
        let userinfo = try #require(metadata.userinfoEndpoint)

        let asBearer = try await login.transport.send(
            HTTPRequest(method: "GET", url: userinfo, headers: ["Authorization": "Bearer \(token)"]))
        #expect(asBearer.statusCode == 401, "a bound token is no bearer token")
        #expect(asBearer.header("WWW-Authenticate") == nil, "glewlwyd answers a bare 401")
        let withoutProof = try await login.transport.send(
            HTTPRequest(method: "GET", url: userinfo, headers: ["Authorization": "DPoP \(token)"]))
        #expect(withoutProof.statusCode == 401)

        let refreshToken = Secret(
            try #require(try await Self.storedRecord(store, issuer: dpopIssuer)?["refreshToken"]?.stringValue))
        let tokens = WebTokenClient(testTransport: login.transport)
        do {
            _ = try await tokens.refresh(
                refreshToken, clientId: Self.clientId, tokenEndpoint: metadata.tokenEndpoint)
            Issue.record("a bound refresh token was accepted without a proof")
        } catch {
            #expect(error.dpopProblem == .proofRefused, "\(error)")
            #expect(error.serverError == "invalid_dpop_proof")
        }
        let other = try await SoftwareDPoPKeyProvider().makeKey(algorithm: "RS256")
        let context = DPoPContext(provider: SoftwareDPoPKeyProvider())
        let otherSigner = DPoPSigner(
            context: context, key: DPoPBoundKey(key: other.key, storedForm: other.storedForm), now: { Date() })
        do {
            _ = try await tokens.refresh(
                refreshToken, clientId: Self.clientId, tokenEndpoint: metadata.tokenEndpoint, dpop: otherSigner)
            Issue.record("a bound refresh token was accepted with another key's proof")
        } catch {
            #expect(error.dpopProblem == .proofRefused, "\(error)")
            #expect(error.serverError == "invalid_dpop_proof")
            #expect(error.httpStatusCode == 403, "glewlwyd refuses a proof with 403, not RFC 6749's 400")
            #expect(!error.description.contains(refreshToken.reveal))
        }
        // The refresh token is still good with the right key.
        _ = try await account.getAccessToken(forceRefresh: true)
    }

    /// RFC 9449 §7.1: a resource server checks that the proof's key is the token's. glewlwyd's
    /// userinfo endpoint does not: a proof made with another key, otherwise right (`htm`, `htu`,
    /// `iat`, `ath`), is accepted.
    @Test func theUserinfoEndpointRefusesAProofMadeWithAnotherKey() async throws {
        let client = try client(issuer: dpopIssuer, keys: RecordingSoftwareKeyProvider())
        let account = try await signIn(client)
        let token = try await account.getAccessToken().accessToken
        let userinfo = try #require(try await metadata(dpopIssuer).userinfoEndpoint)
        let other = try await SoftwareDPoPKeyProvider().makeKey(algorithm: "RS256").key
        let proof = try await DPoPProof.make(
            key: other, method: "GET", url: userinfo, accessToken: token, issuedAt: Date())
        let answer = try await login.transport.send(
            HTTPRequest(
                method: "GET", url: userinfo, headers: ["Authorization": "DPoP \(token)", "DPoP": proof.jwt]))
        withKnownIssue("glewlwyd 2.7.5's userinfo endpoint does not compare the proof's key with cnf.jkt") {
            #expect(answer.statusCode == 401, "a proof of another key must be refused")
        }
        // The same request with a proof of the account's key is accepted, as it should be.
        let own = try await account.authorize(HTTPRequest(method: "GET", url: userinfo))
        #expect(try await login.transport.send(own).statusCode == 200)
    }

    /// The server makes DPoP mandatory for `dpop-app`: a client without DPoP is refused at the
    /// code exchange, and nothing is stored.
    @Test func theServerRequiresDPoPOfTheClient() async throws {
        let client = try client(issuer: dpopIssuer, keys: nil)
        do {
            _ = try await signIn(client)
            Issue.record("a sign-in without DPoP was accepted for a client that requires it")
        } catch let error as WebSignInError {
            #expect(error.dpopProblem == .proofRefused, "\(error)")
            #expect(error.serverError == "invalid_dpop_proof")
        }
        #expect(try await client.currentAccount() == nil)
    }

    /// `oauth-dpop-allowed` publishes the algorithms; it does not decide whether proofs count. The
    /// first instance, where it is off, binds the tokens of a client that sends a proof anyway.
    @Test func anInstanceWithoutDPoPPublishedBindsTheTokensOfAProof() async throws {
        let keys = RecordingSoftwareKeyProvider()
        let client = try client(issuer: login.issuer, clientId: OIDCTestLogin.clientId, keys: keys)
        let account = try await signIn(client)
        let token = try await account.getAccessToken(forceRefresh: true)
        #expect(
            Self.boundThumbprint(token.accessToken) == DPoPProof.thumbprint(of: try await keys.firstKey().publicJWK))
    }

    // MARK: - Nonces

    /// With nonces demanded, the first proof (without one) gets `use_dpop_nonce` and the server's
    /// nonce; the client sends the request once more with it, and every later proof carries the
    /// server's latest nonce, also after the server changed it in an accepting answer. A new
    /// client on the same store meets the userinfo endpoint's challenge (401 with a `DPoP`
    /// `WWW-Authenticate`) the same way.
    @Test func theServersNoncesAreAnsweredAndCarried() async throws {
        let transport = ExchangeRecordingTransport()
        let store = InMemoryCredentialStore()
        let keys = RecordingSoftwareKeyProvider()
        let client = try client(issuer: nonceIssuer, keys: keys, store: store, transport: transport)
        let account = try await signIn(client)
        _ = try await account.getAccessToken(forceRefresh: true)
        _ = try await account.getAccessToken(forceRefresh: true)
        let userinfo = try #require(try await metadata(nonceIssuer).userinfoEndpoint)
        for _ in 0..<2 {
            #expect(try await account.send(HTTPRequest(method: "GET", url: userinfo)).statusCode == 200)
        }

        // Nonces are kept per server role (RFC 9449 §8, §9): glewlwyd's one nonce for both its
        // token endpoint and its userinfo endpoint is met once by each role.
        let proved = transport.exchanges.filter { $0.request.header("DPoP") != nil }
        #expect(proved.count == 7, "five requests, the first to each server role sent twice")
        let first = try #require(proved.first)
        #expect(try ReadProof(first.request).nonce == nil)
        #expect(first.response.statusCode == 400)
        #expect(String(decoding: first.response.body, as: UTF8.self).contains("use_dpop_nonce"))
        #expect(first.response.header("DPoP-Nonce") != nil)
        #expect(
            proved.map { $0.response.statusCode == 200 } == [false, true, true, true, false, true, true],
            "only the first proof to each role is challenged")
        var latest: [Bool: String] = [:]
        var rotations = 0
        for (index, exchange) in proved.enumerated() {
            let resource = exchange.request.header("Authorization")?.hasPrefix("DPoP ") == true
            #expect(
                try ReadProof(exchange.request).nonce == latest[resource],
                "proof \(index) carries its server role's latest nonce")
            if let nonce = exchange.response.header("DPoP-Nonce") {
                if latest[resource] != nil, nonce != latest[resource], exchange.response.statusCode == 200 {
                    rotations += 1
                }
                latest[resource] = nonce
            }
        }
        #expect(proved[1].request.url == first.request.url, "the retry goes where the first went")

        // A restored client has no nonce yet: the userinfo endpoint challenges its first proof.
        let restoredTransport = ExchangeRecordingTransport()
        let restored = try #require(
            try await self.client(issuer: nonceIssuer, keys: keys, store: store, transport: restoredTransport)
                .currentAccount())
        let answer = try await restored.send(HTTPRequest(method: "GET", url: userinfo))
        #expect(answer.statusCode == 200)
        let calls = restoredTransport.exchanges("/userinfo")
        #expect(calls.count == 2)
        let challenge = try #require(calls.first?.response)
        #expect(challenge.statusCode == 401)
        #expect(challenge.header("WWW-Authenticate")?.contains(#"error="use_dpop_nonce""#) == true)
        let nonce = try #require(challenge.header("DPoP-Nonce"))
        #expect(try ReadProof(try #require(calls.last?.request)).nonce == nonce)
    }

    /// The device authorization grant binds its tokens too: glewlwyd checks the proof once the
    /// code is approved (pending polls are answered without looking at it), asks for its nonce
    /// there, and the poll is sent once more with it.
    @Test func aDeviceSignInBindsTheTokensAndAnswersTheNonce() async throws {
        let transport = ExchangeRecordingTransport()
        let keys = RecordingSoftwareKeyProvider()
        let client = try client(issuer: nonceIssuer, keys: keys, transport: transport)
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters(scopes: OIDCTestLogin.scopes))
        // Approved on the verification page before the first poll, as alice's phone would.
        let cookie = try await login.sessionCookie(consentingFor: Self.clientId)
        var page = URLComponents(url: nonceIssuer.appendingPathComponent("device"), resolvingAgainstBaseURL: false)
        page?.queryItems = [
            URLQueryItem(name: "code", value: state.userCode), URLQueryItem(name: "g_continue", value: ""),
        ]
        let approval = try await login.transport.send(
            HTTPRequest(method: "GET", url: try #require(page?.url), headers: ["Cookie": cookie]))
        #expect(approval.header("Location")?.contains("prompt=deviceComplete") == true)

        let account = try await waitForDeviceSignIn(state).get()
        let token = try await account.getAccessToken()
        #expect(
            Self.boundThumbprint(token.accessToken) == DPoPProof.thumbprint(of: try await keys.firstKey().publicJWK))
        let polls = transport.exchanges("/token").filter { $0.request.header("DPoP") != nil }
        #expect(polls.count >= 2)
        let challenged = try #require(
            polls.firstIndex { $0.response.statusCode == 400 && $0.response.header("DPoP-Nonce") != nil })
        let retry = try #require(polls.dropFirst(challenged + 1).first)
        #expect(try ReadProof(retry.request).nonce == polls[challenged].response.header("DPoP-Nonce"))
        #expect(retry.response.statusCode == 200)
    }

    // MARK: - A device clock that is off

    /// The wall clock, `offset` seconds off.
    struct OffsetClock: NativeAuthClock {
        let offset: TimeInterval
        func now() -> Date { Date().addingTimeInterval(offset) }
        func sleep(seconds: Double) async throws { try await SystemClock().sleep(seconds: seconds) }
    }

    /// glewlwyd takes a proof whose `iat` is at most 5 s ahead of its clock and 60 s behind
    /// (`oauth-dpop-iat-gap-duration`, `oauth-dpop-iat-duration`), and refuses any other with 403
    /// `invalid_dpop_proof` (401 at the userinfo endpoint). A device 30 s fast or 90 s slow still
    /// signs in, refreshes and calls userinfo: the SDK takes the server's time from the refusal's
    /// `Date` and sends the request once more; a new run does the same at its first requests.
    @Test(arguments: [30.0, -90.0], [false, true])
    func aDeviceClockThatIsOffIsCorrected(offset: TimeInterval, nonces: Bool) async throws {
        let issuer = nonces ? nonceIssuer : dpopIssuer
        let store = InMemoryCredentialStore()
        let keys = RecordingSoftwareKeyProvider()
        func make(_ transport: ExchangeRecordingTransport) throws -> WebAuthClient {
            var configuration = WebAuthConfiguration()
            configuration.requestTimeout = TestBounds.requestDeadline
            configuration.dpop = DPoPConfiguration(keyProvider: keys)
            configuration.clock = OffsetClock(offset: offset)
            return try WebAuthClient(
                issuer: issuer, clientId: Self.clientId, redirectURI: OIDCTestLogin.redirectURI,
                transport: transport, credentialStore: store, configuration: configuration)
        }
        let transport = ExchangeRecordingTransport()
        // The server's time is learnt from the sign-in's refused exchange and used by the refresh.
        let start = ContinuousClock.now
        let account = try await signIn(try make(transport))
        _ = try await account.getAccessToken(forceRefresh: true)
        let elapsedSeconds = Double((ContinuousClock.now - start).components.seconds)
        let requests = transport.exchanges("/token")
        let refused = try #require(requests.first)
        #expect(refused.response.statusCode == 403)
        #expect(String(decoding: refused.response.body, as: UTF8.self).contains("invalid_dpop_proof"))
        #expect(requests.last?.response.statusCode == 200)
        #expect(requests.count == (nonces ? 4 : 3), "refused, corrected, (nonce,) then the refresh at once")
        let serverTime = try #require(requests.last?.response.header("Date").flatMap(HTTPDate.parse))
        let last = try ReadProof(try #require(requests.last?.request))
        let iat = TimeInterval(try #require(last.claims["iat"]?.intValue))
        // The proof is made before its request leaves, and the server stamps its Date (whole seconds)
        // when it answers: on the server's clock, iat is at most a second after that Date, and
        // before it by no more than the time from the refused exchange's answer (whose Date set the
        // clock) to the refresh's answer, plus the whole seconds the Dates and iat drop (a loaded
        // machine stretches that time), where a clock left uncorrected is 30 or 90 s off.
        let lag = serverTime.timeIntervalSince1970 - iat
        #expect(lag >= -1 && lag <= 3 + elapsedSeconds, "the refresh's proof is on the server's clock")

        // A new run: its first userinfo call (with the stored access token) and its first refresh.
        let laterTransport = ExchangeRecordingTransport()
        let restored = try #require(try await make(laterTransport).currentAccount())
        let userinfo = try #require(try await metadata(issuer).userinfoEndpoint)
        #expect(try await restored.send(HTTPRequest(method: "GET", url: userinfo)).statusCode == 200)
        let calls = laterTransport.exchanges("/userinfo")
        #expect(calls.first?.response.statusCode == 401)
        let refusal = String(decoding: calls.first?.response.body ?? Data(), as: UTF8.self)
        #expect(refusal.contains("invalid_dpop_proof"))
        #expect(calls.count == (nonces ? 3 : 2))
        _ = try await restored.getAccessToken(forceRefresh: true)
        #expect(laterTransport.exchanges("/token").first?.response.statusCode == 403)
        #expect(laterTransport.exchanges("/token").last?.response.statusCode == 200)
    }

    // MARK: - Restore and sign-out

    /// A new client on the same credential store reads the key back (once) and proves possession
    /// of it: a refresh works and the new token is bound to the same key.
    @Test func aRestoredSessionStillProvesPossession() async throws {
        let store = InMemoryCredentialStore()
        let keys = RecordingSoftwareKeyProvider()
        let account = try await signIn(try client(issuer: dpopIssuer, keys: keys, store: store))
        let thumbprint = DPoPProof.thumbprint(of: try await keys.firstKey().publicJWK)
        let first = try await account.getAccessToken()

        let laterKeys = RecordingSoftwareKeyProvider()
        let later = try client(issuer: dpopIssuer, keys: laterKeys, store: store)
        let restored = try #require(try await later.currentAccount())
        #expect(restored.account.identifier == account.account.identifier)
        let refreshed = try await restored.getAccessToken(forceRefresh: true)
        #expect(refreshed.accessToken != first.accessToken)
        #expect(Self.boundThumbprint(refreshed.accessToken) == thumbprint)
        let userinfo = try #require(try await metadata(dpopIssuer).userinfoEndpoint)
        #expect(try await restored.send(HTTPRequest(method: "GET", url: userinfo)).statusCode == 200)
        #expect(laterKeys.made.isEmpty)
        #expect(laterKeys.restored == 1, "the key is read back once, then kept")
    }

    /// Sign-out deletes the key and revokes the bound refresh token (glewlwyd revokes for a
    /// confidential client): the revoked token is then refused even with a proof of its key.
    @Test func signOutRevokesTheBoundRefreshTokenAndDeletesTheKey() async throws {
        let store = InMemoryCredentialStore()
        let keys = RecordingSoftwareKeyProvider()
        let basic = WebClientAuthentication.clientSecretBasic("conf-secret")
        let transport = ExchangeRecordingTransport()
        let client = try client(
            issuer: dpopIssuer, clientId: "conf-app", keys: keys, store: store, transport: transport,
            authentication: basic)
        let account = try await signIn(client)
        let refreshToken = Secret(
            try #require(
                try await Self.storedRecord(store, issuer: dpopIssuer, clientId: "conf-app")?["refreshToken"]?
                    .stringValue))
        let key = try await keys.firstKey()

        let result = await client.signOut(account)
        guard case .done = result.revocation else { throw TestFailure("revocation: \(result.revocation)") }
        #expect(keys.deleted == keys.made, "the account's key is deleted")
        #expect(try await client.currentAccount() == nil)
        #expect(try await Self.storedRecord(store, issuer: dpopIssuer, clientId: "conf-app") == nil)
        let revocation = try #require(transport.exchanges("/revoke").first)
        #expect(revocation.request.header("DPoP") != nil, "the revocation request proves the key")

        let signer = DPoPSigner(
            context: DPoPContext(provider: SoftwareDPoPKeyProvider()),
            key: DPoPBoundKey(key: key, storedForm: try #require(keys.made.first)), now: { Date() })
        let tokenEndpoint = try await metadata(dpopIssuer).tokenEndpoint
        do {
            _ = try await WebTokenClient(testTransport: login.transport, authentication: basic).refresh(
                refreshToken, clientId: "conf-app", tokenEndpoint: tokenEndpoint, dpop: signer)
            Issue.record("a revoked refresh token was accepted")
        } catch {
            #expect(error.isInvalidGrant, "\(error)")
        }
    }

    /// A public client's sign-out deletes the key too; glewlwyd does not revoke for public
    /// clients (a bare 401), which the result reports.
    @Test func aPublicClientsSignOutDeletesTheKeyWhereRevocationIsRefused() async throws {
        let keys = RecordingSoftwareKeyProvider()
        let client = try client(issuer: dpopIssuer, keys: keys)
        let account = try await signIn(client)
        let result = await client.signOut(account)
        #expect(keys.deleted == keys.made)
        #expect(keys.made.count == 1)
        #expect(try await client.currentAccount() == nil)
        guard case .failed(let error) = result.revocation else {
            throw TestFailure("revocation: \(result.revocation)")
        }
        #expect(error.httpStatusCode == 401, "\(error)")
    }
}
