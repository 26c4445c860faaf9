import AuthCrypto
import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The SDK's RSA keys (RS256, or PS256 when made with `pss`), without the cost of generating them
/// in a debug build: each new key is the next of two fixed 2048-bit keys (RFC 7515 A.2's and one
/// made by OpenSSL). It records deletions.
final class FixtureKeyProvider: DPoPKeyProvider {
    let deleted = LockedValue<Int>(0)
    let made = LockedValue<Int>(0)
    private let software = SoftwareDPoPKeyProvider()
    private let pss: Bool
    static let keys: [Data] = [PrivateKeyFixtures.rfc7515PKCS1DER, PrivateKeyFixtures.opensslPKCS1DER].map {
        Data(WebTestSigner.bytes($0))
    }

    init(pss: Bool = false) { self.pss = pss }

    var supportedAlgorithms: [String] { pss ? ["PS256", "RS256"] : ["RS256"] }

    func makeKey(algorithm: String) async throws -> (key: any DPoPKey, storedForm: Data) {
        let der = Self.keys[
            made.withLock {
                $0 += 1; return ($0 - 1) % 2
            }]
        let stored = algorithm == "PS256" ? SoftwareDPoPKeyProvider.pssMarker + der : der
        return (try await software.restoreKey(from: stored), stored)
    }

    func restoreKey(from storedForm: Data) async throws -> any DPoPKey {
        try await software.restoreKey(from: storedForm)
    }

    func deleteKey(storedForm: Data) async { deleted.withLock { $0 += 1 } }
}

@Suite("DPoP end to end on the emulator", .hangLimit)
struct DPoPEmulatorTests {
    static let redirect = URL(string: "msauth.com.example.app://auth")!
    let harness = EmulatorHarness()
    let keys = FixtureKeyProvider()
    let store = InMemoryCredentialStore()

    var tenant: EmulatedTenant { harness.tenant }
    var browser: EmulatedBrowser { EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password) }
    var resource: URL { tenant.url(for: .resource) }

    func client(dpop: Bool = true) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = harness.clock
        if dpop { configuration.dpop = DPoPConfiguration(keyProvider: keys) }
        return try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: Self.redirect, transport: tenant,
            credentialStore: store, configuration: configuration)
    }

    func signIn(_ client: WebAuthClient) async throws -> UserAccountResult {
        try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com"), using: browser)
    }

    @Test(arguments: [false, true])
    func signInRefreshAndTheResourceWithBoundTokens(nonces: Bool) async throws {
        tenant.configure {
            $0.dpop = .required
            $0.dpopNonces = nonces
        }
        let client = try client()
        let account = try await signIn(client)
        let me = try await account.send(HTTPRequest(method: "GET", url: resource))
        #expect(me.statusCode == 200, "\(String(decoding: me.body, as: UTF8.self))")
        harness.clock.advance(by: 3600)
        let refreshed = try await account.getAccessToken()
        #expect(!refreshed.accessToken.isEmpty)
        #expect(try await account.send(HTTPRequest(method: "GET", url: resource)).statusCode == 200)
        // The tenant's own check: the bound token as a plain bearer token is refused.
        let bearer = HTTPRequest(
            method: "GET", url: resource, headers: ["Authorization": "Bearer \(refreshed.accessToken)"])
        let refused = try await tenant.send(bearer)
        #expect(refused.statusCode == 401)
        #expect(refused.header("WWW-Authenticate")?.contains("DPoP") == true)
        if nonces {
            let proofs = tenant.receivedRequests.compactMap { $0.header("DPoP") }
            #expect(proofs.contains { $0.split(separator: ".").count == 3 })
        }
    }

    @Test func aPS256KeyIsPreferredAndItsProofsAreTakenByTheTenant() async throws {
        tenant.configure { $0.dpop = .required }
        var configuration = WebAuthConfiguration()
        configuration.clock = harness.clock
        configuration.dpop = DPoPConfiguration(keyProvider: FixtureKeyProvider(pss: true))
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: Self.redirect, transport: tenant,
            credentialStore: store, configuration: configuration)
        let account = try await signIn(client)
        let me = try await account.send(HTTPRequest(method: "GET", url: resource))
        #expect(me.statusCode == 200, "\(String(decoding: me.body, as: UTF8.self))")
        let headers = tenant.receivedRequests.compactMap { $0.header("DPoP") }.map {
            String(decoding: Base64URL.decode(String($0.split(separator: ".")[0])) ?? Data(), as: UTF8.self)
        }
        #expect(!headers.isEmpty)
        #expect(headers.allSatisfy { $0.contains(#""alg":"PS256""#) })
    }

    @Test func aRestoredSessionStillProvesPossessionAndSignOutDeletesTheKey() async throws {
        tenant.configure { $0.dpop = .required }
        _ = try await signIn(try client())
        let restarted = try client()
        let account = try #require(try await restarted.currentAccount())
        harness.clock.advance(by: 3600)
        _ = try await account.getAccessToken()
        #expect(try await account.send(HTTPRequest(method: "GET", url: resource)).statusCode == 200)
        #expect(keys.made.current == 1)
        _ = await restarted.signOut(account)
        #expect(keys.deleted.current == 1)
        #expect(try await restarted.currentAccount() == nil)
    }

    @Test func aTenantThatIgnoresTheProofGivesBearerTokensWhichTheClientRefuses() async throws {
        tenant.configure { $0.dpop = .off }
        let error = try await #require(throws: WebSignInError.self) { try await signIn(try client()) }
        #expect(error.dpopProblem == .tokensNotBound)
        #expect(try await client().currentAccount() == nil)
        // Without DPoP on the client, the same tenant signs in with bearer tokens.
        let account = try await signIn(try client(dpop: false))
        #expect(try await account.authorize(HTTPRequest(method: "GET", url: resource)).header("DPoP") == nil)
    }

    @Test func aTenantThatRequiresDPoPRefusesAClientWithoutIt() async throws {
        tenant.configure { $0.dpop = .required }
        let error = try await #require(throws: WebSignInError.self) { try await signIn(try client(dpop: false)) }
        #expect(error.serverError == "invalid_dpop_proof")
        #expect(error.dpopProblem == .proofRefused)
    }
}
