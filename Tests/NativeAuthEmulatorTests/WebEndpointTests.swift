import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth
@testable import NativeAuthEmulator

/// Raw HTTP on the tenant's OpenID Connect endpoints, as a browser and a web client send it.
struct WebHarness {
    static let redirect = "msauth.com.example.app://auth"
    /// A fixed PKCE verifier (64 unreserved characters) and its S256 challenge.
    static let verifier = "verifier-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJKLMNOPQR"
    static let challenge = Encoding.base64URL(Data(SHA256.hash(Array(verifier.utf8))))

    let harness: Harness
    var tenant: EmulatedTenant { harness.tenant }
    var clock: ManualClock { harness.clock }

    init(configure: (inout EmulatorSettings) -> Void = { _ in }) {
        self.init(harness: Harness(configure: configure))
    }

    /// On the tenant of `harness`, such as one an ``EmulatorServer`` serves.
    init(harness: Harness) {
        self.harness = harness
        tenant.addUser(EmulatedUser(username: "bo@contoso.com", password: "Browser-Only-1", requiresBrowser: true))
    }

    /// The authorization URL (on the tenant-id path, as the discovery document names it), with
    /// `changes` applied: a `nil` value removes a parameter.
    func authorizeURL(_ changes: [String: String?] = [:]) -> URL {
        var parameters: [(String, String?)] = [
            ("response_type", "code"), ("client_id", tenant.clientId), ("redirect_uri", Self.redirect),
            ("scope", "openid profile offline_access api://contoso/read"), ("state", "state-1"),
            ("nonce", "nonce-1"), ("code_challenge", Self.challenge), ("code_challenge_method", "S256"),
            ("login_hint", Fixture.ada), ("client-request-id", "00000000-1111-2222-3333-444444444444"),
        ]
        for (name, value) in changes {
            if let index = parameters.firstIndex(where: { $0.0 == name }) {
                parameters[index].1 = value
            } else {
                parameters.append((name, value))
            }
        }
        let query = formEncode(parameters.compactMap { name, value in value.map { (name, $0) } })
        return URL(string: "https://contoso.ciamlogin.com/\(tenant.tenantId)/oauth2/v2.0/authorize?\(query)")!
    }

    func get(_ url: URL) async throws -> HTTPResponse {
        try await tenant.send(HTTPRequest(method: "GET", url: url))
    }

    /// Posts the sign-in form of `page` (from a response) with `fields` added.
    func submit(_ response: HTTPResponse, _ fields: [(String, String)]) async throws -> HTTPResponse {
        let page = EmulatedPage(html: String(decoding: response.body, as: UTF8.self))
        let form = try #require(page.form, "no form in \(String(decoding: response.body, as: UTF8.self))")
        let ctx = try #require(form.fields.first { $0.name == "ctx" }?.value)
        let url = try #require(URL(string: form.action, relativeTo: URL(string: "https://contoso.ciamlogin.com")))
        return try await tenant.send(
            HTTPRequest(
                method: "POST", url: url.absoluteURL,
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data(formEncode([("ctx", ctx)] + fields).utf8)))
    }

