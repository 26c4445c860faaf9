// The samples of Docs/DPoP.md, and the tests that run them against a scripted provider that
// binds its tokens to the key of each proof.

import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// snippet: dpop-configure
func makeDPoPClient(transport: any HTTPTransport) throws -> WebAuthClient {
    var configuration = WebAuthConfiguration()
    configuration.dpop = DPoPConfiguration()  // the platform's keys: the Secure Enclave, or the SDK's RSA keys
    return try WebAuthClient(
        issuer: URL(string: "https://login.example.com")!, clientId: "web-app",
        redirectURI: URL(string: "com.example.app:/callback")!, transport: transport,
        credentialStore: InMemoryCredentialStore(), configuration: configuration)
}
// snippet: end

// snippet: dpop-sign-in-and-call
func signInAndCallAPI(client: WebAuthClient, agent: any ExternalUserAgent) async throws -> HTTPResponse {
    let account = try await signIn(client: client, agent: agent)
    // `Authorization: DPoP …` and a fresh proof for this method and URL; a resource's nonce
    // challenge is answered once.
    return try await account.send(HTTPRequest(method: "GET", url: URL(string: "https://api.example.com/orders")!))
}

func signIn(client: WebAuthClient, agent: any ExternalUserAgent) async throws(WebSignInError) -> UserAccountResult {
    do {
        return try await client.signIn(WebSignInParameters(scopes: ["offline_access"]), using: agent)
    } catch {
        if let problem = error.dpopProblem {
            // No key could be made, the provider takes none of its algorithms, or it did not bind
            // the tokens (token_type is not DPoP): nothing was stored.
            print("Sign-in could not bind the session to this device: \(problem)")
        }
        throw error
    }
}
// snippet: end

// snippet: dpop-url-session
func ordersRequest(account: UserAccountResult) async throws -> URLRequest {
    // For URLSession: the request with its Authorization and DPoP headers. A proof is good for
    // one request: authorize each request anew.
    try await account.authorize(URLRequest(url: URL(string: "https://api.example.com/orders")!))
}
// snippet: end

// snippet: dpop-own-key-provider
/// Where an app keeps keys of its own, such as an HSM on a server.
protocol KeyVault: Sendable {
    func createKey() async throws -> (label: String, modulus: Data, exponent: Data)
    func sign(label: String, message: Data) async throws -> Data  // RSASSA-PKCS1-v1_5 with SHA-256
    func deleteKey(label: String) async
}

struct VaultKey: DPoPKey {
    let vault: any KeyVault
    let label: String
    let publicJWK: [String: String]
    var algorithm: String { "RS256" }
    func sign(_ input: Data) async throws -> Data { try await vault.sign(label: label, message: input) }
}

struct VaultKeyProvider: DPoPKeyProvider {
    let vault: any KeyVault
    var supportedAlgorithms: [String] { ["RS256"] }

    func makeKey(algorithm: String) async throws -> (key: any DPoPKey, storedForm: Data) {
        let made = try await vault.createKey()
        let jwk = ["kty": "RSA", "n": base64URL(made.modulus), "e": base64URL(made.exponent)]
        return (VaultKey(vault: vault, label: made.label, publicJWK: jwk), Data(made.label.utf8))
    }

    func restoreKey(from storedForm: Data) async throws -> any DPoPKey {
        // The vault knows the key by its label; the public part is asked for again here.
        throw DPoPKeyProviderError.unreadableStoredForm  // (a real vault looks the label up)
    }

    func deleteKey(storedForm: Data) async {
        await vault.deleteKey(label: String(decoding: storedForm, as: UTF8.self))
    }

    private func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
// snippet: end

// The formatter leaves this alone: the sample keeps its comments as they are.
// swift-format-ignore
// snippet: dpop-delegate
@MainActor
final class BoundSignInScreen: WebSignInDelegate {
    private(set) var message = ""

    func start(client: WebAuthClient, agent: any ExternalUserAgent) {
        client.signIn(WebSignInParameters(), using: agent, delegate: self)
    }

    func onWebSignInCompleted(result: UserAccountResult) {
        message = "Signed in; the session is bound to this device."
    }

    func onWebSignInError(error: WebSignInError) {
        if error.isCancelled { return }
        if let problem = error.dpopProblem {
            message = "The session could not be bound to this device (\(problem))."
        } else {
            message = error.errorDescription ?? "Sign-in failed."
        }
    }
}
// snippet: end

/// A scripted provider that binds its tokens to each proof's key, and an API that wants DPoP.
struct DPoPDocFixture {
    let provider = ScriptedOpenIDProvider(
        endpoints: .standard(), extraDiscovery: #""dpop_signing_alg_values_supported":["RS256","ES256"]"#
    ) { exchange in
        let proved = exchange.request.header("DPoP") != nil
        let now = Int(Date().timeIntervalSince1970)
        let idToken = WebTestSigner.token(
            claims: ScriptedOpenIDProvider.claims(nonce: exchange.nonce, exp: now + 3600, iat: now))
        return ScriptedOpenIDProvider.json(
            200,
            #"{"token_type":"\#(proved ? "DPoP" : "Bearer")","expires_in":3600,"access_token":"at","#
                + #""refresh_token":"rt","id_token":"\#(idToken)"}"#)
    }
}

/// Answers `GET https://api.example.com/orders` with 200 when it carries DPoP, else 401; other
/// requests go to the provider.
struct DPoPAPI: HTTPTransport {
    let provider: ScriptedOpenIDProvider
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard request.url.host == "api.example.com" else { return try await provider.send(request) }
        let bound = request.header("Authorization") == "DPoP at" && request.header("DPoP") != nil
        return HTTPResponse(statusCode: bound ? 200 : 401)
    }
}

@Suite(.hangLimit, .cpuHeavy)
struct DPoPSnippetTests {
    let fixture = DPoPDocFixture()

    @Test func aBoundSessionCallsTheAPI() async throws {
        let client = try makeDPoPClient(transport: DPoPAPI(provider: fixture.provider))
        let response = try await signInAndCallAPI(client: client, agent: InstantAgent(provider: fixture.provider))
        #expect(response.statusCode == 200)
        let account = try #require(try await client.currentAccount())
        let request = try await ordersRequest(account: account)
        #expect(request.value(forHTTPHeaderField: "Authorization") == "DPoP at")
        #expect(request.value(forHTTPHeaderField: "DPoP")?.split(separator: ".").count == 3)
    }

    @MainActor
    @Test func theDelegateSaysWhenTheSessionIsBound() async throws {
        let client = try makeDPoPClient(transport: fixture.provider)
        let screen = BoundSignInScreen()
        screen.start(client: client, agent: InstantAgent(provider: fixture.provider))
        try await requireUntil("signed in") { !screen.message.isEmpty }
        #expect(screen.message == "Signed in; the session is bound to this device.")
    }
}
