import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A transport that holds every request to the chosen paths forever and ignores cancellation, as a
/// broken custom transport would; the rest go to `inner`. `release()` lets the held ones end (with
/// an error), so nothing is left suspended after a test.
final class DeafPathTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let deaf = Locked<Set<String>>([])
    private let held = Locked<[CheckedContinuation<Void, Never>]>([])
    /// Fulfilled when the first held request arrives.
    let firstHeld = Latch<Void>()

    init(_ inner: any HTTPTransport) { self.inner = inner }

    /// From now on, requests to `path` are held.
    func deafen(_ path: String) { deaf.withLock { _ = $0.insert(path) } }

    var heldCount: Int { held.current.count }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard deaf.current.contains(request.url.path) else { return try await inner.send(request) }
        // Deliberately deaf to cancellation.
        await withCheckedContinuation { continuation in
            held.withLock { $0.append(continuation) }
            firstHeld.fulfill(())
        }
        throw URLError(.resourceUnavailable)
    }

    func release() {
        for continuation in held.withLock({ held in
            defer { held = [] }; return held
        }) {
            continuation.resume()
        }
    }
}

/// Web requests have the same deadline as native ones: a provider (or a transport) that never
/// answers ends a web sign-in, a web refresh and every caller who joined that refresh with a
/// typed timeout by ``WebAuthConfiguration/requestTimeout``.
@Suite("Reliability: web requests end by the request deadline", .timeLimit(.minutes(1)))
struct WebLivenessTests {
    let clock = TestClock()
    let store = InMemoryCredentialStore()
    /// Long enough for the scripted provider to sign its ID token in a debug build, short enough
    /// for a test.
    let deadline: TimeInterval = 2
    let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())

    func client(_ transport: any HTTPTransport, timeout: TimeInterval?) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
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
            _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
            Issue.record("expected a timeout")
        } catch {
            if endpoint == .jwks {
                // The keys are part of the ID token check: their timeout is reported there.
                #expect(error.isInvalidIDToken)
                #expect(error.endpoint == .jwks)
                #expect((error.underlyingError as? URLError)?.code == .timedOut)
            } else {
                expectTimedOut(error, at: endpoint)
            }
        }
        #expect(deaf.heldCount == 1)
        #expect(try await client.currentAccount() == nil, "nothing is stored")
    }

    @Test func aWebRefreshAndACallerWhoJoinsItEndByTheDeadlineAndTheAccountStays() async throws {
        let deaf = DeafPathTransport(provider)
        defer { deaf.release() }
        let client = try client(deaf, timeout: deadline)
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
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
