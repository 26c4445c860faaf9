import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Keys named `key-1`, `key-2`, … (their `n`), whose stored form is the name; records what it did.
final class RecordingKeyProvider: DPoPKeyProvider {
    let algorithms: [String]
    let made = LockedValue(0)
    let restored = LockedValue(0)
    let deleted = LockedValue<[String]>([])
    let failsToMake: Bool

    init(algorithms: [String] = ["RS256"], failsToMake: Bool = false) {
        self.algorithms = algorithms
        self.failsToMake = failsToMake
    }

    var supportedAlgorithms: [String] { algorithms }

    static func key(named name: String, algorithm: String) -> MarkerKey {
        MarkerKey(algorithm: algorithm, publicJWK: ["kty": "RSA", "n": name, "e": "AQAB"])
    }

    func makeKey(algorithm: String) async throws -> (key: any DPoPKey, storedForm: Data) {
        if failsToMake { throw DPoPKeyProviderError.unsupportedAlgorithm(algorithm) }
        let name = "key-\(made.withLock { $0 += 1; return $0 })"
        return (Self.key(named: name, algorithm: algorithm), Data(name.utf8))
    }

    func restoreKey(from storedForm: Data) async throws -> any DPoPKey {
        restored.withLock { $0 += 1 }
        return Self.key(named: String(decoding: storedForm, as: UTF8.self), algorithm: algorithms[0])
    }

    func deleteKey(storedForm: Data) async {
        deleted.withLock { $0.append(String(decoding: storedForm, as: UTF8.self)) }
    }
}

/// A proof as the server reads it: header and claims.
struct ReadProof {
    let header: JSONValue
    let claims: JSONValue

    init(_ request: HTTPRequest) throws {
        let value = try #require(request.header("DPoP"), "no DPoP header on \(request.url.path)")
        let parts = try DPoPProofTests.parts(value)
        header = parts.header
        claims = parts.payload
    }

    var keyName: String? { header["jwk"]?["n"]?.stringValue }
    var nonce: String? { claims["nonce"]?.stringValue }
}

@Suite("DPoP in the web client (RFC 9449)", .hangLimit)
struct DPoPClientTests {
    let harness = PARClient()
    let keys = RecordingKeyProvider()

    static let bound = #"{"token_type":"DPoP","expires_in":3600,"access_token":"bound-access","#

    /// A provider that publishes `algorithms` and answers token requests with DPoP-bound tokens
    /// when they carry a proof (`tokenType` overrides the answer's type), asking for a nonce
    /// first when `nonce` is set.
    static func provider(
        algorithms: String = #"["RS256","ES256"]"#, tokenType: String? = nil, nonce: String? = nil,
        endpoints: ScriptedOpenIDProvider.Endpoints = .standard(revocation: true)
    ) -> ScriptedOpenIDProvider {
        ScriptedOpenIDProvider(
            endpoints: endpoints, extraDiscovery: #""dpop_signing_alg_values_supported":"# + algorithms
        ) { exchange in
            let proof = try? ReadProof(exchange.request)
            if let nonce, proof?.nonce != nonce {
                return HTTPResponse(
                    statusCode: 400, headers: ["DPoP-Nonce": nonce, "Content-Type": "application/json"],
                    body: Data(#"{"error":"use_dpop_nonce","error_description":"Resource server requires nonce"}"#.utf8)
                )
            }
            let type = tokenType ?? (proof == nil ? "Bearer" : "DPoP")
            let idToken =
                exchange.grantType == "authorization_code"
                ? WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: exchange.nonce)) : ""
            var body =
                #"{"token_type":"\#(type)","expires_in":3600,"access_token":"bound-access","refresh_token":"bound-refresh""#
            if !idToken.isEmpty { body += #","id_token":"\#(idToken)""# }
            return ScriptedOpenIDProvider.json(200, body + "}")
        }
    }

