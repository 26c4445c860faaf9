import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

/// A scripted authentication session: records what it was asked to show, and lets the test end
/// each session as the system would.
final class FakeSessionDriver: WebAuthenticationSessionDriver {
    struct Started: Sendable {
        let request: WebAuthenticationSessionRequest
        let complete: @Sendable (Result<URL, WebAuthenticationSessionFailure>) -> Void
        let handle: FakeSessionHandle
    }

    let supportsHTTPSCallbacks: Bool
    let refusesToStart: Bool
    let started: AsyncStream<Started>
    private let startedContinuation: AsyncStream<Started>.Continuation
    private let count = Locked(0)

    init(supportsHTTPSCallbacks: Bool = true, refusesToStart: Bool = false) {
        self.supportsHTTPSCallbacks = supportsHTTPSCallbacks
        self.refusesToStart = refusesToStart
        (started, startedContinuation) = AsyncStream.makeStream(of: Started.self)
    }

    var startCount: Int { count.current }

    @MainActor
    func start(
        _ request: WebAuthenticationSessionRequest,
        completion: @escaping @Sendable (Result<URL, WebAuthenticationSessionFailure>) -> Void
    ) -> (any WebAuthenticationSessionHandle)? {
        count.withLock { $0 += 1 }
        guard !refusesToStart else { return nil }
        let handle = FakeSessionHandle()
        startedContinuation.yield(Started(request: request, complete: completion, handle: handle))
        return handle
    }

    /// The next session started.
    func nextStarted() async throws -> Started {
        for await started in started { return started }
        throw ParserTestFailure("the driver stopped")
    }
}

final class FakeSessionHandle: WebAuthenticationSessionHandle {
    private let cancels = Locked(0)
    private let cancelledStream: AsyncStream<Void>
    private let cancelledContinuation: AsyncStream<Void>.Continuation

    init() {
        (cancelledStream, cancelledContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    var cancelCount: Int { cancels.current }

    @MainActor func cancel() {
        cancels.withLock { $0 += 1 }
        cancelledContinuation.yield()
    }

    /// Returns once the session was cancelled.
    func waitUntilCancelled() async {
        for await _ in cancelledStream { return }
    }
}

struct SessionTestError: Error {}

@Suite("Authentication session agent core", .hangLimit)
struct WebAuthenticationSessionCoreTests {
    private let authorizationURL =
        URL(string: "https://login.example.com/authorize?client_id=c") ?? URL(fileURLWithPath: "/")
    private let redirectURI = URL(string: "com.example.app:/oauth2redirect") ?? URL(fileURLWithPath: "/")

    private func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    private func agentError(_ body: () async throws -> some Any) async -> ExternalUserAgentError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error as? ExternalUserAgentError
        }
    }

