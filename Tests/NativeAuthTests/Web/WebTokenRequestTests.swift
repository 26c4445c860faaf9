import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Web token requests and answers")
struct WebTokenRequestTests {
    let endpoint = url("https://idp.example.com/token")
    let redirect = url("http://127.0.0.1:8765/callback")
    let correlation = UUID(uuidString: "11111111-2222-3333-4444-555555555555")
    var codeGrant: WebGrant {
        .authorizationCode(code: Secret("co de"), redirectURI: redirect, verifier: Secret("ver-1"))
    }

    func answer(_ status: Int, _ body: String, grant: WebGrant? = nil) throws(WebSignInError) -> WebTokenAnswer {
        try WebTokenAnswer(
            HTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8)),
            grant: grant ?? codeGrant, correlationId: correlation)
    }

    func failure(_ status: Int, _ body: String, grant: WebGrant? = nil) -> WebSignInError? {
        do {
            _ = try answer(status, body, grant: grant)
            Issue.record("accepted: \(status) \(body)")
            return nil
        } catch {
            #expect(error.correlationId == correlation)
            return error
        }
    }

    /// OAuth 2.0 for First-Party Applications §6.1: the token answer may carry an `auth_session`,
    /// kept as a secret; an empty or `null` one is none.
    @Test func theAuthSessionOfATokenAnswerIsRead() throws {
        let base = #"{"access_token":"at","token_type":"Bearer","id_token":"a.b.c""#
        let read = try answer(200, base + #","auth_session":"uY29tL2F1dGhlbnRpY"}"#)
        #expect(read.authSession == Secret("uY29tL2F1dGhlbnRpY"))
        #expect(!"\(read)".contains("uY29tL2F1dGhlbnRpY"))
        #expect(read.keepingRefreshToken(Secret("rt")).authSession == read.authSession)
        #expect(TokenAnswer(read).authSession == read.authSession)
        for other in [#","auth_session":""}"#, #","auth_session":null}"#, "}"] {
            #expect(try answer(200, base + other).authSession == nil)
        }
    }

    @Test func authorizationCodeForm() {
        let request = WebTokenRequest(
            tokenEndpoint: endpoint, clientId: "client-1", grant: codeGrant, correlationId: correlation)
        let http = request.httpRequest
        #expect(http.method == "POST")
        #expect(http.url == endpoint)
        #expect(http.header("content-type") == "application/x-www-form-urlencoded")
        #expect(http.header("accept") == "application/json")
        #expect(http.header("client-request-id") == "11111111-2222-3333-4444-555555555555")
        #expect(
            String(decoding: http.body ?? Data(), as: UTF8.self)
                == "grant_type=authorization_code&code=co%20de&redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback&client_id=client-1&code_verifier=ver-1"
        )
        #expect(request.form.names == ["grant_type", "code", "redirect_uri", "client_id", "code_verifier"])
    }

    @Test func refreshForm() {
        let plain = WebTokenRequest(
            tokenEndpoint: endpoint, clientId: "client-1", grant: .refreshToken(Secret("rt"), scopes: nil),
            correlationId: nil)
        #expect(
            String(decoding: plain.httpRequest.body ?? Data(), as: UTF8.self)
                == "grant_type=refresh_token&refresh_token=rt&client_id=client-1")
        #expect(plain.httpRequest.header("client-request-id") == nil)
        let narrowed = WebTokenRequest(
            tokenEndpoint: endpoint, clientId: "client-1",
            grant: .refreshToken(Secret("rt"), scopes: ["openid", "api.read"]),
            correlationId: nil)
        #expect(
            String(decoding: narrowed.httpRequest.body ?? Data(), as: UTF8.self)
                == "grant_type=refresh_token&refresh_token=rt&client_id=client-1&scope=openid%20api.read")
    }

    @Test func successAnswer() throws {
        let parsed = try answer(
            200,
            #"{"access_token":"at","token_type":"bearer","expires_in":"3600","refresh_token":"rt","id_token":"a.b.c","scope":"openid profile","iat":1}"#
        )
        #expect(parsed.accessToken.reveal == "at")
        #expect(parsed.tokenType == "Bearer")
        #expect(parsed.expiresIn == 3600)
        #expect(parsed.refreshToken?.reveal == "rt")
        #expect(parsed.idToken?.reveal == "a.b.c")
        #expect(parsed.scopes == ["openid", "profile"])
        for type in ["Bearer", "BEARER", "bEaReR"] {
            #expect(throws: Never.self) {
                try answer(200, #"{"access_token":"at","token_type":"\#(type)","id_token":"x"}"#)
            }
        }
    }

    @Test func refreshAnswerWithoutRefreshTokenKeepsTheOldOne() throws {
        let grant = WebGrant.refreshToken(Secret("old"), scopes: nil)
        let parsed = try answer(200, #"{"access_token":"at2","token_type":"bearer","expires_in":60}"#, grant: grant)
        #expect(parsed.refreshToken == nil)
        #expect(parsed.idToken == nil, "a refresh answer may have no ID token")
        #expect(parsed.scopes == nil)
        #expect(parsed.keepingRefreshToken(Secret("old")).refreshToken?.reveal == "old")
        let rotated = try answer(
            200, #"{"access_token":"at2","token_type":"bearer","refresh_token":"new"}"#, grant: grant)
        #expect(rotated.keepingRefreshToken(Secret("old")).refreshToken?.reveal == "new")
    }

    @Test func refreshThroughTheClientKeepsTheOldToken() async throws {
        let transport = ScriptedTransport([("token", .json(200, #"{"access_token":"at2","token_type":"bearer"}"#))])
        let client = WebTokenClient(testTransport: transport)
        let refreshed = try await client.refresh(Secret("old"), clientId: "c", tokenEndpoint: endpoint)
        #expect(refreshed.refreshToken?.reveal == "old")
        #expect(refreshed.accessToken.reveal == "at2")
    }

    @Test func unusableSuccessAnswers() {
        let cases = [
            "", "not json", "[]", #"{"token_type":"bearer","id_token":"x"}"#,
            #"{"access_token":"","token_type":"bearer","id_token":"x"}"#, #"{"access_token":"at","id_token":"x"}"#,
            #"{"access_token":"at","token_type":"DPoP","id_token":"x"}"#,
            #"{"access_token":"at","token_type":"mac","id_token":"x"}"#,
        ]
        for body in cases {
            #expect(failure(200, body)?.isUnexpectedResponse == true, "\(body)")
        }
        let noIDToken = failure(200, #"{"access_token":"at","token_type":"Bearer"}"#)
        #expect(noIDToken?.failedIDTokenCheck == .missing)
        #expect(noIDToken?.isInvalidIDToken == true)
    }

    @Test func errorAnswers() {
        let invalidGrant = failure(
            400, #"{"error":"invalid_grant","error_description":"AADSTS70008: expired","error_uri":"https://e"}"#)
        #expect(invalidGrant?.isInvalidGrant == true)
        #expect(invalidGrant?.isServerError == true)
        #expect(invalidGrant?.serverError == "invalid_grant")
        #expect(invalidGrant?.serverErrorDescription == "AADSTS70008: expired")
        #expect(invalidGrant?.serverErrorURI == "https://e")
        #expect(invalidGrant?.httpStatusCode == 400)

        let wrongVerifier = failure(403, #"{"error":"invalid_code"}"#)
        #expect(wrongVerifier?.isInvalidGrant == true)
        #expect(wrongVerifier?.httpStatusCode == 403)

        let emptyRefresh = failure(400, "", grant: .refreshToken(Secret("bad"), scopes: nil))
        #expect(emptyRefresh?.isInvalidGrant == true)
        #expect(emptyRefresh?.serverError == nil)

        #expect(failure(401, #"{"error":"invalid_client"}"#)?.isConfigurationError == true)
        #expect(failure(400, #"{"error":"unsupported_grant_type"}"#)?.isConfigurationError == true)
        let unavailable = failure(503, "<html>down</html>")
        #expect(unavailable?.isServerError == true)
        #expect(unavailable?.httpStatusCode == 503)
        #expect(failure(500, #"{"error":"server_error"}"#)?.isServerError == true)
        #expect(failure(429, "")?.isServerError == true)
        #expect(failure(302, "")?.isUnexpectedResponse == true)
        #expect(failure(400, "<html/>")?.isUnexpectedResponse == true)
        #expect(failure(403, #"{"message":"no"}"#)?.isUnexpectedResponse == true)
    }

    @Test func transportFailuresAreTyped() async {
        let client = WebTokenClient(
            transport: ScriptedTransport([("token", .failure(.timedOut)), ("token", .failure(.cancelled))]))
        let request = WebTokenRequest(
            tokenEndpoint: endpoint, clientId: "c", grant: codeGrant, correlationId: correlation)
        do {
            _ = try await client.send(request)
            Issue.record("expected a failure")
        } catch {
            #expect(error.isNetworkError)
            #expect(error.correlationId == correlation)
        }
        do {
            _ = try await client.send(request)
            Issue.record("expected a failure")
        } catch {
            #expect(error.isCancelled)
        }
        let insecure = WebTokenRequest(
            tokenEndpoint: url("http://idp.example.com/token"), clientId: "c", grant: codeGrant, correlationId: nil)
        await #expect(throws: WebSignInError.self) { try await client.send(insecure) }
    }
}

@Suite("Web sign-in logging holds no secret")
struct WebLoggingPrivacyTests {
    @Test func discoveryAndExchangeLogNoSecret() async throws {
        let issuer = "https://idp.example.com"
        let logger = InMemoryLogger(minimumLevel: .trace)
        let log = Log(logger: logger)
        let transport = ScriptedTransport([
            (".well-known/openid-configuration", .json(200, discoveryDocument(issuer: issuer))),
            (
                "token",
                .json(
                    200,
                    #"{"access_token":"access-secret","token_type":"bearer","refresh_token":"refresh-secret","id_token":"id.token.secret"}"#
                )
            ),
            ("token", .json(400, #"{"error":"invalid_grant"}"#)),
        ])
        let metadata = try await ProviderDiscovery(issuer: url(issuer), transport: transport, log: log).metadata()
        let random = SeededWebRandom(seed: 4)
        let request = try AuthorizationRequest(
            metadata: metadata, clientId: "c", redirectURI: url("http://127.0.0.1:1/cb"),
            parameters: WebSignInParameters(), random: random)
        let callback = try request.callback(
            from: url("http://127.0.0.1:1/cb?code=code-secret&state=\(FormBody.escape(request.state.reveal))"))
        let client = WebTokenClient(testTransport: transport, log: log)
        let tokens = try await client.exchange(callback, for: request, tokenEndpoint: metadata.tokenEndpoint)
        await #expect(throws: WebSignInError.self) {
            try await client.refresh(
                tokens.refreshToken ?? Secret("x"), clientId: "c", tokenEndpoint: metadata.tokenEndpoint)
        }
        let text = logger.records.map(\.description).joined(separator: "\n")
        #expect(logger.records.count >= 4)
        for secret in [
            "code-secret", "access-secret", "refresh-secret", "id.token.secret", request.state.reveal,
            request.nonce.reveal, request.pkce.verifier.reveal,
        ] {
            #expect(!text.contains(secret), "\(secret) was logged")
        }
    }
}

extension WebTokenClient {
    /// A token client on a pipeline of its own, with the tests' request deadline: its server answers
    /// in process or on loopback, so only a hang may reach it (the default, 35 s for a transport
    /// that is not URLSession's, was reached by a step waiting for a thread on a loaded machine).
    convenience init(
        testTransport transport: any HTTPTransport, log: Log = Log(logger: nil),
        authentication: WebClientAuthentication = .none
    ) {
        self.init(
            pipeline: RequestPipeline(
                transport: transport, log: log, retry: .never, requestTimeout: TestBounds.requestDeadline),
            authentication: authentication)
    }
}
