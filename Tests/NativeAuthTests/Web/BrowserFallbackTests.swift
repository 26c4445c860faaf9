import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// The tenant behind a native client, on a script: native endpoints answer as `native` says, the
/// OpenID Connect ones (discovery under `{authority}/v2.0`, keys, token) as a CIAM tenant would.
enum FallbackTenant {
    static let tenantId = "11111111-2222-3333-4444-555555555555"
    static let issuer = "https://\(tenantId).ciamlogin.com/\(tenantId)/v2.0"

    static func make(native: ScriptedTransport) -> ScriptedOpenIDProvider {
        ScriptedOpenIDProvider(
            endpoints: .ciam(authority: "https://contoso.ciamlogin.com/contoso.onmicrosoft.com"), issuer: issuer,
            fallback: native
        ) { exchange in
            guard exchange.grantType == "authorization_code" else { return nil }
            let claims = """
                {"iss":"\(issuer)","aud":"client-1","exp":1800003600,"iat":1800000000,\
                "nonce":"\(exchange.nonce)","sub":"browser-sub","oid":"00000000-0000-0000-0000-0000000000c3",\
                "tid":"\(tenantId)","preferred_username":"bo@example.com"}
                """
            return ScriptedOpenIDProvider.answer(
                idToken: WebTestSigner.token(claims: claims), refresh: "browser-refresh")
        }
    }
}

@Suite("Web sign-in: a native flow continues in the browser", .hangLimit)
struct BrowserFallbackTests {
    let native = ScriptedTransport()
    let store = InMemoryCredentialStore()
    let redirect = URL(string: "msauth.com.example.app://auth")!

    func client(_ tenant: ScriptedOpenIDProvider) -> NativeAuthClient {
        NativeAuthClient(configuration: testConfiguration(), transport: tenant, credentialStore: store)
    }

    func dumpText(_ value: Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }

    @Test func browserRequiredContinuesWithOneCallIntoTheSameStore() async throws {
        let tenant = FallbackTenant.make(native: native)
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
        let account = try await error.continueInBrowser(
            redirectURI: redirect, using: InstantAgent(provider: tenant, code: "c"))
        #expect(account.account.claims.subject == "browser-sub")
        #expect(tenant.loginHint.current == "bo@example.com")
        // The same store as a native sign-in: a new client restores it with no request.
        let requests = tenant.requests.count
        let restored = try #require(try await self.client(FallbackTenant.make(native: native)).currentAccount())
        #expect(restored.account.identifier == account.account.identifier)
        #expect(tenant.requests.count == requests)
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
        let tenant = FallbackTenant.make(native: native)
        native.then("initiate", .error("user_not_found", codes: [50034]))
        do {
            _ = try await client(tenant).signIn(SignInParameters(username: "bo@example.com"))
        } catch {
            do {
                _ = try await error.continueInBrowser(
                    redirectURI: redirect, using: InstantAgent(provider: tenant, code: "c"))
                Issue.record("expected a refusal")
            } catch {
                #expect(error.isInvalidParameters)
            }
        }
    }

    /// A native client's browser sign-in sends its web requests once, as a web client does: the
    /// authorization code is single-use, and a second exchange would turn a 503 into invalid_grant.
    @Test func theBrowserSignInOfANativeClientIsNotRetried() async throws {
        let tenant = FallbackTenant.make(native: native)
        tenant.tokenAnswer.withLock {
            $0 = { exchange in
                exchange.grantType == "authorization_code"
                    ? HTTPResponse(statusCode: 503, headers: ["Retry-After": "0"]) : nil
            }
        }
        do {
            _ = try await client(tenant).signInWithBrowser(
                WebSignInParameters(), redirectURI: redirect, using: InstantAgent(provider: tenant, code: "c"))
            Issue.record("expected the 503")
        } catch {
            #expect(error.isServerError && error.httpStatusCode == 503, "\(error)")
        }
        #expect(tenant.requests.filter { $0.url.path.hasSuffix("/oauth2/v2.0/token") }.count == 1)
    }

    @Test func signInWithBrowserDirectly() async throws {
        let tenant = FallbackTenant.make(native: native)
        let account = try await client(tenant).signInWithBrowser(
            WebSignInParameters(scopes: ["api://orders/read"]), redirectURI: redirect,
            using: InstantAgent(provider: tenant, code: "c"))
        #expect(account.account.username == "bo@example.com")
        #expect(
            tenant.requests.contains {
                $0.url.path.hasSuffix("/contoso.onmicrosoft.com/v2.0/.well-known/openid-configuration")
            })
    }

    /// MSAL's `sliceConfig` applies to "all requests made by an application": a browser sign-in
    /// of the native client sends `slice` and `dc` to the authorization endpoint and with the
    /// code's redemption; an app's own value of either is kept.
    @Test(arguments: [false, true])
    func theSliceParametersGoToTheAuthorizationAndTokenEndpoints(appSetsDC: Bool) async throws {
        let tenant = FallbackTenant.make(native: native)
        var configuration = testConfiguration()
        configuration.sliceConfig = SliceConfig(slice: "test-slice", dc: "DC 1")
        let client = NativeAuthClient(configuration: configuration, transport: tenant, credentialStore: store)
        let agent = InstantAgent(provider: tenant, code: "c")
        _ = try await client.signInWithBrowser(
            WebSignInParameters(extraParameters: appSetsDC ? ["DC": "mine"] : [:]), redirectURI: redirect,
            using: agent)
        #expect(agent.values("slice") == ["test-slice"])
        #expect(agent.values("dc") == (appSetsDC ? [] : ["DC 1"]))
        #expect(agent.values("DC") == (appSetsDC ? ["mine"] : []))
        let token = try #require(tenant.requests.first { $0.url.path.hasSuffix("/oauth2/v2.0/token") })
        #expect(token.url.query == "slice=test-slice&dc=DC%201")
        let discoveryAndKeys = tenant.requests.filter {
            $0.url.path.contains("openid-configuration") || $0.url.path.hasSuffix("/discovery/v2.0/keys")
        }
        #expect(discoveryAndKeys.count == 2 && discoveryAndKeys.allSatisfy { $0.url.query == nil })
    }
}
