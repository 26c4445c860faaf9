import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// One of the test server's instances that sign with another algorithm than RS256.
///
/// Tests/OIDCServer/setup.py runs them beside the RS256 one, in the same glewlwyd, each with a key
/// start.sh makes for the run; the naming rule is `{server}/api/oidc-<alg in lower case>`, so the
/// issuers follow from `NATIVEAUTH_OIDC_ISSUER` (`{server}/api/oidc`).
struct SigningInstance: Sendable, CustomTestStringConvertible {
    /// The JWS `alg` (RFC 7518 §3.1, RFC 8037 §3.1) its ID tokens carry.
    let algorithm: String
    /// The JWK `kty` (and `crv`) of its published key (RFC 7518 §6, RFC 8037 §2).
    let keyType: String
    let curve: String?
    /// The algorithms its discovery document lists in `id_token_signing_alg_values_supported`:
    /// glewlwyd names every algorithm of the key's family it could sign with.
    let published: [String]

    static let all = [
        SigningInstance(algorithm: "ES256", keyType: "EC", curve: "P-256", published: ["ES256", "ES384", "ES512"]),
        SigningInstance(
            algorithm: "PS256", keyType: "RSA", curve: nil,
            published: ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]),
        SigningInstance(algorithm: "EdDSA", keyType: "OKP", curve: "Ed25519", published: ["EdDSA", "ES256K"]),
    ]

    func issuer(_ login: OIDCTestLogin) -> URL { login.api.appendingPathComponent("oidc-" + algorithm.lowercased()) }

    var testDescription: String { algorithm }
}

/// The protected header of a compact JWS (RFC 7515 §7.1), read without checking anything.
func joseHeader(_ token: String) -> JSONValue? {
    guard let first = token.split(separator: ".", omittingEmptySubsequences: false).first,
        let bytes = Base64URL.decode(String(first))
    else { return nil }
    return try? JSONValue.parse(bytes)
}

/// A transport that changes one bit of the signature of every ID token the token endpoint sends,
/// leaving the rest of the answer as it was.
final class SignatureTamperingTransport: HTTPTransport, Sendable {
    let inner = URLSessionTransport(timeout: TestBounds.requestDeadline)
    private let tampered = Locked(0)

    var tamperedCount: Int { tampered.current }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var response = try await inner.send(request)
        guard request.url.path.hasSuffix("/token"),
            let token = try? JSONValue.parse(response.body)["id_token"]?.stringValue
        else { return response }
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, var signature = Base64URL.decode(parts[2]), !signature.isEmpty else {
            return response
        }
        signature[signature.startIndex] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        let text = String(decoding: response.body, as: UTF8.self)
        response.body = Data(text.replacingOccurrences(of: token, with: parts.joined(separator: ".")).utf8)
        tampered.withLock { $0 += 1 }
        return response
    }
}

/// ID tokens signed with ES256 (P-256), PS256 (RSASSA-PSS) and EdDSA (Ed25519) by a real server:
/// glewlwyd 2.7.5's OpenID Connect plugin with `jwt-type` `ecdsa`, `rsa-pss` and `eddsa` (key
/// size 256), one instance each (see ``SigningInstance``), and at the PS256 one DPoP proofs made
/// with PS256. Each sign-in goes through the public `WebAuthClient` API, which verifies the ID
/// token's signature against the instance's JWK Set, then refreshes and calls the userinfo
/// endpoint.
///
/// Known glewlwyd 2.7.5 behaviour these tests pin down:
/// - it signs the access token (a JWT) with the same key and algorithm as the ID token;
/// - its `at_hash` is the left half of the SHA-256 of the access token for all three, EdDSA
///   included (OpenID Connect Core §3.1.3.6 names the hash of the `alg`; for EdDSA it names none);
/// - `id_token_signing_alg_values_supported` lists every algorithm of the key's family it could
///   sign with (`EdDSA` with `ES256K`), though it signs with the one its settings name only;
/// - the JWK it publishes carries a `kid` and `alg`, and the ID token's header names that `kid`;
/// - a refresh answer carries no new ID token (only the access token is new).
@Suite(
    "ID tokens signed with ES256, PS256 and EdDSA by a real OpenID Connect server (glewlwyd)",
    .enabled(if: OIDCServerEnvironment.issuer != nil, OIDCServerEnvironment.skipReason),
    .serialized, .oidcServerExclusive, .hangLimit)