    @Test("a custom-scheme sign-in: the session shows the URL and the callback comes back")
    func success() async throws {
        let driver = FakeSessionDriver()
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: true)
        async let result = core.authorize(url: authorizationURL, redirectURI: redirectURI)
        let session = try await driver.nextStarted()
        #expect(session.request.url == authorizationURL)
        #expect(session.request.callback == .customScheme("com.example.app"))
        #expect(session.request.prefersEphemeralSession)
        let callback = try url("com.example.app:/oauth2redirect?code=abc&state=s")
        session.complete(.success(callback))
        #expect(try await result == callback)
        #expect(session.handle.cancelCount == 0)
    }

    @Test("the user closing the sheet is a cancellation, not a failure")
    func userCancel() async throws {
        let driver = FakeSessionDriver()
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: false)
        let task = Task { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }
        try await driver.nextStarted().complete(.failure(.canceledLogin))
        let error = await agentError { try await task.value }
        #expect(error?.isCancelled == true)
        #expect(error?.isSessionFailed == false)
    }

    @Test("system errors: no presentation context is a launch failure; others keep their cause")
    func systemErrors() async throws {
        let driver = FakeSessionDriver()
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: false)
        let first = Task { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }
        try await driver.nextStarted().complete(.failure(.presentationContextNotProvided))
        #expect(await agentError { try await first.value }?.isBrowserLaunchFailed == true)

        let second = Task { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }
        try await driver.nextStarted().complete(.failure(.other(SessionTestError())))
        let error = await agentError { try await second.value }
        #expect(error?.isSessionFailed == true)
        #expect(error?.isCancelled == false)
        #expect(error?.underlyingError is SessionTestError)
    }

    @Test("a second presentation while one is showing fails at once; the first is untouched")
    func oneAtATime() async throws {
        let driver = FakeSessionDriver()
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: false)
        async let first = core.authorize(url: authorizationURL, redirectURI: redirectURI)
        let session = try await driver.nextStarted()

        let error = await agentError { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }
        #expect(error?.isAlreadyInProgress == true)
        #expect(driver.startCount == 1)
        #expect(session.handle.cancelCount == 0)

        let callback = try url("com.example.app:/oauth2redirect?code=1")
        session.complete(.success(callback))
        #expect(try await first == callback)

        async let third = core.authorize(url: authorizationURL, redirectURI: redirectURI)
        let next = try await driver.nextStarted()
        next.complete(.success(callback))
        #expect(try await third == callback)
    }

    @Test("cancelling the task ends the wait with a cancellation and dismisses the sheet")
    func taskCancellation() async throws {
        let driver = FakeSessionDriver()
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: false)
        let task = Task { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }
        let session = try await driver.nextStarted()
        task.cancel()
        #expect(await agentError { try await task.value }?.isCancelled == true)
        await session.handle.waitUntilCancelled()
        #expect(session.handle.cancelCount == 1)
        // A late completion from the system is ignored, and the agent is free again.
        session.complete(.success(try url("com.example.app:/oauth2redirect?code=late")))
        async let again = core.authorize(url: authorizationURL, redirectURI: redirectURI)
        let callback = try url("com.example.app:/oauth2redirect?code=2")
        try await driver.nextStarted().complete(.success(callback))
        #expect(try await again == callback)
    }

    @Test("a task cancelled before it starts never shows a session")
    func cancelledBeforeStart() async {
        let driver = FakeSessionDriver()
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: false)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await core.authorize(url: authorizationURL, redirectURI: redirectURI)
        }
        #expect(await agentError { try await task.value }?.isCancelled == true)
        #expect(driver.startCount == 0)
    }

    @Test("a session that will not start is a launch failure, and frees the agent")
    func refusesToStart() async throws {
        let driver = FakeSessionDriver(refusesToStart: true)
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: false)
        #expect(
            await agentError { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }?
                .isBrowserLaunchFailed == true)
        #expect(
            await agentError { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }?
                .isBrowserLaunchFailed == true)
        #expect(driver.startCount == 2)
    }

    @Test("a session ending on a URL that is not a callback to the redirect URI is refused")
    func unexpectedCallback() async throws {
        let driver = FakeSessionDriver()
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: false)
        let task = Task { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }
        try await driver.nextStarted().complete(.success(try url("com.example.app:/elsewhere?code=abc")))
        #expect(await agentError { try await task.value }?.isUnexpectedCallback == true)
    }

    @Test("https redirects wait for host and path where the system supports them")
    func httpsCallbacks() throws {
        let https = try url("https://Example.com/auth/done")
        #expect(
            try WebAuthenticationSessionCore.callback(for: https, httpsSupported: true)
                == .https(host: "Example.com", path: "/auth/done"))
        #expect(
            try WebAuthenticationSessionCore.callback(for: try url("https://example.com"), httpsSupported: true)
                == .https(host: "example.com", path: "/"))
        #expect(
            try WebAuthenticationSessionCore.callback(for: try url("MSAuth.Example://auth"), httpsSupported: false)
                == .customScheme("msauth.example"))
        #expect(throws: ExternalUserAgentError.self) {
            try WebAuthenticationSessionCore.callback(for: https, httpsSupported: false)
        }
    }

    @Test(
        "redirect URIs an authentication session cannot wait for",
        arguments: ["http://127.0.0.1:5000/callback", "https://example.com/cb", "/relative"])
    func invalidRedirects(redirect: String) async throws {
        let driver = FakeSessionDriver(supportsHTTPSCallbacks: false)
        let core = WebAuthenticationSessionCore(driver: driver, prefersEphemeralSession: false)
        let redirectURI = try url(redirect)
        #expect(
            await agentError { try await core.authorize(url: authorizationURL, redirectURI: redirectURI) }?
                .isInvalidRedirectURI == true)
        #expect(driver.startCount == 0)
    }
}