    func client(
        _ provider: ScriptedOpenIDProvider, keys: any DPoPKeyProvider, clock: TestClock? = nil
    ) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock ?? harness.clock
        configuration.dpop = DPoPConfiguration(keyProvider: keys)
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: harness.store, configuration: configuration)
    }

    @Test func aSignInBindsTheTokensToANewKeyAndEveryRequestProvesIt() async throws {
        let provider = Self.provider()
        let client = try client(provider, keys: keys)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        #expect(keys.made.current == 1)
        let exchange = try ReadProof(try #require(provider.requests(to: "/token").first))
        #expect(exchange.header["typ"]?.stringValue == "dpop+jwt")
        #expect(exchange.header["alg"]?.stringValue == "RS256", "the key provider's algorithm the server lists")
        #expect(exchange.keyName == "key-1")
        #expect(exchange.claims["htm"]?.stringValue == "POST")
        #expect(exchange.claims["htu"]?.stringValue == "\(ScriptedOpenIDProvider.issuer)/token")
        #expect(exchange.claims["ath"] == nil)
        #expect(exchange.claims["iat"]?.intValue == Int(harness.clock.now().timeIntervalSince1970))

        // An API call: the DPoP scheme, and a proof for this request with the token's hash.
        let api = URL(string: "https://api.example.com/orders?page=2")!
        let authorized = try await account.authorize(HTTPRequest(method: "GET", url: api))
        #expect(authorized.header("Authorization") == "DPoP bound-access")
        let proof = try ReadProof(authorized)
        #expect(proof.keyName == "key-1")
        #expect(proof.claims["htm"]?.stringValue == "GET")
        #expect(proof.claims["htu"]?.stringValue == "https://api.example.com/orders")
        #expect(proof.claims["ath"]?.stringValue == DPoPProof.accessTokenHash("bound-access"))
        // A request's description never shows the token or the proof.
        let described = String(describing: authorized) + String(reflecting: authorized)
        let proofHeader = try #require(authorized.header("DPoP"))
        #expect(!described.contains("bound-access"))
        #expect(!described.contains(proofHeader))
        var urlRequest = URLRequest(url: api)
        urlRequest.httpMethod = "DELETE"
        let authorizedURL = try await account.authorize(urlRequest)
        #expect(authorizedURL.value(forHTTPHeaderField: "Authorization") == "DPoP bound-access")
        #expect(authorizedURL.value(forHTTPHeaderField: "DPoP") != nil)
    }

    @Test func theTokenEndpointsNonceIsSentOnceMoreAndThenRemembered() async throws {
        let provider = Self.provider(nonce: "n-1")
        let client = try client(provider, keys: keys)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        let proofs = try provider.requests(to: "/token").map(ReadProof.init)
        #expect(proofs.map(\.nonce) == [nil, "n-1"])
        #expect(Set(proofs.compactMap { $0.claims["jti"]?.stringValue }).count == 2, "a new proof, not a replay")
        // The refresh carries the remembered nonce at once: one request.
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(try provider.requests(to: "/token").map(ReadProof.init).map(\.nonce) == [nil, "n-1", "n-1"])
    }

    @Test func aProviderThatKeepsAskingForANonceIsRefusedAfterOneRetryAndNothingIsStored() async throws {
        let provider = Self.provider()
        provider.tokenAnswer.withLock {
            $0 = { _ in
                HTTPResponse(
                    statusCode: 400, headers: ["DPoP-Nonce": "n-\(UUID().uuidString)"],
                    body: Data(#"{"error":"use_dpop_nonce"}"#.utf8))
            }
        }
        let client = try client(provider, keys: keys)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        }
        #expect(error.dpopProblem == .proofRefused)
        #expect(provider.count("/token") == 2)
        #expect(try await harness.storesNothing())
    }

    @Test func bearerTokensWhenDPoPWasAskedForAreRefusedAndNothingIsStored() async throws {
        let provider = Self.provider(tokenType: "Bearer")
        let client = try client(provider, keys: keys)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        }
        #expect(error.isProofOfPossessionFailed)
        #expect(error.dpopProblem == .tokensNotBound)
        #expect(!error.description.contains("bound-access"))
        #expect(try await harness.storesNothing())
    }

    @Test func noCommonAlgorithmOrAKeyThatCannotBeMadeFailsBeforeTheBrowser() async throws {
        let provider = Self.provider(algorithms: #"["ES256"]"#)
        let agent = InstantAgent(provider: provider)
        let unsupported = try await #require(throws: WebSignInError.self) {
            try await client(provider, keys: keys).signIn(WebSignInParameters(), using: agent)
        }
        #expect(unsupported.dpopProblem == .noCommonAlgorithm)
        let failing = try await #require(throws: WebSignInError.self) {
            try await client(Self.provider(), keys: RecordingKeyProvider(failsToMake: true))
                .signIn(WebSignInParameters(), using: agent)
        }
        #expect(failing.dpopProblem == .keyUnavailable)
        #expect(agent.shownURLs.isEmpty)
        #expect(try await harness.storesNothing())
        // A provider that lists no algorithm takes the key provider's first.
        let silent = ScriptedOpenIDProvider(
            endpoints: .standard(), tokenAnswer: Self.provider().tokenAnswer.current)
        _ = try await client(silent, keys: keys).signIn(WebSignInParameters(), using: InstantAgent(provider: silent))
        #expect(try ReadProof(try #require(silent.requests(to: "/token").first)).header["alg"]?.stringValue == "RS256")
    }

    @Test func aRestoredSessionProvesPossessionWithTheSameKeyAndSignOutDeletesIt() async throws {
        let provider = Self.provider()
        _ = try await client(provider, keys: keys).signIn(
            WebSignInParameters(), using: InstantAgent(provider: provider))
        // A new run: a new client on the same store reads the key back once.
        let later = RecordingKeyProvider()
        let restarted = try client(provider, keys: later)
        let account = try #require(try await restarted.currentAccount())
        _ = try await account.getAccessToken(forceRefresh: true)
        _ = try await account.getAccessToken(forceRefresh: true)
        let refreshes = try provider.requests(to: "/token").dropFirst().map(ReadProof.init)
        #expect(refreshes.map(\.keyName) == ["key-1", "key-1"])
        #expect(later.restored.current == 1)
        #expect(later.made.current == 0)
        // Sign-out: the revocation proves possession too, then the key is deleted with the account.
        let result = await restarted.signOut(account)
        #expect(result.local.removedFromStore)
        #expect(try ReadProof(try #require(provider.requests(to: "/revoke").first)).keyName == "key-1")
        #expect(later.deleted.current == ["key-1"])
        #expect(try await harness.storesNothing())
    }

    @Test func aRefreshAnsweredWithBearerTokensKeepsTheAccountAndItsBoundTokens() async throws {
        let provider = Self.provider()
        let client = try client(provider, keys: keys)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        provider.tokenAnswer.withLock {
            $0 = { _ in
                ScriptedOpenIDProvider.json(200, #"{"token_type":"Bearer","expires_in":3600,"access_token":"other"}"#)
            }
        }
        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(error.isProofOfPossessionFailed)
        #expect(try await client.currentAccount() != nil)
        #expect(try await account.getAccessToken().accessToken == "bound-access")
    }

    /// A provider that rotates the refresh token into a refused (bearer) answer has already
    /// retired the one redeemed: the rotated one is kept, so the next refresh redeems it instead
    /// of a dead token that would sign the user out. The bearer access token is not kept.
    @Test func aRefusedRefreshAnswerLeavesTheRotatedRefreshTokenStored() async throws {
        let provider = Self.provider()
        let client = try client(provider, keys: keys)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        provider.tokenAnswer.withLock {
            $0 = { _ in
                ScriptedOpenIDProvider.json(
                    200, #"{"token_type":"Bearer","expires_in":3600,"access_token":"other","refresh_token":"rotated"}"#)
            }
        }
        let error = try await #require(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(error.isProofOfPossessionFailed)
        #expect(try await account.getAccessToken().accessToken == "bound-access")
        provider.tokenAnswer.withLock { $0 = Self.provider().tokenAnswer.current }
        #expect(try await account.getAccessToken(forceRefresh: true).accessToken == "bound-access")
        let forms = provider.forms(to: "/token")
        #expect(forms.last?.contains("refresh_token=rotated") == true, "\(forms.last ?? "")")
        // The restored account holds the rotated token too: it was stored.
        let restored = try await self.client(provider, keys: keys).currentAccount()
        #expect(restored != nil)
    }

    /// An answer that does not say its token type (RFC 6749 §5.1 requires it) is not known to be
    /// bound to the key: the same proof-of-possession failure as a bearer answer, nothing stored.
    @Test func anAnswerWithoutATokenTypeIsAProofOfPossessionFailure() async throws {
        let provider = Self.provider()
        provider.tokenAnswer.withLock {
            $0 = { exchange in
                let idToken = WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: exchange.nonce))
                return ScriptedOpenIDProvider.json(
                    200, #"{"expires_in":3600,"access_token":"a","refresh_token":"r","id_token":"\#(idToken)"}"#)
            }
        }
        let client = try client(provider, keys: keys)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        }
        #expect(error.isProofOfPossessionFailed, "\(error)")
        #expect(try await harness.storesNothing())
    }

    /// An authorization server and a resource server on one origin, each with its own nonce
    /// (RFC 9449 §8, §9): after each has given its nonce once, a refresh carries the token
    /// endpoint's and an API call the resource server's, with no further challenge.
    @Test func theAuthorizationAndResourceServersOfOneOriginKeepTheirOwnNonces() async throws {
        let provider = Self.provider(nonce: "as-nonce")
        let client = try client(provider, keys: keys)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        let api = ScriptedTransport()
        let challenge = HTTPResponse(
            statusCode: 401,
            headers: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#, "DPoP-Nonce": "rs-nonce"])
        api.then("me", .response(challenge))
        for _ in 0..<2 { api.then("me", .response(HTTPResponse(statusCode: 200, body: Data("ok".utf8)))) }
        let resource = HTTPRequest(method: "GET", url: URL(string: ScriptedOpenIDProvider.issuer + "/me")!)
        #expect(try await account.send(resource, using: api).statusCode == 200)
        let tokenRequests = provider.count("/token")
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(provider.count("/token") == tokenRequests + 1, "the refresh needed no new nonce")
        #expect(try ReadProof(try #require(provider.requests(to: "/token").last)).nonce == "as-nonce")
        #expect(try await account.send(resource, using: api).statusCode == 200)
        #expect(try api.requests.map(ReadProof.init).map(\.nonce) == [nil, "rs-nonce", "rs-nonce"])
    }

    @Test func aResourceNonceChallengeIsAnsweredOnceWithTheNonce() async throws {
        let provider = Self.provider()
        let client = try client(provider, keys: keys)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        let api = ScriptedTransport()
        api.then(
            "me",
            .response(
                HTTPResponse(
                    statusCode: 401,
                    headers: [
                        "WWW-Authenticate": #"DPoP error="use_dpop_nonce", error_description="nonce""#,
                        "DPoP-Nonce": "resource-nonce",
                    ])))
        api.then("me", .response(HTTPResponse(statusCode: 200, body: Data("ok".utf8))))
        let response = try await account.send(
            HTTPRequest(method: "GET", url: URL(string: "https://api.example.com/me")!), using: api)
        #expect(response.statusCode == 200)
        let proofs = try api.requests.map(ReadProof.init)
        #expect(proofs.map(\.nonce) == [nil, "resource-nonce"])
        #expect(api.requests.allSatisfy { $0.header("Authorization") == "DPoP bound-access" })
    }

    @Test func aDeviceSignInProvesPossessionAtEveryPoll() async throws {
        let provider = Self.provider(endpoints: .standard(device: true))
        provider.tokenAnswer.withLock {
            $0 = { exchange in
                guard (try? ReadProof(exchange.request)) != nil else { return nil }
                let idToken = WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: ""))
                return ScriptedOpenIDProvider.json(
                    200, Self.bound + #""refresh_token":"r","id_token":"\#(idToken)"}"#)
            }
        }
        let client = try client(provider, keys: keys, clock: TestClock(advancesOnSleep: true))
        let state = try await client.startDeviceSignIn(WebDeviceSignInParameters())
        let account = try await state.waitForCompletion()
        #expect(try ReadProof(try #require(provider.requests(to: "/token").first)).keyName == "key-1")
        #expect(
            try await account.authorize(HTTPRequest(method: "GET", url: URL(string: "https://a.example/")!))
                .header("Authorization") == "DPoP bound-access")
    }
}
