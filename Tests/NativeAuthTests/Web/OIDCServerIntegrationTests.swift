import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// Where the integration-test OpenID Connect server is: `.ci/run` starts one (Tests/OIDCServer/)
/// and exports its issuer as `NATIVEAUTH_OIDC_ISSUER`, with `NATIVEAUTH_OIDC_REQUIRED=1` so that a
/// missing server fails instead of skipping.
enum OIDCServerEnvironment {
    static let issuer: URL? = ProcessInfo.processInfo.environment["NATIVEAUTH_OIDC_ISSUER"].flatMap {
        $0.isEmpty ? nil : URL(string: $0)
    }
    static let isRequired = ProcessInfo.processInfo.environment["NATIVEAUTH_OIDC_REQUIRED"] == "1"
    static let skipReason: Comment =
        "NATIVEAUTH_OIDC_ISSUER is not set: start Tests/OIDCServer/start.sh and export the issuer it prints"
}

@Suite("OIDC server integration: the server is there when required")
struct OIDCServerPresenceTests {
    @Test func issuerIsSetWhenRequired() {
        if OIDCServerEnvironment.issuer == nil {
            // Without NATIVEAUTH_OIDC_REQUIRED=1 the live-server suite below is skipped, with its reason.
            #expect(
                !OIDCServerEnvironment.isRequired,
                "NATIVEAUTH_OIDC_REQUIRED=1 but NATIVEAUTH_OIDC_ISSUER is not set: the integration tests cannot run")
        }
    }
}

/// A transport that records every response of another one.
final class RecordingTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let recorded = Locked<[HTTPResponse]>([])

    init(_ inner: any HTTPTransport) { self.inner = inner }

    var responses: [HTTPResponse] { recorded.current }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await inner.send(request)
        recorded.withLock { $0.append(response) }
        return response
    }
}

/// Signs alice in on the test server without a browser: the server's login API gives a session
/// cookie, consent is granted through the same API, and the authorization endpoint then answers
/// with a 302 to the redirect URI, which `URLSessionTransport` returns without following.
struct OIDCTestLogin {
    static let clientId = "native-app"
    static let redirectURI = URL(string: "http://127.0.0.1:8765/callback") ?? URL(fileURLWithPath: "/")
    static let scopes = ["profile", "offline_access"]

