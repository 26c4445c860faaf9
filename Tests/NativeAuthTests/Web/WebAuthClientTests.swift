import Foundation
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A provider on a script: discovery, keys and a token endpoint whose answer is built from the
/// nonce the agent saw. Counts the requests per path.
final class ScriptedProvider: HTTPTransport, Sendable {
    static let issuer = "https://login.example.com"
    let discovery: String
    let tokenAnswer: Locked<@Sendable (String) -> HTTPResponse>
    let jwks: Locked<[String]>
    private let counts = Locked<[String: Int]>([:])
    let nonce = Locked<String>("")
    let forms = Locked<[String]>([])

    init(
        issuer: String = ScriptedProvider.issuer, jwks: [String] = [WebTestSigner.jwks()],
        tokenAnswer: @escaping @Sendable (String) -> HTTPResponse
    ) {
        discovery = """
            {"issuer":"\(issuer)","authorization_endpoint":"\(Self.issuer)/authorize",\
            "token_endpoint":"\(Self.issuer)/token","jwks_uri":"\(Self.issuer)/jwks",\
            "response_types_supported":["code"],"subject_types_supported":["public"],\
            "id_token_signing_alg_values_supported":["RS256"],"code_challenge_methods_supported":["S256"]}
            """
        self.jwks = Locked(jwks)
        self.tokenAnswer = Locked(tokenAnswer)
    }

