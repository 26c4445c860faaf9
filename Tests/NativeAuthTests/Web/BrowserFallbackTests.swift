import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The tenant behind a native client, on a script: native endpoints answer as `native` says, the
/// OpenID Connect ones (discovery under `{authority}/v2.0`, keys, token) as a CIAM tenant would.
final class FallbackTenant: HTTPTransport, Sendable {
    static let tenantId = "11111111-2222-3333-4444-555555555555"
    static let issuer = "https://\(tenantId).ciamlogin.com/\(tenantId)/v2.0"
    let native: ScriptedTransport
    let nonce = Locked<String>("")
    let loginHint = Locked<String?>(nil)
    let paths = Locked<[String]>([])

    init(native: ScriptedTransport) { self.native = native }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        paths.withLock { $0.append(path) }
        let json = ["Content-Type": "application/json"]
        if path.hasSuffix("/v2.0/.well-known/openid-configuration") {
            let base = "https://contoso.ciamlogin.com/contoso.onmicrosoft.com"
            let document = """
                {"issuer":"\(Self.issuer)","authorization_endpoint":"\(base)/oauth2/v2.0/authorize",\
                "token_endpoint":"\(base)/oauth2/v2.0/token","jwks_uri":"\(base)/discovery/v2.0/keys",\
                "response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}
                """
            return HTTPResponse(statusCode: 200, headers: json, body: Data(document.utf8))
        }
        if path.hasSuffix("/discovery/v2.0/keys") {
            return HTTPResponse(statusCode: 200, headers: json, body: Data(WebTestSigner.jwks().utf8))
        }
        let form = String(decoding: request.body ?? Data(), as: UTF8.self)
        if path.hasSuffix("/oauth2/v2.0/token"), form.contains("grant_type=authorization_code") {
            let claims = """
                {"iss":"\(Self.issuer)","aud":"client-1","exp":1800003600,"iat":1800000000,\
                "nonce":"\(nonce.current)","sub":"browser-sub","oid":"00000000-0000-0000-0000-0000000000c3",\
                "tid":"\(Self.tenantId)","preferred_username":"bo@example.com"}
                """
            return ScriptedProvider.answer(idToken: WebTestSigner.token(claims: claims), refresh: "browser-refresh")
        }
        return try await native.send(request)
    }
}

/// A browser that signs in at once and tells the tenant the nonce and login hint it saw.
struct FallbackAgent: ExternalUserAgent {
    let tenant: FallbackTenant

    func authorize(url: URL, redirectURI: URL) async throws -> URL {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let value = { (name: String) in items.first { $0.name == name }?.value }
        tenant.nonce.withLock { $0 = value("nonce") ?? "" }
        tenant.loginHint.withLock { $0 = value("login_hint") }
        var callback = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)
        callback?.queryItems = [
            URLQueryItem(name: "code", value: "c"), URLQueryItem(name: "state", value: value("state") ?? ""),
        ]
        return callback?.url ?? redirectURI
    }
}

@Suite("Web sign-in: a native flow continues in the browser", .timeLimit(.minutes(1)))
struct BrowserFallbackTests {
    let native = ScriptedTransport()
    let store = InMemoryCredentialStore()
    let redirect = URL(string: "msauth.com.example.app://auth")!

    func client(_ tenant: FallbackTenant) -> NativeAuthClient {
        NativeAuthClient(configuration: testConfiguration(), transport: tenant, credentialStore: store)
    }

    func dumpText(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    @Test func browserRequiredContinuesWithOneCallIntoTheSameStore() async throws {
        let tenant = FallbackTenant(native: native)
        let client = client(tenant)
        native.then("initiate", .redirect("MFA by SMS is not supported natively."))
        var caught: SignInStartError?
        do {
            _ = try await client.signIn(SignInParameters(username: "bo@example.com", scopes: ["api://orders/read"]))
        } catch {
            caught = error
        }
        let error = try #require(caught)
        #expect(error.isBrowserRequired)
        #expect(!dumpText(error).contains("ClientCore"), "the error shows nothing of the client")
        let account = try await error.continueInBrowser(redirectURI: redirect, using: FallbackAgent(tenant: tenant))
        #expect(account.account.claims.subject == "browser-sub")
        #expect(tenant.loginHint.current == "bo@example.com")
        // The same store as a native sign-in: a new client restores it with no request.
        let requests = tenant.paths.current.count
        let restored = try #require(try await self.client(FallbackTenant(native: native)).currentAccount())
        #expect(restored.account.identifier == account.account.identifier)
        #expect(tenant.paths.current.count == requests)
        // It refreshes like a native account, at the tenant's token endpoint.
        native.then(
            "token",
            .tokens(
                access: "native-access-2", refresh: "refresh-2",
                idToken: WebTestSigner.token(
                    claims:
                        "{\"sub\":\"browser-sub\",\"oid\":\"00000000-0000-0000-0000-0000000000c3\",\"tid\":\"\(FallbackTenant.tenantId)\"}"
                )))
        #expect(try await account.getAccessToken(forceRefresh: true).accessToken == "native-access-2")
        #expect(formFields(native.requests.last!).contains("refresh_token=browser-refresh"))
        // And signs out like one.
        await account.signOut()
        #expect(try await client.currentAccount() == nil)
    }

    @Test func otherErrorsDoNotContinueInTheBrowser() async throws {
        let tenant = FallbackTenant(native: native)
        native.then("initiate", .error("user_not_found", codes: [50034]))
        do {
            _ = try await client(tenant).signIn(SignInParameters(username: "bo@example.com"))
        } catch {
            do {
                _ = try await error.continueInBrowser(redirectURI: redirect, using: FallbackAgent(tenant: tenant))
                Issue.record("expected a refusal")
            } catch {
                #expect(error.isInvalidParameters)
            }
        }
    }

    @Test func signInWithBrowserDirectly() async throws {
        let tenant = FallbackTenant(native: native)
        let account = try await client(tenant).signInWithBrowser(
            WebSignInParameters(scopes: ["api://orders/read"]), redirectURI: redirect,
            using: FallbackAgent(tenant: tenant))
        #expect(account.account.username == "bo@example.com")
        #expect(
            tenant.paths.current.contains {
                $0.hasSuffix("/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration")
            })
    }
}
