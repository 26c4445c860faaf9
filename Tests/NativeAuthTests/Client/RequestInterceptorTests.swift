import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// Records what it saw and sets one header.
struct RecordingInterceptor: RequestInterceptor {
    let seen = Locked<[InterceptedRequest]>([])
    let name: String
    let value: String

    init(setting name: String = "x-trace-id", to value: String = "trace-1") {
        self.name = name
        self.value = value
    }

    func intercept(_ request: inout InterceptedRequest) async throws {
        seen.withLock { $0.append(request) }
        try request.setHeader(name, value)
    }

    var endpoints: [String] { seen.current.map(\.endpoint.name) }
}

/// Appends its mark to `x-order`, after whatever the interceptors before it wrote.
struct OrderInterceptor: RequestInterceptor {
    let mark: String
    func intercept(_ request: inout InterceptedRequest) async throws {
        let before = request.header("X-Order").map { $0 + "," } ?? ""
        try request.setHeader("x-order", before + mark)
    }
}

/// Refuses requests to one endpoint with an error whose text holds something private.
struct RefusingInterceptor: RequestInterceptor {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "private-detail-42" }
    }
    let endpoint: String
    func intercept(_ request: inout InterceptedRequest) async throws {
        if request.endpoint.name == endpoint { throw Refusal() }
    }
}

/// Tries to set a header it may not set.
struct ForbiddenHeaderInterceptor: RequestInterceptor {
    let name: String
    let value: String
    func intercept(_ request: inout InterceptedRequest) async throws {
        try request.setHeader(name, value)
    }
}

/// The example of Docs/Transport.md › Request interceptors, as written there.
struct AttestationHeader: RequestInterceptor {
    let attestation: @Sendable () async throws -> String

    func intercept(_ request: inout InterceptedRequest) async throws {
        guard request.endpoint.name != "discovery" else { return }
        try request.setHeader("x-contoso-attestation", try await attestation())
    }
}

@Suite("Request interceptors", .hangLimit)
struct RequestInterceptorTests {
    let harness = EmulatorHarness()

