import AuthCrypto
import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("private_key_jwt end to end on the emulator", .hangLimit, .cpuHeavy, .serialized)
struct PrivateKeyJWTEmulatorTests {
    let harness = EmulatorHarness()

    var tenant: EmulatedTenant { harness.tenant }
    var browser: EmulatedBrowser { EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password) }

    static func key(_ fixture: String = PrivateKeyFixtures.opensslPKCS1DER, algorithm: String = "PS256") throws
        -> RSAClientAssertionKey
    {
        try RSAClientAssertionKey(pkcs1DER: Data(WebTestSigner.bytes(fixture)), algorithm: algorithm, keyID: "k1")
    }

    func client(_ authentication: WebClientAuthentication, dpop: Bool = false) throws -> WebAuthClient {
        try harness.webClient { configuration in
            configuration.clock = harness.clock
            configuration.clientAuthentication = authentication
            if dpop { configuration.dpop = DPoPConfiguration(keyProvider: FixtureKeyProvider(pss: true)) }
        }
    }

    func signIn(_ client: WebAuthClient) async throws -> UserAccountResult { try await harness.webSignIn(client) }

    /// The requests the tenant took to `endpoint` that carried an assertion.
    func assertions(to endpoint: EmulatorEndpoint) -> [String] {
        tenant.receivedRequests.filter { $0.url.path.hasSuffix("/" + endpoint.rawValue) }.compactMap {
            formFields(String(decoding: $0.body ?? Data(), as: UTF8.self))["client_assertion"]
        }
    }

    @Test(arguments: [ClientAssertionAudience.issuer, .tokenEndpoint], ["PS256", "RS256"])
    func aConfidentialClientSignsInPushesAndRefreshes(audience: ClientAssertionAudience, algorithm: String)
        async throws
    {
        let key = try Self.key(algorithm: algorithm)
        tenant.configure {
            $0.clientAssertionKey = key.publicJWK
            $0.pushedAuthorizationRequests = .required
        }
        let client = try client(.privateKeyJWT(PrivateKeyJWT(key: key, audience: audience)))
        let account = try await signIn(client)
        harness.clock.advance(by: 3_600)
        #expect(!(try await account.getAccessToken()).accessToken.isEmpty)
        #expect(assertions(to: .pushedAuthorizationRequest).count == 1)
        #expect(assertions(to: .token).count == 2, "the code and the refresh")
    }

    @Test func aDPoPNonceRetryCarriesANewAssertionTheTenantTakes() async throws {
        let key = try Self.key()
        tenant.configure {
            $0.clientAssertionKey = key.publicJWK
            $0.dpop = .required
            $0.dpopNonces = true
        }
        let account = try await signIn(try client(.privateKeyJWT(PrivateKeyJWT(key: key)), dpop: true))
        #expect(!(try await account.getAccessToken()).accessToken.isEmpty)
        let sent = assertions(to: .token)
        #expect(sent.count == 2, "refused for the nonce, then taken")
        #expect(Set(sent).count == sent.count)
    }

    @Test func aClientWithoutTheKeyIsRefusedAndNothingIsStored() async throws {
        let key = try Self.key()
        tenant.configure { $0.clientAssertionKey = key.publicJWK }
        let other = try Self.key(PrivateKeyFixtures.rfc7515PKCS1DER)
        for authentication in [WebClientAuthentication.none, .privateKeyJWT(PrivateKeyJWT(key: other))] {
            let client = try client(authentication)
            do throws(WebSignInError) {
                _ = try await client.signIn(
                    WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com"), using: browser)
                Issue.record("expected invalid_client for \(authentication)")
            } catch {
                #expect(error.serverError == "invalid_client", "\(error)")
                #expect(error.httpStatusCode == 401)
                #expect(error.isConfigurationError)
            }
            #expect(try await client.currentAccount() == nil)
        }
    }

    @Test func aReplayedAssertionIsRefused() async throws {
        let key = try Self.key()
        tenant.configure { $0.clientAssertionKey = key.publicJWK }
        _ = try await signIn(try client(.privateKeyJWT(PrivateKeyJWT(key: key))))
        let first = try #require(
            tenant.receivedRequests.first { $0.url.path.hasSuffix("/" + EmulatorEndpoint.token.rawValue) })
        let again = try await tenant.send(first)
        #expect(again.statusCode == 401)
        let body = String(decoding: again.body, as: UTF8.self)
        #expect(body.contains("invalid_client") && body.contains("jti was used before"), "\(body)")
    }

    @Test func aFirstPartySignInAuthenticatesAtTheChallengeEndpointToo() async throws {
        let key = try Self.key()
        tenant.configure {
            $0.clientAssertionKey = key.publicJWK
            $0.authorizationChallengeEndpoint = true
        }
        let result = try await client(.privateKeyJWT(PrivateKeyJWT(key: key))).signInFirstParty(
            username: "ada@example.com", password: EmulatorHarness.password, scopes: ["offline_access"])
        guard case .completed = result else { throw TestFailure("expected a sign-in, got \(result)") }
        #expect(assertions(to: .authorizationChallenge).count == 1)
        #expect(assertions(to: .token).count == 1)
        // Without the key, the challenge endpoint refuses the client before it reads the password.
        let publicClient = try client(.none)
        do throws(WebSignInError) {
            let refused = try await publicClient.signInFirstParty(
                username: "ada@example.com", password: EmulatorHarness.password, scopes: ["offline_access"])
            Issue.record("expected a refusal, got \(refused)")
        } catch {
            #expect(error.serverError == "invalid_client" && error.httpStatusCode == 401)
        }
    }

    @Test func theSettingIsReadAndShownAsJSON() throws {
        var settings = EmulatorSettings()
        try settings.apply(json: #"{"clientAssertionKey":{"kty":"RSA","n":"AQAB","e":"AQAB"}}"#)
        #expect(settings.clientAssertionKey == ["kty": "RSA", "n": "AQAB", "e": "AQAB"])
        #expect(throws: EmulatorSettingsError.self) { try settings.apply(json: #"{"clientAssertionKey":{"n":1}}"#) }
        #expect(throws: EmulatorSettingsError.self) { try settings.apply(json: #"{"clientAssertionKey":"RSA"}"#) }
        try settings.apply(json: #"{"clientAssertionKey":null}"#)
        #expect(settings.clientAssertionKey == nil)
    }
}