    func count(_ path: String) -> Int { counts.current[path] ?? 0 }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        counts.withLock { $0[path, default: 0] += 1 }
        switch path {
        case "/.well-known/openid-configuration":
            return HTTPResponse(
                statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(discovery.utf8))
        case "/jwks":
            let body = jwks.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
            return HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        case "/token":
            forms.withLock { $0.append(String(decoding: request.body ?? Data(), as: UTF8.self)) }
            return tokenAnswer.current(nonce.current)
        default:
            return HTTPResponse(statusCode: 404)
        }
    }

    /// A token answer with an ID token signed over `claims`.
    static func answer(idToken: String, refresh: String? = "web-refresh-1", access: String = "web-access-1")
        -> HTTPResponse
    {
        var body =
            "{\"token_type\":\"bearer\",\"expires_in\":3600,\"access_token\":\"\(access)\",\"id_token\":\"\(idToken)\""
        if let refresh { body += ",\"refresh_token\":\"\(refresh)\"" }
        body += "}"
        return HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }

    static func claims(
        nonce: String, iss: String = issuer, aud: String = "\"web-app\"", sub: String? = "user-1",
        exp: Int = 1_800_003_600, iat: Int = 1_800_000_000, extra: String = ""
    ) -> String {
        var fields = [
            "\"iss\":\"\(iss)\"", "\"aud\":\(aud)", "\"exp\":\(exp)", "\"iat\":\(iat)", "\"nonce\":\"\(nonce)\"",
            "\"preferred_username\":\"ada@example.com\"",
        ]
        if let sub { fields.append("\"sub\":\"\(sub)\"") }
        if !extra.isEmpty { fields.append(extra) }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// A browser that signs in at once: it returns the redirect with a code and the request's
/// `state` (or another, to test the check), and tells the provider the nonce it saw.
struct InstantAgent: ExternalUserAgent {
    let provider: ScriptedProvider
    var state: String? = nil
    var cancel = false

    func authorize(url: URL, redirectURI: URL) async throws -> URL {
        if cancel { throw ExternalUserAgentError.cancelled }
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let value = { (name: String) in items.first { $0.name == name }?.value ?? "" }
        provider.nonce.withLock { $0 = value("nonce") }
        var callback = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        callback?.queryItems = [
            URLQueryItem(name: "code", value: "the-code"), URLQueryItem(name: "state", value: state ?? value("state")),
        ]
        return callback?.url ?? redirectURI
    }
}

@Suite("Web sign-in: a hostile provider signs nobody in", .timeLimit(.minutes(1)), .lowPriority)
struct WebAuthClientTests {
    let clock = TestClock()
    let store = InMemoryCredentialStore()

    func client(_ provider: ScriptedProvider) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.clock = clock
        return try WebAuthClient(
            issuer: URL(string: ScriptedProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider, credentialStore: store,
            configuration: configuration)
    }

    @Test func signsInVerifiesAndRefreshesKeepingTheRefreshToken() async throws {
        let provider = ScriptedProvider { nonce in
            ScriptedProvider.answer(idToken: WebTestSigner.token(claims: ScriptedProvider.claims(nonce: nonce)))
        }
        let client = try client(provider)
        let account = try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"]), using: InstantAgent(provider: provider))
        #expect(account.account.username == "ada@example.com")
        #expect(account.account.claims.subject == "user-1")
        let form = provider.forms.current.last ?? ""
        #expect(form.contains("grant_type=authorization_code") && form.contains("code_verifier="))
        // Restored with no request.
        let before = provider.count("/token")
        let restored = try #require(try await client.currentAccount())
        #expect(try await restored.getAccessToken().accessToken == "web-access-1")
        #expect(provider.count("/token") == before)
        // A refresh whose answer has no refresh token keeps the old one.
        provider.tokenAnswer.withLock {
            $0 = { _ in
                ScriptedProvider.answer(
                    idToken: WebTestSigner.token(claims: ScriptedProvider.claims(nonce: "")), refresh: nil,
                    access: "web-access-2")
            }
        }
        #expect(try await restored.getAccessToken(forceRefresh: true).accessToken == "web-access-2")
        #expect(provider.forms.current.last?.contains("refresh_token=web-refresh-1") == true)
        provider.tokenAnswer.withLock {
            $0 = { _ in ScriptedProvider.answer(idToken: "", refresh: nil, access: "web-access-3") }
        }
        #expect(try await restored.getAccessToken(forceRefresh: true).accessToken == "web-access-3")
        #expect(provider.forms.current.last?.contains("refresh_token=web-refresh-1") == true)
    }

    static let hostile: [(String, IDTokenCheck)] = [
        ("issuer", .issuer), ("audience", .audience), ("azp", .authorizedParty), ("expired", .expired),
        ("future", .issuedInFuture), ("nonce", .nonce), ("none", .algorithm), ("hs256", .algorithm),
        ("flipped", .signature), ("no-sub", .subject), ("at_hash", .atHash),
    ]

    @Test(arguments: hostile)
    func hostileTokenIsRefused(kind: String, check: IDTokenCheck) async throws {
        let provider = ScriptedProvider { nonce in
            let claims: String
            switch kind {
            case "issuer": claims = ScriptedProvider.claims(nonce: nonce, iss: "https://evil.example.com")
            case "audience": claims = ScriptedProvider.claims(nonce: nonce, aud: "\"other-app\"")
            case "azp": claims = ScriptedProvider.claims(nonce: nonce, aud: "[\"web-app\",\"other\"]")
            case "expired": claims = ScriptedProvider.claims(nonce: nonce, exp: 1_799_990_000)
            case "future": claims = ScriptedProvider.claims(nonce: nonce, iat: 1_800_009_000)
            case "nonce": claims = ScriptedProvider.claims(nonce: "not-" + nonce)
            case "no-sub": claims = ScriptedProvider.claims(nonce: nonce, sub: nil)
            case "at_hash":
                claims = ScriptedProvider.claims(nonce: nonce, extra: "\"at_hash\":\"AAAAAAAAAAAAAAAAAAAAAA\"")
            default: claims = ScriptedProvider.claims(nonce: nonce)
            }
            var token = WebTestSigner.token(claims: claims)
            switch kind {
            case "none":
                token =
                    Base64URL.encode(Data("{\"alg\":\"none\"}".utf8)) + "." + Base64URL.encode(Data(claims.utf8)) + "."
            case "hs256":
                token = WebTestSigner.token(claims: claims, header: "{\"alg\":\"HS256\",\"kid\":\"test-key\"}")
            case "flipped":
                var characters = Array(token)
                let index = characters.count - 5
                characters[index] = characters[index] == "A" ? "B" : "A"
                token = String(characters)
            default: break
            }
            return ScriptedProvider.answer(idToken: token)
        }
        let client = try client(provider)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
            Issue.record("\(kind): expected a refusal")
        } catch {
            #expect(error.isInvalidIDToken, "\(kind)")
            #expect(error.failedIDTokenCheck == check, "\(kind)")
        }
        #expect(try await client.currentAccount() == nil, "\(kind): nobody is signed in")
        #expect(
            try await store.data(forKey: "nativeauth.web.\(ScriptedProvider.issuer).web-app") == nil,
            "\(kind): nothing stored")
    }

    @Test func unknownKeyIdIsFetchedAgainOnceThenRefused() async throws {
        let provider = ScriptedProvider(jwks: [WebTestSigner.jwks(kid: "old-key")]) { nonce in
            ScriptedProvider.answer(idToken: WebTestSigner.token(claims: ScriptedProvider.claims(nonce: nonce)))
        }
        let client = try client(provider)
        await #expect(throws: WebSignInError.self) {
            _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        }
        #expect(provider.count("/jwks") == 2)
        // A rotation: the second fetch has the key.
        let rotated = ScriptedProvider(jwks: [WebTestSigner.jwks(kid: "old-key"), WebTestSigner.jwks()]) { nonce in
            ScriptedProvider.answer(idToken: WebTestSigner.token(claims: ScriptedProvider.claims(nonce: nonce)))
        }
        _ = try await self.client(rotated).signIn(WebSignInParameters(), using: InstantAgent(provider: rotated))
        #expect(rotated.count("/jwks") == 2)
    }

    @Test func stateMismatchAndCancellation() async throws {
        let provider = ScriptedProvider { nonce in
            ScriptedProvider.answer(idToken: WebTestSigner.token(claims: ScriptedProvider.claims(nonce: nonce)))
        }
        let client = try client(provider)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider, state: "forged"))
            Issue.record("expected a state mismatch")
        } catch {
            #expect(error.isStateMismatch)
        }
        do {
            _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider, cancel: true))
            Issue.record("expected a cancellation")
        } catch {
            #expect(error.isCancelled)
        }
        #expect(provider.count("/token") == 0)
        #expect(try await client.currentAccount() == nil)
    }

    @Test func subjectChangedOnRefreshIsRefused() async throws {
        let provider = ScriptedProvider { nonce in
            ScriptedProvider.answer(idToken: WebTestSigner.token(claims: ScriptedProvider.claims(nonce: nonce)))
        }
        let client = try client(provider)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        provider.tokenAnswer.withLock {
            $0 = { _ in
                ScriptedProvider.answer(
                    idToken: WebTestSigner.token(claims: ScriptedProvider.claims(nonce: "", sub: "user-2")),
                    access: "web-access-2")
            }
        }
        do {
            _ = try await account.getAccessToken(forceRefresh: true)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isAccountMismatch)
        }
        let restored = try #require(try await client.currentAccount())
        #expect(restored.account.claims.subject == "user-1")
        #expect(try await restored.getAccessToken().accessToken == "web-access-1")
    }
}
