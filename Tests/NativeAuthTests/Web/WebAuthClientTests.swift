import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

@Suite("Web sign-in: a hostile provider signs nobody in", .hangLimit, .cpuHeavy)
struct WebAuthClientTests {
    let clock = TestClock()
    let store = InMemoryCredentialStore()

    func client(_ provider: ScriptedOpenIDProvider) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider, credentialStore: store,
            configuration: configuration)
    }

    @Test func signsInVerifiesAndRefreshesKeepingTheRefreshToken() async throws {
        let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let client = try client(provider)
        let account = try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"]), using: InstantAgent(provider: provider))
        #expect(account.account.username == "ada@example.com")
        #expect(account.account.claims.subject == "user-1")
        let form = provider.forms(to: "/token").last ?? ""
        #expect(form.contains("grant_type=authorization_code") && form.contains("code_verifier="))
        // Restored with no request.
        let before = provider.count("/token")
        let restored = try #require(try await client.currentAccount())
        #expect(try await restored.getAccessToken().accessToken == "web-access-1")
        #expect(provider.count("/token") == before)
        // A refresh whose answer has no refresh token keeps the old one.
        provider.tokenAnswer.withLock {
            $0 = { _ in
                ScriptedOpenIDProvider.answer(
                    idToken: WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: "")), refresh: nil,
                    access: "web-access-2")
            }
        }
        #expect(try await restored.getAccessToken(forceRefresh: true).accessToken == "web-access-2")
        #expect(provider.forms(to: "/token").last?.contains("refresh_token=web-refresh-1") == true)
        provider.tokenAnswer.withLock {
            $0 = { _ in ScriptedOpenIDProvider.answer(idToken: "", refresh: nil, access: "web-access-3") }
        }
        #expect(try await restored.getAccessToken(forceRefresh: true).accessToken == "web-access-3")
        #expect(provider.forms(to: "/token").last?.contains("refresh_token=web-refresh-1") == true)
    }

    static let hostile: [(String, IDTokenCheck)] = [
        ("issuer", .issuer), ("audience", .audience), ("azp", .authorizedParty), ("expired", .expired),
        ("future", .issuedInFuture), ("nonce", .nonce), ("none", .algorithm), ("hs256", .algorithm),
        ("flipped", .signature), ("no-sub", .subject), ("at_hash", .atHash),
    ]

    @Test(arguments: hostile)
    func hostileTokenIsRefused(kind: String, check: IDTokenCheck) async throws {
        let provider = ScriptedOpenIDProvider { exchange in
            let claims: String
            switch kind {
            case "issuer":
                claims = ScriptedOpenIDProvider.claims(nonce: exchange.nonce, iss: "https://evil.example.com")
            case "audience": claims = ScriptedOpenIDProvider.claims(nonce: exchange.nonce, aud: "\"other-app\"")
            case "azp": claims = ScriptedOpenIDProvider.claims(nonce: exchange.nonce, aud: "[\"web-app\",\"other\"]")
            case "expired": claims = ScriptedOpenIDProvider.claims(nonce: exchange.nonce, exp: 1_799_990_000)
            case "future": claims = ScriptedOpenIDProvider.claims(nonce: exchange.nonce, iat: 1_800_009_000)
            case "nonce": claims = ScriptedOpenIDProvider.claims(nonce: "not-" + exchange.nonce)
            case "no-sub": claims = ScriptedOpenIDProvider.claims(nonce: exchange.nonce, sub: nil)
            case "at_hash":
                claims = ScriptedOpenIDProvider.claims(
                    nonce: exchange.nonce, extra: "\"at_hash\":\"AAAAAAAAAAAAAAAAAAAAAA\"")
            default: claims = ScriptedOpenIDProvider.claims(nonce: exchange.nonce)
            }
            var token = WebTestSigner.token(claims: claims)
            switch kind {
            case "none":
                token =
                    base64URL(Data("{\"alg\":\"none\"}".utf8)) + "." + base64URL(Data(claims.utf8)) + "."
            case "hs256":
                token = WebTestSigner.token(claims: claims, header: "{\"alg\":\"HS256\",\"kid\":\"test-key\"}")
            case "flipped":
                var characters = Array(token)
                let index = characters.count - 5
                characters[index] = characters[index] == "A" ? "B" : "A"
                token = String(characters)
            default: break
            }
            return ScriptedOpenIDProvider.answer(idToken: token)
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
            try await store.data(forKey: "nativeauth.web.\(ScriptedOpenIDProvider.issuer).web-app") == nil,
            "\(kind): nothing stored")
    }

    @Test func unknownKeyIdIsFetchedAgainOnceThenRefused() async throws {
        let provider = ScriptedOpenIDProvider(
            jwks: [WebTestSigner.jwks(kid: "old-key")], tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let client = try client(provider)
        await #expect(throws: WebSignInError.self) {
            _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        }
        #expect(provider.count("/jwks") == 2)
        // A rotation: the second fetch has the key.
        let rotated = ScriptedOpenIDProvider(
            jwks: [WebTestSigner.jwks(kid: "old-key"), WebTestSigner.jwks()],
            tokenAnswer: ScriptedOpenIDProvider.signingIn())
        _ = try await self.client(rotated).signIn(WebSignInParameters(), using: InstantAgent(provider: rotated))
        #expect(rotated.count("/jwks") == 2)
    }

    @Test func stateMismatchAndCancellation() async throws {
        let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())
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
        let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let client = try client(provider)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        provider.tokenAnswer.withLock {
            $0 = { _ in
                ScriptedOpenIDProvider.answer(
                    idToken: WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: "", sub: "user-2")),
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
