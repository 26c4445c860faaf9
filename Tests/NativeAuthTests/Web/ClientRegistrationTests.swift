import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

extension ScriptedOpenIDProvider {
    /// A provider whose discovery may name a registration endpoint, and whose registration endpoint
    /// answers with `answer`.
    static func registration(
        hasEndpoint: Bool = true, answer: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) -> ScriptedOpenIDProvider {
        let provider = ScriptedOpenIDProvider(endpoints: .standard(registration: hasEndpoint))
        provider.registrationAnswer.withLock { $0 = answer }
        return provider
    }

    var registrations: [HTTPRequest] { requests(to: "/register") }

    /// An answer that echoes the request's metadata, as RFC 7591 §3.2.1 describes, plus `extra` members.
    static func echo(_ status: Int, extra: String) -> @Sendable (HTTPRequest) -> HTTPResponse {
        { request in
            let sent = String(decoding: request.body ?? Data(), as: UTF8.self)
            return json(status, String(sent.dropLast()) + "," + extra + "}")
        }
    }
}

@Suite("Dynamic client registration (RFC 7591)", .hangLimit)
struct ClientRegistrationTests {
    static let issuer = URL(string: ScriptedOpenIDProvider.issuer)!
    static let redirect = URL(string: "http://127.0.0.1:8765/callback")!

    static func request() -> ClientRegistrationRequest {
        var request = ClientRegistrationRequest(
            redirectURIs: [redirect, URL(string: "com.example.app:/callback")!], clientName: "Example CLI",
            scopes: ["openid", "offline_access"])
        request.postLogoutRedirectURIs = [URL(string: "http://127.0.0.1:8765/signed-out")!]
        request.additionalMetadata = ["software_id": .string("example-cli")]
        return request
    }