    /// The query parameters of a redirect's `Location`.
    func callback(_ response: HTTPResponse) throws -> [String: String] {
        #expect(response.statusCode == 302, "\(String(decoding: response.body, as: UTF8.self))")
        let location = try #require(response.header("Location"))
        #expect(location.hasPrefix(Self.redirect + "?"))
        let items = URLComponents(string: location)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// Authorize, sign in as Ada; returns the callback's parameters.
    func signIn(_ changes: [String: String?] = [:], password: String = Fixture.adaPassword) async throws
        -> [String: String]
    {
        let page = try await get(authorizeURL(changes))
        try #require(page.statusCode == 200, "\(String(decoding: page.body, as: UTF8.self))")
        return try callback(try await submit(page, [("password", password), ("action", "signin")]))
    }

    /// Redeems `code` at the token endpoint.
    func redeem(_ code: String, verifier: String = WebHarness.verifier, redirect: String = WebHarness.redirect)
        async throws -> Reply
    {
        let url = try #require(URL(string: "https://contoso.ciamlogin.com/\(tenant.tenantId)/oauth2/v2.0/token"))
        let form = formEncode([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
            ("client_id", tenant.clientId), ("code_verifier", verifier),
        ])
        return try Reply(
            await tenant.send(
                HTTPRequest(
                    method: "POST", url: url, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Data(form.utf8))))
    }

    /// The tenant's JWK Set, parsed by the SDK.
    func keySet() async throws -> JSONWebKeySet {
        let response = try await get(tenant.url(for: .keys))
        return try JSONWebKeySet(json: response.body)
    }
}

func html(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

@Suite(
    "Browser sign-in endpoints: discovery, keys, authorize, the sign-in page, code grant, logout",
    .hangLimit)
struct WebEndpointTests {
    // MARK: Discovery and keys

    @Test func discoveryDocumentHasTheShapeOfAnExternalTenantOne() async throws {
        let web = WebHarness()
        let tenant = web.tenant
        let base = "https://contoso.ciamlogin.com/\(tenant.tenantId)"
        let viaAuthority = try await web.get(tenant.url(for: .openIDConfiguration))
        let viaIssuer = try await web.get(tenant.issuer.appendingPathComponent(".well-known/openid-configuration"))
        #expect(viaAuthority.statusCode == 200)
        #expect(viaAuthority.body == viaIssuer.body)
        #expect(viaAuthority.header("Cache-Control") == "max-age=86400, private")
        let document = try Reply(viaAuthority)
        #expect(document["issuer"] == "https://\(tenant.tenantId).ciamlogin.com/\(tenant.tenantId)/v2.0")
        #expect(document["issuer"] == tenant.issuerIdentifier)
        #expect(tenant.issuer.absoluteString == base + "/v2.0")
        #expect(document["authorization_endpoint"] == base + "/oauth2/v2.0/authorize")
        #expect(document["token_endpoint"] == base + "/oauth2/v2.0/token")
        #expect(document["jwks_uri"] == base + "/discovery/v2.0/keys")
        #expect(document["end_session_endpoint"] == base + "/oauth2/v2.0/logout")
        #expect(document.json["id_token_signing_alg_values_supported"] as? [String] == ["RS256"])
        #expect((document.json["response_types_supported"] as? [String])?.contains("code") == true)
        #expect((document.json["scopes_supported"] as? [String])?.contains("offline_access") == true)
        // Like Entra's, it announces neither PKCE methods nor `iss` in authorization responses.
        #expect(!document.has("code_challenge_methods_supported"))
        #expect(!document.has("authorization_response_iss_parameter_supported"))
        // The SDK reads it and accepts the tenant-id issuer for the configured name.
        let metadata = try ProviderDiscovery.parse(
            viaAuthority.body, configuredIssuer: tenant.authority.appendingPathComponent("v2.0"), requireJWKS: true)
        #expect(metadata.tokenEndpoint.absoluteString == base + "/oauth2/v2.0/token")
    }

    @Test func keysHoldOneRS256PublicKeyTheSDKAccepts() async throws {
        let web = WebHarness()
        let response = try await web.get(web.tenant.url(for: .keys))
        let set = try Reply(response)
        let keys = try #require(set.json["keys"] as? [[String: Any]])
        #expect(keys.count == 1)
        let key = try #require(keys.first)
        #expect(key["kty"] as? String == "RSA")
        #expect(key["use"] as? String == "sig")
        #expect(key["e"] as? String == "AQAB")
        #expect(key["kid"] as? String == EmulatorSigningKey.test.keyID)
        #expect(key["issuer"] as? String == web.tenant.issuerIdentifier)
        #expect(key["d"] == nil && key["p"] == nil, "no private member is published")
        let parsed = try await web.keySet()
        #expect(parsed.keys.count == 1)
        #expect(parsed.keys.first?.publicKey?.modulusBitWidth == 2048)
        // The kid is the RFC 7638 thumbprint: the same on every run and for every tenant.
        #expect(EmulatorSigningKey.test.keyID.count == 43)
        let other = EmulatedTenant(tenantSubdomain: "fabrikam")
        let otherKeys = try await other.send(HTTPRequest(method: "GET", url: other.url(for: .keys)))
        #expect(try JSONWebKeySet(json: otherKeys.body).keys.first?.keyID == EmulatorSigningKey.test.keyID)
    }

    @Test func signaturesVerifyWithTheSDKsRS256Verifier() async throws {
        let web = WebHarness()
        let keys = try await web.keySet()
        let signer = EmulatorSigningKey.test
        for claims: JSONObject in [
            ["sub": "a"], ["sub": "b", "n": 1], ["long": .string(String(repeating: "x", count: 2000))],
        ] {
            let token = try #require(signer.signedJWT(claims))
            let verified = try IDTokenSignature.verify(token, keys: keys)
            #expect(verified.keyID == signer.keyID)
            #expect(verified.header["alg"]?.stringValue == "RS256")
            #expect(verified.header["typ"]?.stringValue == "JWT")
            // One changed payload byte breaks it.
            var parts = token.split(separator: ".").map(String.init)
            parts[1] = Encoding.base64URL(Data(#"{"sub":"z"}"#.utf8))
            #expect(throws: JWSVerificationError.self) {
                try IDTokenSignature.verify(parts.joined(separator: "."), keys: keys)
            }
        }
        // The CRT arithmetic against plain values.
        let a = BigUInt(bigEndian: [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00])
        let b = BigUInt(bigEndian: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        let product = EmulatorSigningKey.multiply(a, b)
        #expect(EmulatorSigningKey.remainder(product, a) == .zero)
        #expect(EmulatorSigningKey.remainder(EmulatorSigningKey.add(product, BigUInt(5)), b) == BigUInt(5))
        #expect(EmulatorSigningKey.subtract(EmulatorSigningKey.add(a, b), b) == a)
        #expect(EmulatorSigningKey.remainder(BigUInt(7), BigUInt(9)) == BigUInt(7))
    }

    // MARK: The authorization endpoint

    @Test func authorizeShowsTheSignInPageWithEverythingEscaped() async throws {
        let web = WebHarness()
        let response = try await web.get(web.authorizeURL(["login_hint": #""><script>alert('x')</script>&"#]))
        #expect(response.statusCode == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(response.header("Cache-Control") == "no-store, no-cache")
        let text = html(response)
        #expect(!text.contains("<script>"))
        #expect(text.contains("&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;"))
        let page = EmulatedPage(html: text)
        let form = try #require(page.form)
        #expect(form.action == "/\(web.tenant.tenantId)/login")
        #expect(form.fields.map { $0.name } == ["ctx", "username", "password"])
        #expect(form.fields[1].value == #""><script>alert('x')</script>&"#)
        #expect(form.fields[2].value.isEmpty)
        #expect(!text.contains(WebHarness.challenge) && !text.contains("nonce-1") && !text.contains("state-1"))
    }

    @Test func anUnknownClientOrRedirectURIGetsAnErrorPageAndNoRedirect() async throws {
        let web = WebHarness { $0.redirectURIs = [WebHarness.redirect, "http://127.0.0.1/callback"] }
        let cases: [([String: String?], String)] = [
            (["client_id": "<b>other</b>"], "AADSTS700016"),
            (["client_id": nil], "AADSTS900144"),
            (["redirect_uri": "https://evil.example.com/cb"], "AADSTS50011"),
            (["redirect_uri": nil], "AADSTS900144"),
            (["redirect_uri": "http://127.0.0.1:8080/other"], "AADSTS50011"),
        ]
        for (changes, code) in cases {
            let response = try await web.get(web.authorizeURL(changes))
            #expect(response.statusCode == 400, "\(changes)")
            #expect(response.header("Location") == nil)
            let page = EmulatedPage(html: html(response))
            #expect(page.message?.hasPrefix(code + ":") == true, "\(changes): \(page.message ?? "")")
            #expect(page.form == nil)
            #expect(!html(response).contains("<b>"))
        }
        // A registered loopback URI matches on any port, as with Entra.
        let loopback = try await web.get(web.authorizeURL(["redirect_uri": "http://127.0.0.1:53124/callback"]))
        #expect(loopback.statusCode == 200)
        // With no list, https, loopback http and custom schemes count as registered; others do not.
        let open = WebHarness()
        for uri in ["https://app.example.com/cb", "http://localhost:9/cb", "com.example.app:/oauth"] {
            #expect(try await open.get(open.authorizeURL(["redirect_uri": uri])).statusCode == 200, "\(uri)")
        }
        for uri in ["http://app.example.com/cb", "javascript:alert(1)", "relative/path", "https://x.example/cb#f"] {
            #expect(try await open.get(open.authorizeURL(["redirect_uri": uri])).statusCode == 400, "\(uri)")
        }
    }

    @Test func otherProblemsGoBackToTheAppWithState() async throws {
        let web = WebHarness()
        let cases: [([String: String?], String, Int)] = [
            (["code_challenge": nil], "invalid_request", 9002325),
            (["code_challenge_method": "plain"], "invalid_request", 50149),
            (["code_challenge_method": nil], "invalid_request", 50149),
            (["code_challenge": "short"], "invalid_request", 501491),
            (["response_type": "token"], "unsupported_response_type", 700054),
            (["response_type": nil], "invalid_request", 900144),
            (["scope": nil], "invalid_request", 90100),
            (["prompt": "none"], "login_required", 50058),
            (["response_mode": "form_post"], "invalid_request", 90100),
        ]
        for (changes, error, code) in cases {
            let response = try await web.get(web.authorizeURL(changes))
            let callback = try web.callback(response)
            #expect(callback["error"] == error, "\(changes)")
            #expect(callback["error_description"]?.hasPrefix("AADSTS\(code): ") == true, "\(changes): \(callback)")
            #expect(callback["error_description"]?.contains("00000000-1111-2222-3333-444444444444") == true)
            #expect(callback["state"] == "state-1")
            #expect(callback["code"] == nil)
        }
        // A parameter sent twice is refused (RFC 6749 §3.1).
        let twice = URL(string: web.authorizeURL().absoluteString + "&state=again")!
        #expect(try web.callback(try await web.get(twice))["error"] == "invalid_request")
    }

    @Test func malformedRequestsGetPagesNotCrashes() async throws {
        let web = WebHarness()
        let base = "https://contoso.ciamlogin.com/\(web.tenant.tenantId)"
        let broken = try await web.get(URL(string: base + "/oauth2/v2.0/authorize?client_id=%zz")!)
        #expect(broken.statusCode == 400)
        let login = URL(string: base + "/login")!
        for (headers, body) in [
            (["Content-Type": "application/json"], Data("{}".utf8)),
            (["Content-Type": "application/x-www-form-urlencoded"], Data("ctx=%".utf8)),
            (["Content-Type": "application/x-www-form-urlencoded"], Data([0xFF, 0xFE])),
            (["Content-Type": "application/x-www-form-urlencoded"], Data("ctx=unknown&password=x".utf8)),
            ([:], Data()),
        ] {
            let response = try await web.tenant.send(
                HTTPRequest(method: "POST", url: login, headers: headers, body: body))
            #expect(response.statusCode == 400)
            #expect(response.header("Location") == nil)
        }
        // Random queries: every answer is a page, a redirect back to the registered URI, or an error page.
        var generator = SplitMix64(seed: 7)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz_=&%+;#?/:.-0123456789ABCDEF<>\"'".utf8)
        let names = [
            "client_id", "redirect_uri", "response_type", "scope", "code_challenge", "code_challenge_method",
            "state", "prompt", "response_mode", "login_hint", "nonce",
        ]
        for _ in 0..<200 {
            var changes: [String: String?] = [:]
            for name in names where Bool.random(using: &generator) {
                let length = Int.random(in: 0..<12, using: &generator)
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? 0x61 }
                changes[name] = Bool.random(using: &generator) ? String(decoding: bytes, as: UTF8.self) : nil
            }
            let response = try await web.get(web.authorizeURL(changes))
            #expect([200, 302, 400].contains(response.statusCode), "\(changes)")
            if let location = response.header("Location") {
                let redirect = changes["redirect_uri"].map { $0 ?? "" } ?? WebHarness.redirect
                #expect(!redirect.isEmpty && location.hasPrefix(redirect), "\(changes)")
            }
        }
    }

    // MARK: The sign-in page

    @Test func theRightPasswordSendsTheBrowserBackWithACodeAndState() async throws {
        let web = WebHarness()
        let callback = try await web.signIn()
        #expect(callback["state"] == "state-1")
        #expect(callback["code"]?.hasPrefix("1.") == true)
        #expect(callback["iss"] == nil, "Entra sends no iss")
        #expect(Set(callback.keys) == ["code", "state"])
        // The fragment response mode puts them in the fragment.
        let page = try await web.get(web.authorizeURL(["response_mode": "fragment"]))
        let back = try await web.submit(page, [("password", Fixture.adaPassword)])
        #expect(back.header("Location")?.hasPrefix(WebHarness.redirect + "#code=") == true)
    }

    @Test func aWrongPasswordShowsThePageAgainAndTheHandleStaysUsable() async throws {
        let web = WebHarness()
        let page = try await web.get(web.authorizeURL())
        let wrong = try await web.submit(page, [("username", Fixture.ada), ("password", "<wrong>")])
        #expect(wrong.statusCode == 200)
        #expect(EmulatedPage(html: html(wrong)).error == "Your password is incorrect.")
        #expect(!html(wrong).contains("wrong>"), "the password is not echoed")
        let unknown = try await web.submit(wrong, [("username", "nobody@contoso.com"), ("password", "x")])
        #expect(EmulatedPage(html: html(unknown)).error == "We couldn't find an account with this email address.")
        #expect(
            EmulatedPage(html: html(unknown)).form?.fields.first { $0.name == "username" }?.value
                == "nobody@contoso.com")
        let right = try await web.submit(unknown, [("username", Fixture.ada), ("password", Fixture.adaPassword)])
        #expect(try web.callback(right)["code"] != nil)
        // The handle is spent.
        let replay = try await web.submit(page, [("password", Fixture.adaPassword)])
        #expect(replay.statusCode == 400)
        #expect(EmulatedPage(html: html(replay)).message?.hasPrefix("AADSTS50089:") == true)
    }

    @Test func cancelSendsAccessDenied() async throws {
        let web = WebHarness()
        let page = try await web.get(web.authorizeURL())
        let callback = try web.callback(try await web.submit(page, [("action", "cancel")]))
        #expect(callback["error"] == "access_denied")
        #expect(callback["state"] == "state-1")
    }

    @Test func aPasswordlessUserSignsInWithAnEmailCodeAndAnMFAUserWithASecondCode() async throws {
        let web = WebHarness()
        let page = try await web.get(web.authorizeURL(["login_hint": Fixture.grace]))
        let codePage = try await web.submit(page, [("password", "")])
        let form = try #require(EmulatedPage(html: html(codePage)).form)
        #expect(form.fields.map { $0.name } == ["ctx", "code"])
        #expect(html(codePage).contains("g***e@co**o.com"))
        let sent = try #require(web.tenant.outbox.last)
        #expect(sent.to == Fixture.grace && sent.purpose == "signIn")
        #expect(!html(codePage).contains(sent.code))
        let wrong = try await web.submit(codePage, [("code", "00000000")])
        #expect(EmulatedPage(html: html(wrong)).error == "That code is incorrect. Try again.")
        #expect(try web.callback(try await web.submit(wrong, [("code", sent.code)]))["code"] != nil)

        let mfa = try await web.get(web.authorizeURL(["login_hint": Fixture.alan]))
        let second = try await web.submit(mfa, [("password", Fixture.alanPassword)])
        let mfaCode = try #require(web.tenant.outbox.last)
        #expect(mfaCode.to == "+447700900123" && mfaCode.purpose == "mfa")
        #expect(try web.callback(try await web.submit(second, [("code", mfaCode.code)]))["code"] != nil)
    }

    @Test func aSignInPageExpiresOnTheTenantClock() async throws {
        let web = WebHarness()
        let page = try await web.get(web.authorizeURL())
        web.clock.advance(by: 3601)
        let late = try await web.submit(page, [("password", Fixture.adaPassword)])
        #expect(late.statusCode == 400)
        #expect(late.header("Location") == nil)
    }

    // MARK: The authorization code grant

    @Test func theCodeBuysSignedTokensOnce() async throws {
        let web = WebHarness()
        let code = try #require(try await web.signIn()["code"])
        let reply = try await web.redeem(code)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply["token_type"] == "Bearer")
        #expect(reply["scope"] == "api://contoso/read")
        #expect(reply.has("refresh_token"))
        let idToken = reply["id_token"]
        let verified = try IDTokenSignature.verify(idToken, keys: try await web.keySet())
        let claims = try #require(verified.claims)
        #expect(claims["iss"]?.stringValue == web.tenant.issuerIdentifier)
        #expect(claims["aud"]?.stringValue == web.tenant.clientId)
        #expect(claims["nonce"]?.stringValue == "nonce-1")
        #expect(claims["preferred_username"]?.stringValue == Fixture.ada)
        #expect(claims["name"]?.stringValue == "Ada Lovelace")
        #expect(claims["tid"]?.stringValue == web.tenant.tenantId)
        for name in ["sub", "oid", "exp", "iat"] { #expect(claims[name] != nil, "\(name)") }
        #expect(claims["iat"]?.intValue == 1_800_000_000 && claims["exp"]?.intValue == 1_800_003_600)
        // The same code a second time is refused, as Entra refuses it.
        expectError(try await web.redeem(code), "invalid_grant", code: 54005)
    }

    @Test func hostileRedemptionsAreRefused() async throws {
        let web = WebHarness()
        let code = try #require(try await web.signIn()["code"])
        expectError(
            try await web.redeem(code, verifier: String(repeating: "w", count: 64)), "invalid_grant", code: 501481)
        expectError(try await web.redeem(code, verifier: ""), "invalid_grant", code: 501481)
        expectError(try await web.redeem(code, verifier: WebHarness.challenge), "invalid_grant", code: 501481)
        expectError(
            try await web.redeem(code, redirect: "msauth.com.example.app://other"), "invalid_grant", code: 50011)
        expectError(try await web.redeem("1.made-up"), "invalid_grant", code: 70000)
        // None of these spent the code.
        #expect(try await web.redeem(code).status == 200)

        let late = try #require(try await web.signIn()["code"])
        web.clock.advance(by: 601)
        expectError(try await web.redeem(late), "invalid_grant", code: 70008)

        // The client must be the registered one.
        let url = try #require(URL(string: "https://contoso.ciamlogin.com/\(web.tenant.tenantId)/oauth2/v2.0/token"))
        let other = try Reply(
            await web.tenant.send(
                HTTPRequest(
                    method: "POST", url: url, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                    body: Data("grant_type=authorization_code&code=x&client_id=other".utf8))))
        expectError(other, "invalid_client", code: 700016)
    }

    @Test func refreshesOfABrowserSignInAreSignedAndNativeOnesAreNot() async throws {
        let web = WebHarness()
        let code = try #require(try await web.signIn()["code"])
        let first = try await web.redeem(code)
        let refreshed = try await web.harness.post(
            .token, ["grant_type": "refresh_token", "refresh_token": first["refresh_token"], "scope": Fixture.scopes])
        #expect(refreshed.status == 200, "\(refreshed.text)")
        let verified = try IDTokenSignature.verify(refreshed["id_token"], keys: try await web.keySet())
        #expect(verified.claims?["nonce"] == nil)
        #expect(
            verified.claims?["sub"]
                == (try IDTokenSignature.verify(first["id_token"], keys: try await web.keySet())).claims?["sub"])
        // The rotated refresh token keeps signing.
        let again = try await web.harness.post(
            .token,
            ["grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"], "scope": Fixture.scopes])
        _ = try IDTokenSignature.verify(again["id_token"], keys: try await web.keySet())
        // A native sign-in's tokens stay unsigned.
        let native = try await web.harness.signIn(Fixture.ada, password: Fixture.adaPassword)
        _ = try claims(native["id_token"])
    }

    // MARK: End session

    @Test func logoutGoesBackWithStateOrStaysOnASignedOutPage() async throws {
        let web = WebHarness()
        let base = "https://contoso.ciamlogin.com/\(web.tenant.tenantId)/oauth2/v2.0/logout"
        let back = try await web.get(
            URL(
                string: base
                    + "?post_logout_redirect_uri=https%3A%2F%2Fapp.example.com%2Fbye&state=s%20t&id_token_hint=x")!)
        #expect(back.statusCode == 302)
        #expect(back.header("Location") == "https://app.example.com/bye?state=s%20t")
        let stay = try await web.get(URL(string: base)!)
        #expect(stay.statusCode == 200)
        #expect(EmulatedPage(html: html(stay)).message != nil)
        let refused = try await web.get(URL(string: base + "?post_logout_redirect_uri=javascript%3Aalert(1)")!)
        #expect(refused.statusCode == 200 && refused.header("Location") == nil)
    }

    // MARK: Users who need the browser

    @Test func aBrowserRequiredUserGetsRedirectNativelyAndSignsInOnThePage() async throws {
        let web = WebHarness()
        let harness = web.harness
        expectRedirect(
            try await harness.post(
                .initiate, ["username": "bo@contoso.com", "challenge_type": "oob password redirect"]))
        expectRedirect(
            try await harness.post(.resetStart, ["username": "BO@contoso.com", "challenge_type": "oob redirect"]))
        expectError(
            try await harness.postPairs(
                .signUpStart, [("username", "bo@contoso.com"), ("challenge_type", "oob password redirect")]),
            "user_already_exists", code: 1_003_037)
        // Marked after a flow started: the next challenge redirects too.
        let initiate = try await harness.post(
            .initiate, ["username": Fixture.ada, "challenge_type": "password redirect"])
        var ada = try #require(web.tenant.user(named: Fixture.ada))
        ada.requiresBrowser = true
        web.tenant.addUser(ada)
        expectRedirect(
            try await harness.post(
                .challenge,
                ["continuation_token": initiate["continuation_token"], "challenge_type": "password redirect"]))
        // The browser works.
        let callback = try await web.signIn(["login_hint": "bo@contoso.com"], password: "Browser-Only-1")
        #expect(try await web.redeem(try #require(callback["code"])).status == 200)
    }

    @Test func webEndpointsCanBeForcedToMisbehave() async throws {
        let web = WebHarness()
        web.tenant.force(.serviceUnavailable(retryAfter: 5), on: .keys)
        web.tenant.force(.error("temporarily_unavailable", status: 503), on: .token)
        #expect(try await web.get(web.tenant.url(for: .keys)).statusCode == 503)
        #expect(try await web.get(web.tenant.url(for: .keys)).statusCode == 200)
        let code = try #require(try await web.signIn()["code"])
        expectError(try await web.redeem(code), "temporarily_unavailable", status: 503)
        #expect(try await web.redeem(code).status == 200, "a forced answer spends nothing")
        #expect(EmulatorEndpoint.authorize.method == "GET" && EmulatorEndpoint.login.method == "POST")
        // GET on the form's path, POST on the authorization endpoint: no such endpoint.
        #expect(try await web.get(web.tenant.url(for: .login)).statusCode == 404)
    }

    // MARK: Snapshots

    @Test func snapshotsKeepTheBrowserFlagAndSignedRefreshTokens() async throws {
        let web = WebHarness()
        let code = try #require(try await web.signIn()["code"])
        let refreshToken = try await web.redeem(code)["refresh_token"]
        let restored = try web.harness.restoredTenant(from: web.tenant.snapshot())
        #expect(restored.tenant.user(named: "bo@contoso.com")?.requiresBrowser == true)
        let refreshed = try await restored.post(
            .token, ["grant_type": "refresh_token", "refresh_token": refreshToken, "scope": Fixture.scopes])
        #expect(refreshed.status == 200, "\(refreshed.text)")
        _ = try IDTokenSignature.verify(refreshed["id_token"], keys: try await web.keySet())
        // A format-1 snapshot, written before the flag existed, still loads.
        let old = Data(
            #"{"format":1,"users":[{"username":"old@contoso.com","password":"Old-Password-1"}],"refreshTokens":[{"token":"1.old","username":"old@contoso.com","expiresAt":1900000000}]}"#
                .utf8)
        try restored.tenant.restore(from: old)
        #expect(restored.tenant.user(named: "old@contoso.com")?.requiresBrowser == false)
        let oldRefresh = try await restored.post(
            .token, ["grant_type": "refresh_token", "refresh_token": "1.old", "scope": Fixture.scopes])
        _ = try claims(oldRefresh["id_token"])
    }

    // MARK: The emulated browser

    @Test func theEmulatedBrowserSignsInCancelsClosesAndReportsRefusals() async throws {
        let web = WebHarness()
        let redirect = try #require(URL(string: WebHarness.redirect))
        let url = web.authorizeURL()
        let callback = try await EmulatedBrowser(tenant: web.tenant, password: Fixture.adaPassword)
            .authorize(url: url, redirectURI: redirect)
        #expect(callback.absoluteString.hasPrefix(WebHarness.redirect + "?code=1."))
        let code = try await EmulatedBrowser(tenant: web.tenant, password: nil)
            .authorize(url: web.authorizeURL(["login_hint": Fixture.grace]), redirectURI: redirect)
        #expect(code.query?.contains("code=") == true)
        let mfa = try await EmulatedBrowser(tenant: web.tenant, username: Fixture.alan, password: Fixture.alanPassword)
            .authorize(url: url, redirectURI: redirect)
        #expect(mfa.query?.contains("code=") == true)
        let cancelled = try await EmulatedBrowser(tenant: web.tenant, action: .cancel)
            .authorize(url: url, redirectURI: redirect)
        #expect(cancelled.query?.contains("error=access_denied") == true)
        let closed = await #expect(throws: ExternalUserAgentError.self) {
            try await EmulatedBrowser(tenant: web.tenant, action: .close).authorize(url: url, redirectURI: redirect)
        }
        #expect(closed?.isCancelled == true)
        let wrong = EmulatedBrowser(tenant: web.tenant, password: "Secret-Wrong-9")
        let refusal = await #expect(throws: EmulatedBrowserError.self) {
            try await wrong.authorize(url: url, redirectURI: redirect)
        }
        #expect(refusal?.message == "Your password is incorrect.")
        #expect(refusal?.statusCode == 200)
        let page = await #expect(throws: EmulatedBrowserError.self) {
            try await wrong.authorize(url: web.authorizeURL(["client_id": "nope"]), redirectURI: redirect)
        }
        #expect(page?.statusCode == 400)
        #expect(page?.message.hasPrefix("AADSTS700016:") == true)
        var dumped = ""
        dump(wrong, to: &dumped)
        #expect(!dumped.contains("Secret-Wrong-9") && !"\(wrong)".contains("Secret-Wrong-9"))
        #expect("\(wrong)".contains("contoso"))
    }
}