    let issuer: URL
    let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)

    /// `{server}/api`, the issuer's parent (the issuer is `{server}/api/oidc`).
    var api: URL { issuer.deletingLastPathComponent() }

    func json(_ method: String, _ path: String, _ body: String, cookie: String? = nil) async throws -> HTTPResponse {
        var headers = ["Content-Type": "application/json"]
        if let cookie { headers["Cookie"] = cookie }
        return try await transport.send(
            HTTPRequest(
                method: method, url: api.appendingPathComponent(path), headers: headers, body: Data(body.utf8)))
    }

    /// The session cookie of alice's login.
    func sessionCookie() async throws -> String {
        let login = try await json("POST", "auth/", #"{"username":"alice","password":"alice-password"}"#)
        #expect(login.statusCode == 200)
        let setCookie = try #require(login.header("Set-Cookie"))
        let pair = try #require(setCookie.split(separator: ";").first)
        let consent = try await json(
            "PUT", "auth/grant/\(Self.clientId)", #"{"scope":"openid profile offline_access"}"#, cookie: String(pair))
        #expect(consent.statusCode == 200)
        return String(pair)
    }

    /// Runs an authorization request to its callback: the request and the callback URL.
    func authorize(metadata: ProviderMetadata) async throws -> (AuthorizationRequest, URL) {
        let cookie = try await sessionCookie()
        // `g_continue` tells the server's login page that the session is complete.
        let request = try AuthorizationRequest(
            metadata: metadata, clientId: Self.clientId, redirectURI: Self.redirectURI,
            parameters: WebSignInParameters(scopes: Self.scopes, extraParameters: ["g_continue": ""]))
        let response = try await transport.send(
            HTTPRequest(method: "GET", url: request.url, headers: ["Cookie": cookie]))
        #expect(response.statusCode == 302)
        let location = try #require(response.header("Location").flatMap(URL.init(string:)))
        return (request, location)
    }

    func metadata() async throws -> ProviderMetadata {
        try await ProviderDiscovery(issuer: issuer, transport: transport).metadata()
    }
}

/// Serialized: the test server keeps its state in SQLite and answers `server_error` now and then
/// when logins run at the same time.
@Suite(
    "Web sign-in against a real OpenID Connect server (glewlwyd)",
    .enabled(if: OIDCServerEnvironment.issuer != nil, OIDCServerEnvironment.skipReason),
    .serialized, .oidcServerExclusive, .hangLimit)
struct OIDCServerIntegrationTests {
    let login = OIDCTestLogin(issuer: OIDCServerEnvironment.issuer ?? URL(fileURLWithPath: "/"))

    @Test func discovery() async throws {
        let metadata = try await login.metadata()
        #expect(metadata.issuer == login.issuer.absoluteString)
        let base = login.issuer.absoluteString
        #expect(metadata.authorizationEndpoint?.absoluteString == base + "/auth")
        #expect(metadata.tokenEndpoint.absoluteString == base + "/token")
        #expect(metadata.jwksURI?.absoluteString == base + "/jwks")
        #expect(metadata.endSessionEndpoint != nil)
        #expect(metadata.revocationEndpoint != nil)
        #expect(metadata.registrationEndpoint != nil)
        #expect(metadata.deviceAuthorizationEndpoint != nil)
        #expect(metadata.userinfoEndpoint != nil)
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.idTokenSigningAlgValuesSupported?.contains("RS256") == true)
    }

    @Test func authorizationCodeWithPKCE() async throws {
        let metadata = try await login.metadata()
        let (request, location) = try await login.authorize(metadata: metadata)
        let callback = try request.callback(from: location)

        let recording = RecordingTransport(login.transport)
        let tokens = try await WebTokenClient(testTransport: recording).exchange(
            callback, for: request, tokenEndpoint: metadata.tokenEndpoint)
        #expect(tokens.tokenType == "Bearer")
        let raw = try #require(recording.responses.first)
        #expect(String(decoding: raw.body, as: UTF8.self).contains(#""token_type":"bearer""#), "lower case on the wire")
        #expect(!tokens.accessToken.isEmpty)
        #expect(tokens.refreshToken != nil)
        #expect((tokens.expiresIn ?? 0) > 0)
        let claims = try #require(tokens.idToken.flatMap { JWT.payload(of: $0.reveal) })
        #expect(claims["nonce"]?.stringValue == request.nonce.reveal)
        #expect(claims["iss"]?.stringValue == metadata.issuer)
        #expect(claims["aud"]?.stringValue == OIDCTestLogin.clientId || claims["aud"]?.arrayValue != nil)

        // A code is good once.
        do {
            _ = try await WebTokenClient(testTransport: login.transport).exchange(
                callback, for: request, tokenEndpoint: metadata.tokenEndpoint)
            Issue.record("a used code was accepted")
        } catch {
            #expect(error.isInvalidGrant)
        }
    }

    @Test func wrongVerifierIsRefused() async throws {
        let metadata = try await login.metadata()
        let (request, location) = try await login.authorize(metadata: metadata)
        let callback = try request.callback(from: location)
        let wrong = WebTokenRequest(
            tokenEndpoint: metadata.tokenEndpoint, clientId: OIDCTestLogin.clientId,
            grant: .authorizationCode(
                code: callback.code, redirectURI: request.redirectURI, verifier: PKCE().verifier),
            correlationId: request.correlationId)
        do {
            _ = try await WebTokenClient(testTransport: login.transport).send(wrong)
            Issue.record("a wrong verifier was accepted")
        } catch {
            #expect(error.isInvalidGrant)
            #expect(error.httpStatusCode == 403)
            #expect(error.serverError == "invalid_code")
            #expect(!error.description.contains(callback.code.reveal))
        }
    }

    @Test func refreshWithoutNewRefreshTokenKeepsTheOldOne() async throws {
        let metadata = try await login.metadata()
        let (request, location) = try await login.authorize(metadata: metadata)
        let client = WebTokenClient(testTransport: login.transport)
        let tokens = try await client.exchange(
            try request.callback(from: location), for: request, tokenEndpoint: metadata.tokenEndpoint)
        let refreshToken = try #require(tokens.refreshToken)

        let recording = RecordingTransport(login.transport)
        let refreshed = try await WebTokenClient(testTransport: recording).refresh(
            refreshToken, clientId: OIDCTestLogin.clientId, tokenEndpoint: metadata.tokenEndpoint)
        let raw = try #require(recording.responses.first)
        let members = try #require(try JSONValue.parse(raw.body).objectValue)
        #expect(members["refresh_token"] == nil, "the server rolls the refresh token without sending it")
        #expect(refreshed.refreshToken == refreshToken)
        #expect(refreshed.accessToken != tokens.accessToken)
        #expect(refreshed.tokenType == "Bearer")

        // The kept refresh token still works.
        let again = try await client.refresh(
            refreshToken, clientId: OIDCTestLogin.clientId, tokenEndpoint: metadata.tokenEndpoint)
        #expect(!again.accessToken.isEmpty)
    }

    @Test func unknownRefreshTokenIsRefused() async throws {
        let metadata = try await login.metadata()
        do {
            _ = try await WebTokenClient(testTransport: login.transport).refresh(
                Secret("not-a-refresh-token"), clientId: OIDCTestLogin.clientId, tokenEndpoint: metadata.tokenEndpoint)
            Issue.record("an unknown refresh token was accepted")
        } catch {
            #expect(error.isInvalidGrant)
            #expect(error.httpStatusCode == 400)
        }
    }

    @Test func stateOfAnotherRequestIsRefused() async throws {
        let metadata = try await login.metadata()
        let (_, location) = try await login.authorize(metadata: metadata)
        let other = try AuthorizationRequest(
            metadata: metadata, clientId: OIDCTestLogin.clientId, redirectURI: OIDCTestLogin.redirectURI,
            parameters: WebSignInParameters())
        #expect(throws: WebSignInError.self) { try other.callback(from: location) }
    }
}