    @Test(arguments: [200, 201])
    func registersAPublicNativeClient(status: Int) async throws {
        let provider = ScriptedOpenIDProvider.registration(
            answer: ScriptedOpenIDProvider.echo(
                status,
                extra: #""client_id":"new-client","registration_access_token":"reg-token-1","#
                    + #""registration_client_uri":"https://login.example.com/register/new-client","#
                    + #""client_id_issued_at":1800000000,"client_secret_expires_at":0"#))
        let registration = try await WebAuthClient.register(
            Self.request(), issuer: Self.issuer, transport: provider)

        let sent = try #require(provider.registrations.first)
        #expect(provider.registrations.count == 1)
        #expect(sent.method == "POST")
        #expect(sent.header("Content-Type") == "application/json")
        #expect(sent.header("Authorization") == nil)
        let document = try #require(try JSONValue.parse(sent.body ?? Data()).objectValue)
        #expect(
            document["redirect_uris"]
                == .array([.string("http://127.0.0.1:8765/callback"), .string("com.example.app:/callback")]))
        #expect(document["grant_types"] == .array([.string("authorization_code"), .string("refresh_token")]))
        #expect(document["response_types"] == .array([.string("code")]))
        #expect(document["token_endpoint_auth_method"] == .string("none"))
        #expect(document["application_type"] == .string("native"))
        #expect(document["client_name"] == .string("Example CLI"))
        #expect(document["scope"] == .string("openid offline_access"))
        #expect(document["post_logout_redirect_uris"] == .array([.string("http://127.0.0.1:8765/signed-out")]))
        #expect(document["software_id"] == .string("example-cli"))

        #expect(registration.clientId == "new-client")
        #expect(registration.clientSecret == nil)
        #expect(registration.registrationAccessToken == "reg-token-1")
        #expect(registration.registrationClientURI?.absoluteString == "https://login.example.com/register/new-client")
        #expect(registration.clientIdIssuedAt == Date(timeIntervalSince1970: 1_800_000_000))
        #expect(registration.clientSecretExpiresAt == nil)
        #expect(registration.tokenEndpointAuthMethod == "none")
        #expect(registration.clientAuthentication == .none)
        #expect(registration.metadata["client_name"] == .string("Example CLI"))
        #expect(registration.metadata["registration_access_token"] == nil)
    }

    @Test(arguments: [
        ("client_secret_basic", WebClientAuthentication.clientSecretBasic("issued-secret")),
        ("client_secret_post", WebClientAuthentication.clientSecretPost("issued-secret")),
    ])
    func aConfidentialClientGetsItsSecret(method: String, authentication: WebClientAuthentication) async throws {
        let provider = ScriptedOpenIDProvider.registration { _ in
            ScriptedOpenIDProvider.json(
                201,
                #"{"client_id":"conf","client_secret":"issued-secret","client_secret_expires_at":1900000000,"#
                    + #""token_endpoint_auth_method":"\#(method)"}"#)
        }
        var request = Self.request()
        request.tokenEndpointAuthMethod = method
        let registration = try await WebAuthClient.register(
            request, issuer: Self.issuer, transport: provider, initialAccessToken: "initial-token")
        #expect(provider.registrations.first?.header("Authorization") == "Bearer initial-token")
        #expect(registration.clientSecret == "issued-secret")
        #expect(registration.clientSecretExpiresAt == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(registration.clientAuthentication == authentication)
        #expect(registration.metadata["client_secret"] == nil)
        #expect(registration.metadata["client_secret_expires_at"] != nil)
    }

    /// A client that authenticates with `private_key_jwt` registers its public key: the method,
    /// the key as a JWK Set and its algorithm (RFC 7591 §2; OpenID Connect Dynamic Client
    /// Registration §2); the registration then gives the method with that key.
    @Test func registersAnAssertionKeyForPrivateKeyJWT() async throws {
        let provider = ScriptedOpenIDProvider.registration(
            answer: ScriptedOpenIDProvider.echo(201, extra: #""client_id":"keyed-client""#))
        let key = try RSAClientAssertionKey(
            pkcs1DER: Data(WebTestSigner.bytes(PrivateKeyFixtures.opensslPKCS1DER)), keyID: "installation-1")
        var request = Self.request()
        request.registerAssertionKey(publicJWK: key.publicJWK)
        let registration = try await WebAuthClient.register(request, issuer: Self.issuer, transport: provider)
        let sent = try #require(provider.registrations.first)
        let document = try #require(try JSONValue.parse(sent.body ?? Data()).objectValue)
        #expect(document["token_endpoint_auth_method"] == .string("private_key_jwt"))
        #expect(document["token_endpoint_auth_signing_alg"] == .string("PS256"))
        let keys = try #require(document["jwks"]?["keys"]?.arrayValue)
        #expect(keys.count == 1)
        #expect(keys.first?["kid"] == .string("installation-1"))
        #expect(keys.first?["kty"] == .string("RSA"))
        #expect(keys.first?["n"] == .string(key.publicJWK["n"] ?? ""))
        #expect(keys.first?["d"] == nil, "only the public key is sent")
        #expect(registration.clientId == "keyed-client")
        #expect(registration.tokenEndpointAuthMethod == "private_key_jwt")
        guard case .privateKeyJWT(let method) = registration.clientAuthentication(assertionKey: key) else {
            Issue.record("expected private_key_jwt")
            return
        }
        #expect(method.key.keyID == "installation-1")
        #expect(method.audience == .issuer)
    }

    @Test func aSecretWithoutAMethodIsForHTTPBasic() async throws {
        let provider = ScriptedOpenIDProvider.registration { _ in
            ScriptedOpenIDProvider.json(201, #"{"client_id":"c","client_secret":"s"}"#)
        }
        let registration = try await WebAuthClient.register(Self.request(), issuer: Self.issuer, transport: provider)
        #expect(registration.clientAuthentication == .clientSecretBasic("s"))
        #expect(registration.clientSecretExpiresAt == nil)
    }

    static let refusals: [(String, HTTPResponse, @Sendable (WebSignInError) -> Bool)] = [
        (
            "invalid_redirect_uri",
            ScriptedOpenIDProvider.json(
                400, #"{"error":"invalid_redirect_uri","error_description":"a redirect_uri must be https"}"#),
            {
                $0.isInvalidRedirectURI && $0.isConfigurationError && !$0.isInvalidClientMetadata
                    && $0.serverErrorDescription == "a redirect_uri must be https" && $0.httpStatusCode == 400
            }
        ),
        (
            "invalid_client_metadata",
            ScriptedOpenIDProvider.json(
                400, #"{"error":"invalid_client_metadata","error_description":"bad grant_types"}"#),
            {
                $0.isInvalidClientMetadata && $0.isConfigurationError && $0.serverError == "invalid_client_metadata"
                    && $0.debugDescription.contains("bad grant_types")
            }
        ),
        ("bare 401", HTTPResponse(statusCode: 401), { $0.isConfigurationError && $0.httpStatusCode == 401 }),
        ("503", HTTPResponse(statusCode: 503), { $0.isServerError && $0.httpStatusCode == 503 }),
        ("redirect", HTTPResponse(statusCode: 302, headers: ["Location": "/"]), { $0.isUnexpectedResponse }),
        ("202", ScriptedOpenIDProvider.json(202, #"{"client_id":"c"}"#), { $0.isUnexpectedResponse }),
        ("400 without error", ScriptedOpenIDProvider.json(400, "{}"), { $0.isUnexpectedResponse }),
    ]

    @Test(arguments: refusals)
    func errorAnswersAreTyped(what: String, answer: HTTPResponse, check: @Sendable (WebSignInError) -> Bool)
        async throws
    {
        let provider = ScriptedOpenIDProvider.registration { _ in answer }
        do {
            _ = try await WebAuthClient.register(Self.request(), issuer: Self.issuer, transport: provider)
            Issue.record("\(what): expected a refusal")
        } catch {
            #expect(check(error), "\(what): \(error.debugDescription)")
            #expect(error.correlationId != nil)
        }
    }

    static let malformed: [(String, String)] = [
        ("empty", ""),
        ("not JSON", "client_id=abc"),
        ("an array", #"["client_id"]"#),
        ("no client_id", #"{"client_secret":"s"}"#),
        ("empty client_id", #"{"client_id":""}"#),
        ("numeric client_id", #"{"client_id":42}"#),
        ("numeric secret", #"{"client_id":"c","client_secret":7}"#),
        ("text date", #"{"client_id":"c","client_id_issued_at":"yesterday"}"#),
        ("negative date", #"{"client_id":"c","client_id_issued_at":-5}"#),
        ("huge date", #"{"client_id":"c","client_id_issued_at":1e300}"#),
        ("relative URI", #"{"client_id":"c","registration_client_uri":"/register/c"}"#),
        ("array token", #"{"client_id":"c","registration_access_token":["t"]}"#),
        ("truncated", #"{"client_id":"c""#),
    ]

    @Test(arguments: malformed)
    func malformedAnswersAreUnexpected(what: String, body: String) async throws {
        let provider = ScriptedOpenIDProvider.registration { _ in ScriptedOpenIDProvider.json(201, body) }
        do {
            _ = try await WebAuthClient.register(Self.request(), issuer: Self.issuer, transport: provider)
            Issue.record("\(what): expected a refusal")
        } catch {
            #expect(error.isUnexpectedResponse, "\(what): \(error)")
            #expect(error.httpStatusCode == 201)
        }
    }

    /// Its own test, not an argument above: swift-testing prints every argument of a test case.
    @Test func anAnswerOverOneMebibyteIsUnexpected() async throws {
        let body = #"{"client_id":"c","pad":""# + String(repeating: "x", count: 1 << 20) + #""}"#
        let provider = ScriptedOpenIDProvider.registration { _ in ScriptedOpenIDProvider.json(201, body) }
        do {
            _ = try await WebAuthClient.register(Self.request(), issuer: Self.issuer, transport: provider)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isUnexpectedResponse)
            #expect(error.description.contains("1 MiB"))
        }
    }

    @Test func aProviderWithoutARegistrationEndpointIsNotSupported() async throws {
        let provider = ScriptedOpenIDProvider.registration(hasEndpoint: false) { _ in
            ScriptedOpenIDProvider.json(201, #"{"client_id":"c"}"#)
        }
        do {
            _ = try await WebAuthClient.register(Self.request(), issuer: Self.issuer, transport: provider)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.isUnsupported)
            #expect(!error.isServerError && !error.isNetworkError)
            #expect(error.description.contains("registration_endpoint"))
        }
        #expect(provider.registrations.isEmpty)
    }

    static let invalidRequests: [(String, @Sendable (inout ClientRegistrationRequest) -> Void)] = [
        ("no redirect URI", { $0.redirectURIs = [] }),
        ("relative redirect URI", { $0.redirectURIs = [URL(string: "/callback")!] }),
        ("fragment", { $0.postLogoutRedirectURIs = [URL(string: "https://app.example.com/out#x")!] }),
        ("bad scope", { $0.scopes = ["openid", "two words"] }),
        ("empty method", { $0.tokenEndpointAuthMethod = "" }),
        ("reserved metadata", { $0.additionalMetadata = ["grant_types": .array([])] }),
    ]

    @Test(arguments: invalidRequests)
    func anInvalidRequestSendsNothing(what: String, change: @Sendable (inout ClientRegistrationRequest) -> Void)
        async throws
    {
        let provider = ScriptedOpenIDProvider.registration { _ in
            ScriptedOpenIDProvider.json(201, #"{"client_id":"c"}"#)
        }
        var request = Self.request()
        change(&request)
        do {
            _ = try await WebAuthClient.register(request, issuer: Self.issuer, transport: provider)
            Issue.record("\(what): expected a refusal")
        } catch {
            #expect(error.isInvalidParameters, "\(what): \(error)")
        }
        #expect(provider.requests.isEmpty, "\(what)")
    }

    @Test func anExplicitEndpointMustBeSecure() async throws {
        let provider = ScriptedOpenIDProvider.registration { _ in
            ScriptedOpenIDProvider.json(201, #"{"client_id":"c"}"#)
        }
        await #expect(throws: WebSignInError.self) {
            _ = try await WebAuthClient.register(
                Self.request(), registrationEndpoint: URL(string: "http://login.example.com/register")!,
                transport: provider)
        }
        #expect(provider.requests.isEmpty)
        let registration = try await WebAuthClient.register(
            Self.request(), registrationEndpoint: URL(string: "https://login.example.com/register")!,
            transport: provider)
        #expect(registration.clientId == "c")
        #expect(provider.requests.count == 1, "no discovery")
    }

    @Test func noConnectionIsANetworkError() async throws {
        let provider = ScriptedOpenIDProvider.registration { _ in throw URLError(.timedOut) }
        do {
            _ = try await WebAuthClient.register(Self.request(), issuer: Self.issuer, transport: provider)
            Issue.record("expected a failure")
        } catch {
            #expect(error.isNetworkError)
            #expect(error.underlyingError is URLError)
        }
    }

    @Test func noSecretIsShownOrLogged() async throws {
        let logger = InMemoryLogger(minimumLevel: .trace)
        let provider = ScriptedOpenIDProvider.registration { _ in
            ScriptedOpenIDProvider.json(
                201, #"{"client_id":"c","client_secret":"issued-secret-9","registration_access_token":"reg-token-9"}"#)
        }
        let registration = try await WebAuthClient.register(
            Self.request(), issuer: Self.issuer, transport: provider, initialAccessToken: "initial-token-9",
            logger: logger)
        provider.registrationAnswer.withLock {
            $0 = { _ in ScriptedOpenIDProvider.json(400, #"{"error":"invalid_client_metadata"}"#) }
        }
        _ = try? await WebAuthClient.register(
            Self.request(), issuer: Self.issuer, transport: provider, initialAccessToken: "initial-token-9",
            logger: logger)

        var dumped = ""
        dump(registration, to: &dumped)
        var texts = [registration.description, registration.debugDescription, "\(registration)", dumped]
        texts += logger.records.map(\.description)
        texts += provider.requests.flatMap { request in
            var requestDump = ""
            dump(request, to: &requestDump)
            return [request.description, requestDump]
        }
        #expect(logger.records.contains { $0.message == "client registered" })
        #expect(registration.description.contains("clientSecret: <redacted>"))
        for text in texts {
            for secret in ["issued-secret-9", "reg-token-9", "initial-token-9"] {
                #expect(!text.contains(secret), "\(text.prefix(300))")
            }
        }
    }
}