struct OIDCServerSignatureAlgorithmTests {
    let login = OIDCTestLogin(issuer: OIDCServerEnvironment.issuer ?? URL(fileURLWithPath: "/"))

    func client(
        issuer: URL, clientId: String = OIDCTestLogin.clientId, transport: any HTTPTransport,
        store: InMemoryCredentialStore = InMemoryCredentialStore(), dpop: (any DPoPKeyProvider)? = nil
    ) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.dpop = dpop.map { DPoPConfiguration(keyProvider: $0) }
        // Held to the FAPI 2.0 set: every instance here signs with one of its algorithms.
        configuration.idTokenAlgorithms = WebAuthConfiguration.fapiIDTokenAlgorithms
        return try WebAuthClient(
            issuer: issuer, clientId: clientId, redirectURI: OIDCTestLogin.redirectURI, transport: transport,
            credentialStore: store, configuration: configuration)
    }

    func signIn(_ client: WebAuthClient) async throws -> UserAccountResult {
        let cookie = try await login.sessionCookie(consentingFor: client.clientId)
        return try await client.signIn(
            WebSignInParameters(scopes: OIDCTestLogin.scopes), using: CookieBrowserAgent(cookie: cookie))
    }

    /// The instance's one published key.
    func publishedKey(_ instance: SigningInstance) async throws -> JSONValue {
        let metadata = try await ProviderDiscovery(issuer: instance.issuer(login), transport: login.transport)
            .metadata()
        let jwksURI = try #require(metadata.jwksURI)
        let answer = try await login.transport.send(HTTPRequest(method: "GET", url: jwksURI))
        #expect(answer.statusCode == 200)
        let keys = try #require(try JSONValue.parse(answer.body)["keys"]?.arrayValue)
        #expect(keys.count == 1)
        return try #require(keys.first)
    }

    @Test(arguments: SigningInstance.all)
    func discoveryAndTheKeySetNameTheAlgorithm(_ instance: SigningInstance) async throws {
        let issuer = instance.issuer(login)
        let metadata = try await ProviderDiscovery(issuer: issuer, transport: login.transport).metadata()
        #expect(metadata.issuer == issuer.absoluteString)
        #expect(metadata.idTokenSigningAlgValuesSupported == instance.published)
        let key = try await publishedKey(instance)
        #expect(key["alg"]?.stringValue == instance.algorithm)
        #expect(key["kty"]?.stringValue == instance.keyType)
        #expect(key["crv"]?.stringValue == instance.curve)
        #expect(key["kid"]?.stringValue?.isEmpty == false)
        #expect(key["d"] == nil, "the key set has the public key only")
    }

    /// Sign-in, refresh and userinfo through the public API; every ID token the client took was
    /// signed with the instance's algorithm and key.
    @Test(arguments: SigningInstance.all)
    func signsInRefreshesAndCallsUserinfo(_ instance: SigningInstance) async throws {
        let issuer = instance.issuer(login)
        let transport = ExchangeRecordingTransport()
        let store = InMemoryCredentialStore()
        let account = try await signIn(try client(issuer: issuer, transport: transport, store: store))
        let kid = try await publishedKey(instance)["kid"]?.stringValue

        let header = try #require(joseHeader(account.idToken))
        #expect(header["alg"]?.stringValue == instance.algorithm)
        #expect(header["kid"]?.stringValue == kid)
        let claims = try #require(JWT.payload(of: account.idToken))
        #expect(claims["iss"]?.stringValue == issuer.absoluteString)
        #expect(claims["at_hash"] != nil, "the at_hash check ran against the access token")
        #expect(account.account.claims.subject?.isEmpty == false)
        #expect(transport.exchanges("/jwks").count == 1, "the key set was fetched to verify the token")

        let first = try await account.getAccessToken()
        #expect(joseHeader(first.accessToken)?["alg"]?.stringValue == instance.algorithm)
        let refreshed = try await account.getAccessToken(forceRefresh: true)
        #expect(refreshed.accessToken != first.accessToken)
        let refresh = try #require(transport.exchanges("/token").last)
        #expect(refresh.request.body.map { String(decoding: $0, as: UTF8.self) }?.contains("refresh_token") == true)
        #expect(refresh.response.statusCode == 200)
        #expect(try JSONValue.parse(refresh.response.body)["id_token"] == nil, "glewlwyd sends no new ID token then")
        #expect(joseHeader(refreshed.accessToken)?["alg"]?.stringValue == instance.algorithm)

        let userinfo = try #require(
            try await ProviderDiscovery(issuer: issuer, transport: login.transport).metadata().userinfoEndpoint)
        let answer = try await account.send(HTTPRequest(method: "GET", url: userinfo))
        #expect(answer.statusCode == 200)
        #expect(try JSONValue.parse(answer.body)["sub"]?.stringValue == account.account.claims.subject)
        #expect(
            transport.exchanges("/userinfo").first?.request.header("Authorization") == "Bearer \(refreshed.accessToken)"
        )

        // A new client on the same store restores the account and refreshes with it.
        let restored = try #require(
            try await client(issuer: issuer, transport: ExchangeRecordingTransport(), store: store).currentAccount())
        #expect(restored.account.identifier == account.account.identifier)
        #expect(try await restored.getAccessToken(forceRefresh: true).accessToken != refreshed.accessToken)
    }

    /// The same sign-in with one bit of the ID token's signature changed on the way is refused:
    /// the signature is checked, for each algorithm, and nothing is stored.
    @Test(arguments: SigningInstance.all)
    func aChangedSignatureIsRefused(_ instance: SigningInstance) async throws {
        let transport = SignatureTamperingTransport()
        let store = InMemoryCredentialStore()
        let client = try client(issuer: instance.issuer(login), transport: transport, store: store)
        do {
            _ = try await signIn(client)
            Issue.record("an ID token with a changed \(instance.algorithm) signature was accepted")
        } catch let error as WebSignInError {
            #expect(error.failedIDTokenCheck == .signature, "\(error)")
        }
        #expect(transport.tamperedCount == 1)
        #expect(try await client.currentAccount() == nil)
    }

    /// DPoP with PS256 proofs (RFC 9449, RFC 7518 §3.5) at the PS256 instance, which publishes DPoP
    /// too: the SDK's software key provider picks PS256 from `dpop_signing_alg_values_supported`;
    /// the code exchange, the refresh and the userinfo call each carry a PS256 proof the server
    /// accepts, and the tokens (ID token PS256-signed) are bound to the key.
    @Test func aDPoPClientProvesItsKeyWithPS256() async throws {
        let instance = try #require(SigningInstance.all.first { $0.algorithm == "PS256" })
        let issuer = instance.issuer(login)
        let metadata = try await ProviderDiscovery(issuer: issuer, transport: login.transport).metadata()
        #expect(metadata.dpopSigningAlgValuesSupported?.contains("PS256") == true)

        let keys = RecordingSoftwareKeyProvider()
        let transport = ExchangeRecordingTransport()
        let account = try await signIn(
            try client(issuer: issuer, clientId: OIDCServerDPoPTests.clientId, transport: transport, dpop: keys))
        #expect(joseHeader(account.idToken)?["alg"]?.stringValue == "PS256")
        let key = try await keys.firstKey()
        let thumbprint = try #require(DPoPProof.thumbprint(of: key.publicJWK))
        #expect(key.publicJWK["kty"] == "RSA")

        let first = try await account.getAccessToken()
        #expect(OIDCServerDPoPTests.boundThumbprint(first.accessToken) == thumbprint)
        let refreshed = try await account.getAccessToken(forceRefresh: true)
        #expect(refreshed.accessToken != first.accessToken)
        #expect(OIDCServerDPoPTests.boundThumbprint(refreshed.accessToken) == thumbprint)
        let userinfo = try #require(metadata.userinfoEndpoint)
        #expect(try await account.send(HTTPRequest(method: "GET", url: userinfo)).statusCode == 200)

        let proved = transport.exchanges.filter { $0.request.header("DPoP") != nil }
        #expect(proved.map(\.request.url.path) == ["token", "token", "userinfo"].map { issuer.path + "/" + $0 })
        for exchange in proved {
            #expect(exchange.response.statusCode == 200, "\(exchange.request.url.path)")
            let proof = try ReadProof(exchange.request)
            #expect(proof.header["alg"]?.stringValue == "PS256", "\(exchange.request.url.path)")
            #expect(proof.header["typ"]?.stringValue == "dpop+jwt")
            #expect(proof.keyName == key.publicJWK["n"])
        }
        for exchange in transport.exchanges("/token") {
            #expect(String(decoding: exchange.response.body, as: UTF8.self).contains(#""token_type":"DPoP""#))
        }
    }
}