    /// A client on the harness's tenant with `interceptors`.
    func client(_ interceptors: [any RequestInterceptor]) throws -> NativeAuthClient {
        var configuration = try NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority,
            capabilities: [.mfaRequired, .registrationRequired])
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.logger = harness.logger
        configuration.requestInterceptors = interceptors
        return NativeAuthClient(configuration: configuration, transport: harness.tenant, credentialStore: harness.store)
    }

    func signIn(_ client: NativeAuthClient) async throws(SignInStartError) -> SignInStartResult {
        try await client.signIn(SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
    }

    @Test func anAddedHeaderReachesTheServerOnEveryRequest() async throws {
        let recorder = RecordingInterceptor()
        let result = try await signIn(try client([recorder]))
        guard case .completed = result else { throw TestFailure("expected completed") }
        let requests = harness.tenant.receivedRequests
        #expect(!requests.isEmpty)
        #expect(requests.allSatisfy { $0.header("x-trace-id") == "trace-1" })
        #expect(recorder.endpoints == ["oauth2/v2.0/initiate", "oauth2/v2.0/challenge", "oauth2/v2.0/token"])
        let first = try #require(recorder.seen.current.first)
        #expect(first.method == "POST")
        #expect(first.url == requests[0].url)
        #expect(first.bodyLength == requests[0].body?.count)
        #expect(first.header("client-request-id") != nil)
    }

    @Test func interceptorsRunInOrderEachSeeingTheOneBefore() async throws {
        let result = try await signIn(
            try client([OrderInterceptor(mark: "a"), OrderInterceptor(mark: "b"), OrderInterceptor(mark: "c")]))
        guard case .completed = result else { throw TestFailure("expected completed") }
        #expect(harness.tenant.receivedRequests.map { $0.header("x-order") } == Array(repeating: "a,b,c", count: 3))
    }

    @Test func aRefusalIsATypedErrorNamingTheEndpointAndNothingIsSent() async throws {
        let recorder = RecordingInterceptor()
        let client = try client([recorder, RefusingInterceptor(endpoint: "oauth2/v2.0/token")])
        let error = try await #require(throws: SignInStartError.self) { try await signIn(client) }
        #expect(error.isNetworkError && error.isStateStillUsable)
        let refusal = try #require(error.details.underlyingError as? RequestInterceptorError)
        #expect(refusal.endpoint == RequestEndpoint("oauth2/v2.0/token"))
        #expect(refusal.interceptorIndex == 1)
        #expect(refusal.underlyingError is RefusingInterceptor.Refusal)
        #expect(!refusal.isInvalidHeader)
        #expect(error.details.endpoint?.name == "oauth2/v2.0/token")
        #expect(error.description.contains("endpoint=oauth2/v2.0/token"))
        #expect(error.description.contains("RefusingInterceptor"))
        #expect(!error.description.contains("private-detail-42"))
        #expect(!harness.tenant.receivedRequests.contains { $0.url.path.hasSuffix("/oauth2/v2.0/token") })
        #expect(recorder.endpoints.last == "oauth2/v2.0/token", "the first interceptor still saw the request")
    }

    @Test(arguments: [
        ("Authorization", "Bearer v-secret-1"), ("x-ms-client", "v-secret-2"), ("x-client-SKU", "v-secret-3"),
        ("Content-Type", "v-secret-4"), ("x-ok", "v-secret-5\r\nInjected: 1"),
    ])
    func aForbiddenHeaderIsRefused(name: String, value: String) async throws {
        let client = try client([ForbiddenHeaderInterceptor(name: name, value: value)])
        let error = try await #require(throws: SignInStartError.self) { try await signIn(client) }
        let refusal = try #require(error.details.underlyingError as? RequestInterceptorError)
        #expect(refusal.isInvalidHeader)
        #expect(refusal.endpoint.name == "oauth2/v2.0/initiate")
        #expect(refusal.interceptorIndex == 0)
        #expect(!error.description.contains(value))
        #expect(harness.tenant.receivedRequests.isEmpty)
    }

    @Test func setHeaderReplacesWhateverTheCaseAndLeavesTheRequestOnRefusal() throws {
        var request = InterceptedRequest(
            endpoint: .token,
            request: HTTPRequest(
                method: "POST", url: URL(string: "https://login.example.com/token")!,
                headers: ["X-Trace": "old", "Authorization": "Basic c2VjcmV0"], body: Data("code=abc".utf8)))
        try request.setHeader("x-trace", "new")
        #expect(request.headers["x-trace"] == "new" && request.headers["X-Trace"] == nil)
        #expect(request.header("authorization") == "<redacted>")
        #expect(throws: RequestInterceptorError.self) { try request.setHeader("x-app-name", "a") }
        #expect(request.request.headers.count == 2)
        #expect(!request.description.contains("c2VjcmV0") && !request.description.contains("code=abc"))
        #expect(request.bodyLength == 8)
    }

    @Test func aTransportFailureNamesTheEndpoint() async throws {
        let transport = ScriptedTransport()
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .failure(.networkConnectionLost))
        let client = NativeAuthClient(
            configuration: testConfiguration(), transport: transport, credentialStore: InMemoryCredentialStore())
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "ada@example.com", password: "pw"))
        }
        #expect(error.isNetworkError)
        #expect((error.details.underlyingError as? URLError)?.code == .networkConnectionLost)
        #expect(error.details.endpoint?.name == "oauth2/v2.0/challenge")
        #expect(error.description.contains("endpoint=oauth2/v2.0/challenge"))
    }

    @Test func noSecretReachesAnInterceptorOrADescription() async throws {
        let recorder = RecordingInterceptor()
        let client = try client([recorder])
        guard case .completed(let account) = try await signIn(client) else { throw TestFailure("expected completed") }
        let token = try await account.getAccessToken(forceRefresh: true)
        let texts = recorder.seen.current.flatMap { seen in
            [seen.description, String(describing: seen), "\(seen.headers)"]
        }
        let secrets = harness.secretsSeen(extra: [token.accessToken, account.idToken])
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "a secret in \(text)") }
        }
        #expect(recorder.endpoints.last == "oauth2/v2.0/token", "the refresh is intercepted too")
    }

    @Test func theBrowserSignInOfANativeClientIsInterceptedWithWebEndpointNames() async throws {
        let harness = EmulatorHarness(
            users: EmulatorHarness.defaultUsers + [
                EmulatedUser(username: "bo@example.com", password: EmulatorHarness.password, requiresBrowser: true)
            ])
        var configuration = try NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority)
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        let recorder = RecordingInterceptor()
        configuration.requestInterceptors = [recorder]
        let client = NativeAuthClient(
            configuration: configuration, transport: harness.tenant, credentialStore: harness.store)
        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "bo@example.com"))
        }
        let browser = EmulatedBrowser(tenant: harness.tenant, password: EmulatorHarness.password)
        _ = try await error.continueInBrowser(
            redirectURI: URL(string: "msauth.com.example.app://auth")!, using: browser)
        #expect(recorder.endpoints == ["oauth2/v2.0/initiate", "discovery", "token", "jwks"])
        let fromSDK = harness.tenant.receivedRequests.filter { $0.header("x-trace-id") != nil }
        #expect(fromSDK.count == 4)
    }

    @Test func aWebAuthClientRunsItsInterceptorsAndNamesTheRefusedEndpoint() async throws {
        let tenant = harness.tenant
        let recorder = RecordingInterceptor()
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = harness.clock
        configuration.requestInterceptors = [recorder, RefusingInterceptor(endpoint: "token")]
        let client = try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId,
            redirectURI: URL(string: "http://127.0.0.1:53124/callback")!, transport: tenant,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
        let browser = EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password)
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signIn(WebSignInParameters(loginHint: "ada@example.com"), using: browser)
        }
        #expect(error.isNetworkError)
        #expect(error.endpoint == .token)
        #expect((error.underlyingError as? RequestInterceptorError)?.interceptorIndex == 1)
        #expect(error.description.contains("endpoint=token"))
        #expect(!error.description.contains("private-detail-42"))
        #expect(recorder.endpoints == ["discovery", "token"])
        #expect(!tenant.receivedRequests.contains { $0.url.path.hasSuffix("/oauth2/v2.0/token") })
    }

    @Test func theDocumentedExampleAddsItsHeader() async throws {
        let result = try await signIn(try client([AttestationHeader(attestation: { "attested" })]))
        guard case .completed = result else { throw TestFailure("expected completed") }
        #expect(harness.tenant.receivedRequests.allSatisfy { $0.header("x-contoso-attestation") == "attested" })
    }

    @Test func requestsToTheAppsOwnAPIAreNotIntercepted() async throws {
        let recorder = RecordingInterceptor()
        guard case .completed(let account) = try await signIn(try client([recorder])) else {
            throw TestFailure("expected completed")
        }
        let seen = recorder.seen.current.count
        let response = try await account.send(HTTPRequest(method: "GET", url: harness.tenant.url(for: .resource)))
        #expect(response.statusCode == 200)
        #expect(recorder.seen.current.count == seen)
        #expect(harness.tenant.receivedRequests.last?.header("x-trace-id") == nil)
    }
}
