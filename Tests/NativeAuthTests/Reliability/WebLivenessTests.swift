import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A transport that holds every request to the chosen paths forever and ignores cancellation, as a
/// broken custom transport would; the others are answered by `provider` at once, through a
/// callback (the pipeline's fast path), so no answer waits for a busy concurrency pool and only a
/// held request meets the deadline. `release()` ends the held ones (with an error).
final class DeafPathTransport: CallbackTransport, Sendable {
    let provider: ScriptedOpenIDProvider
    private let deaf = Locked<Set<String>>([])
    private let held = Locked<[@Sendable (Result<HTTPResponse, any Error>) -> Void]>([])
    /// Fulfilled when the first held request arrives.
    let firstHeld = Latch<Void>()

    init(_ provider: ScriptedOpenIDProvider) { self.provider = provider }

    var timeout: TimeInterval { 30 }

    /// From now on, requests to `path` are held.
    func deafen(_ path: String) { deaf.withLock { _ = $0.insert(path) } }

    var heldCount: Int { held.current.count }

    func start(
        _ request: HTTPRequest, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> @Sendable () -> Void {
        if deaf.current.contains(request.url.path) {
            held.withLock { $0.append(completion) }
            firstHeld.fulfill(())
        } else {
            completion(Result { try provider.answer(request) ?? HTTPResponse(statusCode: 404) })
        }
        // Deliberately deaf to cancellation.
        return {}
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await withCheckedThrowingContinuation { continuation in
            _ = start(request) { continuation.resume(with: $0) }
        }
    }

    func release() {
        for completion in held.withLock({ held in
            defer { held = [] }; return held
        }) {
            completion(.failure(URLError(.resourceUnavailable)))
        }
    }
}

/// Web requests have the same deadline as native ones: a provider (or a transport) that never
/// answers ends a web sign-in, a web refresh and every caller who joined that refresh with a
/// typed timeout by ``WebAuthConfiguration/requestTimeout``.
@Suite("Reliability: web requests end by the request deadline", .hangLimit)
struct WebLivenessTests {
    let clock = TestClock()
    let store = InMemoryCredentialStore()
    /// The request deadline: no request of these tests does work of its own (the ID token is
    /// signed in the browser step, before the code exchange), so only a stuck one reaches it.
    let deadline: TimeInterval = 0.5
    let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())

    func client(_ transport: any HTTPTransport, timeout: TimeInterval?) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock
        configuration.requestTimeout = timeout
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: transport, credentialStore: store,
            configuration: configuration)
    }

    func expectTimedOut(
        _ error: WebSignInError, at endpoint: RequestEndpoint, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(error.isNetworkError || error.isDiscoveryFailed, "\(error)", sourceLocation: sourceLocation)
        #expect(error.endpoint == endpoint, sourceLocation: sourceLocation)
        #expect((error.underlyingError as? URLError)?.code == .timedOut, sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        ("/.well-known/openid-configuration", RequestEndpoint.discovery), ("/jwks", .jwks), ("/token", .token),
    ])
    func aWebSignInEndsByTheDeadlineWhereverTheProviderStopsAnswering(path: String, endpoint: RequestEndpoint)
        async throws
    {
        let deaf = DeafPathTransport(provider)
        defer { deaf.release() }
        deaf.deafen(path)
        let client = try client(deaf, timeout: deadline)
        do {
            _ = try await client.signIn(WebSignInParameters(), using: PresigningAgent(provider: provider))
            Issue.record("expected a timeout")
        } catch {
            expectTimedOut(error, at: endpoint)
        }
        #expect(deaf.heldCount == 1)
        #expect(try await client.currentAccount() == nil, "nothing is stored")
    }

    @Test func aWebRefreshAndACallerWhoJoinsItEndByTheDeadlineAndTheAccountStays() async throws {
        let deaf = DeafPathTransport(provider)
        defer { deaf.release() }
        let client = try client(deaf, timeout: deadline)
        let account = try await client.signIn(WebSignInParameters(), using: PresigningAgent(provider: provider))
        deaf.deafen("/token")
        let first = Task { try await account.getAccessToken(forceRefresh: true) }
        _ = await deaf.firstHeld.wait(for: "the stuck refresh")
        let second = Task { try await account.getAccessToken(forceRefresh: true) }
        for caller in [first, second] {
            do {
                _ = try await caller.value
                Issue.record("expected a timeout")
            } catch let error as RetrieveAccessTokenError {
                #expect(error.isNetworkError, "\(error)")
                let cause = try #require(error.details.underlyingError as? WebSignInError)
                expectTimedOut(cause, at: .token)
            }
        }
        #expect(deaf.heldCount == 1, "the second caller joined the first refresh")
        #expect(try await client.currentAccount() != nil, "a timeout never signs the user out")
    }
}

/// A browser that signs in at once and has the provider's ID token signed then, for the nonce it
/// saw, so the token endpoint answers with no work (signing takes long in a debug build, and
/// would count against the request deadline under test).
struct PresigningAgent: ExternalUserAgent {
    let provider: ScriptedOpenIDProvider

    func authorize(url: URL, redirectURI: URL) async throws -> URL {
        let callback = try await InstantAgent(provider: provider).authorize(url: url, redirectURI: redirectURI)
        let answer = ScriptedOpenIDProvider.answer(
            idToken: WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: provider.nonce.current)))
        provider.tokenAnswer.withLock { $0 = { _ in answer } }
        return callback
    }
}
