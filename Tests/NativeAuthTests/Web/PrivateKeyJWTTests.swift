import AuthCrypto
import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A client assertion as the provider reads it: header, claims, and whether its signature checks
/// with `key`'s public key.
struct ReadAssertion {
    let header: JSONValue
    let claims: JSONValue
    let signatureValid: Bool

    init(_ jwt: String, key: RSAClientAssertionKey) throws {
        let pieces = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(pieces.count == 3)
        header = try JSONValue.parse(try #require(Base64URL.decode(pieces[0])))
        claims = try JSONValue.parse(try #require(Base64URL.decode(pieces[1])))
        let signature = try #require(Base64URL.decode(pieces[2]))
        let algorithm = try #require(JWSAlgorithm(joseName: header["alg"]?.stringValue ?? ""))
        signatureValid = PortableSignatureVerifier().isValidSignature(
            Array(signature), of: Array((pieces[0] + "." + pieces[1]).utf8), algorithm: algorithm,
            key: .rsa(key.key.publicKey))
    }

    /// The assertion of a request's form body.
    init(request: HTTPRequest?, key: RSAClientAssertionKey) throws {
        let fields = formFields(ScriptedOpenIDProvider.body(request))
        #expect(fields["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        try self.init(try #require(fields["client_assertion"], "no client_assertion"), key: key)
    }

    var jti: String? { claims["jti"]?.stringValue }
}

/// A key that never signs.
struct BrokenAssertionKey: ClientAssertionKey {
    struct Refusal: Error {}
    var algorithm: String
    func sign(_ input: Data) async throws -> Data { throw Refusal() }
}

@Suite(
    "Web client authentication: private_key_jwt (RFC 7523, OpenID Connect Core §9)", .hangLimit, .cpuHeavy, .serialized)
struct PrivateKeyJWTTests {
    let harness = PARClient()

    static func key(_ algorithm: String = "PS256", keyID: String? = "app-key-1") throws -> RSAClientAssertionKey {
        try RSAClientAssertionKey(
            pkcs1DER: Data(bytes(hex: PrivateKeyFixtures.opensslPKCS1DER)), algorithm: algorithm, keyID: keyID)
    }

    static let audiences = ClientAssertionAudiences(
        issuer: "https://login.example.com/tenant/v2.0", tokenEndpoint: URL(string: "https://login.example.com/token")!)

    static let par = URL(string: "https://login.example.com/par")!

    static func context(now: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> ClientAssertionContext {
        ClientAssertionContext(audiences: { _ in audiences }, now: { now })
    }

    @Test(arguments: ["PS256", "RS256"])
    func anAssertionHasTheClaimsTheSpecificationsAskForAndVerifies(algorithm: String) async throws {
        let key = try Self.key(algorithm)
        let method = WebClientAuthentication.privateKeyJWT(PrivateKeyJWT(key: key, lifetime: 90))
        let jwt = try #require(
            try await method.assertion(for: Self.par, clientId: "web-app", context: Self.context(), correlationId: nil))
        let read = try ReadAssertion(jwt.reveal, key: key)
        #expect(read.signatureValid)
        #expect(read.header["alg"]?.stringValue == algorithm)
        #expect(read.header["kid"]?.stringValue == "app-key-1")
        #expect(read.claims["iss"]?.stringValue == "web-app")
        #expect(read.claims["sub"]?.stringValue == "web-app")
        #expect(read.claims["aud"]?.stringValue == Self.audiences.issuer, "one string, the issuer")
        #expect(read.claims["iat"]?.doubleValue == 1_700_000_000)
        #expect(read.claims["exp"]?.doubleValue == 1_700_000_090)
        #expect(read.jti.map { Base64URL.decode($0)?.count } == 16)
        let again = try #require(
            try await method.assertion(for: Self.par, clientId: "web-app", context: Self.context(), correlationId: nil))
        #expect(try ReadAssertion(again.reveal, key: key).jti != read.jti, "each assertion has its own jti")
    }

    @Test func theTokenEndpointAudienceAndTheLifetimeBoundsAreKept() async throws {
        let key = try Self.key(keyID: nil)
        var method = PrivateKeyJWT(key: key, audience: .tokenEndpoint)
        method.lifetime = 3_600
        #expect(method.lifetime == 600)
        method.lifetime = 0
        #expect(method.lifetime == 1)
        method.lifetime = .infinity
        #expect(method.lifetime == 60)
        let jwt = try #require(
            try await WebClientAuthentication.privateKeyJWT(method).assertion(
                for: Self.par, clientId: "web-app", context: Self.context(), correlationId: nil))
        let read = try ReadAssertion(jwt.reveal, key: key)
        #expect(read.claims["aud"]?.stringValue == "https://login.example.com/token")
        #expect(read.header["kid"] == nil)
        #expect(read.claims["exp"]?.doubleValue == 1_700_000_060)
        // The endpoint each request goes to, when the method says so.
        method.audience = .requestEndpoint
        let toPAR = try #require(
            try await WebClientAuthentication.privateKeyJWT(method).assertion(
                for: Self.par, clientId: "web-app", context: Self.context(), correlationId: nil))
        #expect(try ReadAssertion(toPAR.reveal, key: key).claims["aud"]?.stringValue == Self.par.absoluteString)
    }

    @Test func theFormCarriesTheClientAndTheAssertionAndNoStrayCredential() throws {
        let method = WebClientAuthentication.privateKeyJWT(PrivateKeyJWT(key: try Self.key()))
        var form = FormBody()
        form.add("grant_type", "refresh_token")
        form.add("client_id", "app")
        form.add("client_secret", "stray")
        form.add("client_assertion", "stray")
        form.add("scope", "openid")
        let text = String(
            decoding: method.authenticated(form, clientId: "app", assertion: Secret("a.b.c")).encoded, as: UTF8.self)
        #expect(
            text
                == "grant_type=refresh_token&client_id=app&client_assertion_type="
                + "urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer&client_assertion=a.b.c&scope=openid"
        )
        #expect(method.authorizationHeader(clientId: "app") == nil)
        #expect(method.methodName == "private_key_jwt")
    }

    @Test func aSignInAuthenticatesItsPushAndItsCodeWithFreshAssertions() async throws {
        let key = try Self.key()
        let provider = ScriptedOpenIDProvider(
            endpoints: .standard(par: true), tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let agent = InstantAgent(provider: provider)
        _ = try await harness.make(provider, authentication: .privateKeyJWT(PrivateKeyJWT(key: key))).signIn(
            WebSignInParameters(), using: agent)
        let push = try ReadAssertion(request: provider.requests(to: "/par").first, key: key)
        let token = try ReadAssertion(request: provider.requests(to: "/token").first, key: key)
        for read in [push, token] {
            #expect(read.signatureValid)
            #expect(read.claims["aud"]?.stringValue == ScriptedOpenIDProvider.issuer)
            #expect(read.claims["iss"]?.stringValue == "web-app")
            #expect(read.claims["iat"]?.doubleValue == harness.clock.now().timeIntervalSince1970.rounded(.down))
        }
        #expect(push.jti != token.jti)
        #expect(
            formFields(ScriptedOpenIDProvider.body(provider.requests(to: "/token").first))["client_id"] == "web-app")
        let shown = try #require(agent.shownURLs.first)
        #expect(!shown.absoluteString.contains("client_assertion"), "the assertion never reaches the browser")
        let assertions = provider.requests.compactMap {
            formFields(ScriptedOpenIDProvider.body($0))["client_assertion"]
        }
        let logs = harness.logger.records.map(\.description).joined(separator: "\n")
        #expect(logs.contains("private_key_jwt") && logs.contains("client_assertion"))
        for assertion in assertions {
            #expect(!logs.contains(assertion.split(separator: ".")[1]), "no part of an assertion is logged")
        }
    }

    /// The provider's `token_endpoint_auth_signing_alg_values_supported` (RFC 8414 §2) decides:
    /// the SDK's RSA key signs RS256 for a provider that lists RS256 only, and a provider that
    /// lists nothing the key can make is refused before the browser opens.
    @Test func theAlgorithmIsOneTheProviderLists() async throws {
        let key = try Self.key()
        let rs256Only = ScriptedOpenIDProvider(
            endpoints: .standard(), extraDiscovery: #""token_endpoint_auth_signing_alg_values_supported":["RS256"]"#,
            tokenAnswer: ScriptedOpenIDProvider.signingIn())
        _ = try await harness.make(rs256Only, authentication: .privateKeyJWT(PrivateKeyJWT(key: key))).signIn(
            WebSignInParameters(), using: InstantAgent(provider: rs256Only))
        let token = try ReadAssertion(request: rs256Only.requests(to: "/token").first, key: key)
        #expect(token.header["alg"]?.stringValue == "RS256")
        #expect(token.signatureValid)

        let ecOnly = ScriptedOpenIDProvider(
            endpoints: .standard(), extraDiscovery: #""token_endpoint_auth_signing_alg_values_supported":["ES256"]"#,
            tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let agent = InstantAgent(provider: ecOnly)
        let error = try await #require(throws: WebSignInError.self) {
            try await harness.make(ecOnly, authentication: .privateKeyJWT(PrivateKeyJWT(key: key))).signIn(
                WebSignInParameters(), using: agent)
        }
        #expect(error.isUnsupported, "\(error)")
        #expect(error.errorDescription?.contains("ES256") == true)
        #expect(agent.shownURLs.isEmpty, "refused before the browser opens")
        #expect(ecOnly.count("/token") == 0)
    }

    /// An installation's key is made once and kept in the credential store; later calls read the
    /// same key back, and an item that is not a key is an error, never replaced.
    @Test func theInstallationKeyIsMadeOnceAndKept() async throws {
        let store = InMemoryCredentialStore()
        let made = try await RSAClientAssertionKey.installationKey(credentialStore: store, keyID: "installation-1")
        let stored = try #require(try await store.data(forKey: "nativeauth.client-assertion-key"))
        #expect(stored == made.pkcs1DER)
        let again = try await RSAClientAssertionKey.installationKey(credentialStore: store, keyID: "installation-1")
        #expect(again.publicJWK == made.publicJWK)
        #expect(again.algorithm == "PS256")

        let damaged = InMemoryCredentialStore()
        try await damaged.setData(Data("not a key".utf8), forKey: "nativeauth.client-assertion-key")
        await #expect(throws: ClientAssertionKeyError.unreadableKey) {
            try await RSAClientAssertionKey.installationKey(credentialStore: damaged)
        }
        #expect(try await damaged.data(forKey: "nativeauth.client-assertion-key") == Data("not a key".utf8))
    }

    @Test func aRetryAfterADPoPNonceChallengeSignsANewAssertion() async throws {
        let key = try Self.key()
        let provider = DPoPClientTests.provider(nonce: "server-nonce-1")
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = harness.clock
        configuration.dpop = DPoPConfiguration(keyProvider: RecordingKeyProvider())
        configuration.clientAuthentication = .privateKeyJWT(PrivateKeyJWT(key: key))
        let client = try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: harness.store, configuration: configuration)
        _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        let attempts = provider.requests(to: "/token")
        try #require(attempts.count == 2, "the nonce challenge, then the answered request")
        let first = try ReadAssertion(request: attempts[0], key: key)
        let second = try ReadAssertion(request: attempts[1], key: key)
        #expect(first.signatureValid && second.signatureValid)
        #expect(first.jti != second.jti, "a provider that keeps used jti values takes the retry")
        #expect(
            formFields(ScriptedOpenIDProvider.body(attempts[0]))["code"]
                == formFields(ScriptedOpenIDProvider.body(attempts[1]))["code"])
    }

    @Test func aRevocationCarriesAnAssertion() async throws {
        let key = try Self.key()
        let provider = ScriptedOpenIDProvider(endpoints: .standard(revocation: true))
        let tokens = WebTokenClient(
            pipeline: .web(transport: provider, log: Log(logger: nil)),
            authentication: .privateKeyJWT(PrivateKeyJWT(key: key)), assertion: Self.context())
        try await tokens.revoke(
            TokenRevocationRequest(
                endpoint: URL(string: "\(ScriptedOpenIDProvider.issuer)/revoke")!, token: Secret("rt-1"),
                hint: .refreshToken, clientId: "web-app", correlationId: nil))
        let read = try ReadAssertion(request: provider.requests(to: "/revoke").first, key: key)
        #expect(read.signatureValid && read.claims["aud"]?.stringValue == Self.audiences.issuer)
    }

    @Test func withoutAProviderOrWithAKeyThatDoesNotSignNothingIsSent() async throws {
        let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let request = WebTokenRequest(
            tokenEndpoint: URL(string: "\(ScriptedOpenIDProvider.issuer)/token")!, clientId: "web-app",
            grant: .refreshToken(Secret("rt"), scopes: nil), correlationId: nil)
        let unplaced = WebTokenClient(
            pipeline: .web(transport: provider, log: Log(logger: nil)),
            authentication: .privateKeyJWT(PrivateKeyJWT(key: try Self.key())))
        await #expect(throws: WebSignInError.self) { _ = try await unplaced.send(request) }
        for key in [BrokenAssertionKey(algorithm: "ES256"), BrokenAssertionKey(algorithm: "HS256")] {
            let broken = WebTokenClient(
                pipeline: .web(transport: provider, log: Log(logger: nil)),
                authentication: .privateKeyJWT(PrivateKeyJWT(key: key)), assertion: Self.context())
            do {
                _ = try await broken.send(request)
                Issue.record("expected a refusal")
            } catch {
                #expect(error.isInvalidParameters)
            }
        }
        #expect(provider.requests(to: "/token").isEmpty)
    }

    @Test func keysAreReadOrRefusedAndNeverShown() throws {
        #expect(throws: ClientAssertionKeyError.unsupportedAlgorithm("ES256")) {
            try RSAClientAssertionKey(
                pkcs1DER: Data(bytes(hex: PrivateKeyFixtures.opensslPKCS1DER)), algorithm: "ES256")
        }
        #expect(throws: ClientAssertionKeyError.unreadableKey) {
            try RSAClientAssertionKey(pkcs1DER: Data([0x30, 0x03, 0x02, 0x01, 0x00]))
        }
        let key = try Self.key()
        #expect(key.pkcs1DER == Data(bytes(hex: PrivateKeyFixtures.opensslPKCS1DER)))
        #expect(Set(key.publicJWK.keys) == ["kty", "n", "e", "alg", "use", "kid"])
        let method = PrivateKeyJWT(key: key)
        let copy = method
        #expect(method == copy && WebClientAuthentication.privateKeyJWT(method) == .privateKeyJWT(copy))
        #expect(method != PrivateKeyJWT(key: key), "made apart, not equal")
        var configuration = WebAuthConfiguration()
        configuration.clientAuthentication = .privateKeyJWT(method)
        var dumped = ""
        dump(configuration, to: &dumped)
        var keyDump = ""
        dump(key, to: &keyDump)
        let privateText = [Base64URL.encode(Array(key.pkcs1DER)), key.pkcs1DER.base64EncodedString()]
        for text in [
            "\(key)", String(reflecting: key), keyDump, "\(method)", dumped,
            "\(WebClientAuthentication.privateKeyJWT(method))",
        ] {
            #expect(text.contains("PS256"), "\(text)")
            for secret in privateText { #expect(!text.contains(secret.prefix(40))) }
        }
        #expect("\(method)" == "privateKeyJWT(PS256, kid: app-key-1, aud: issuer, 60 s)")
    }

    #if canImport(CryptoKit)
        /// ES256 with CryptoKit (Apple platforms only): the assertion verifies with the JWK the key
        /// gives for registration, checked by the portable P-256 code, and the stored form restores it.
        @Test func aCryptoKitP256KeySignsES256() async throws {
            let key = try P256ClientAssertionKey.generate(prefersSecureEnclave: false, keyID: "device-1")
            let method = WebClientAuthentication.privateKeyJWT(PrivateKeyJWT(key: key))
            let jwt = try #require(
                try await method.assertion(
                    for: Self.par, clientId: "web-app", context: Self.context(), correlationId: nil))
            let pieces = jwt.reveal.split(separator: ".").map(String.init)
            let header = try JSONValue.parse(try #require(Base64URL.decode(pieces[0])))
            #expect(header["alg"]?.stringValue == "ES256" && header["kid"]?.stringValue == "device-1")
            let point = try P256PublicKey(
                x: try #require(Base64URL.decode(key.publicJWK["x"] ?? "")),
                y: try #require(Base64URL.decode(key.publicJWK["y"] ?? "")))
            let signature = try #require(Base64URL.decode(pieces[2]))
            #expect(signature.count == 64)
            #expect(
                PortableSignatureVerifier().isValidSignature(
                    Array(signature), of: Array((pieces[0] + "." + pieces[1]).utf8), algorithm: .es256,
                    key: .p256(point)))
            let restored = try P256ClientAssertionKey(storedForm: key.storedForm, keyID: "device-1")
            #expect(restored.publicJWK == key.publicJWK)
            #expect(!"\(key)".contains(key.storedForm.base64EncodedString()))
            #expect(throws: ClientAssertionKeyError.unreadableKey) { try P256ClientAssertionKey(storedForm: Data([9])) }
        }
    #endif
}
