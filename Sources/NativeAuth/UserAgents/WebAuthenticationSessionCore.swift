import AuthSupport
import Foundation

/// The logic of an authentication-session agent, independent of the operating system: which
/// callback to wait for, one presentation at a time, cancellation, and what each ending means.
///
/// A second ``authorize(url:redirectURI:)`` while one is being shown fails at once with
/// ``ExternalUserAgentError/isAlreadyInProgress`` and leaves the first untouched: the system shows
/// one session at a time, and silently ending a sign-in the user is in the middle of would be
/// worse than refusing the newcomer.
final class WebAuthenticationSessionCore: Sendable {
    private typealias Outcome = Result<URL, ExternalUserAgentError>

    /// A class, replaced rather than changed: the state then holds one reference, and copying or
    /// destroying it is small.
    private final class Presentation: Sendable {
        let id: UInt64
        let continuation: HandedContinuation<Outcome>?
        let handle: (any WebAuthenticationSessionHandle)?

        init(
            id: UInt64, continuation: HandedContinuation<Outcome>? = nil,
            handle: (any WebAuthenticationSessionHandle)? = nil
        ) {
            self.id = id
            self.continuation = continuation
            self.handle = handle
        }
    }

    private struct State: Sendable {
        var nextID: UInt64 = 0
        var current: Presentation?
    }

    private let driver: any WebAuthenticationSessionDriver
    private let prefersEphemeralSession: Bool
    private let state = Locked(State())

    init(driver: any WebAuthenticationSessionDriver, prefersEphemeralSession: Bool) {
        self.driver = driver
        self.prefersEphemeralSession = prefersEphemeralSession
    }

    /// Shows `url` in a session and returns the callback URL, which starts with `redirectURI`.
    func authorize(url: URL, redirectURI: URL) async throws(ExternalUserAgentError) -> URL {
        let callback = try Self.callback(for: redirectURI, httpsSupported: driver.supportsHTTPSCallbacks)
        guard !Task.isCancelled else { throw .cancelled }
        let request = WebAuthenticationSessionRequest(
            url: url, callback: callback, prefersEphemeralSession: prefersEphemeralSession)
        let id = try reserve()
        let outcome = await withTaskCancellationHandler {
            await withHandedContinuation(of: Outcome.self) { continuation in
                let stored = state.withLock { state in
                    guard !Task.isCancelled, let current = state.current, current.id == id else {
                        if state.current?.id == id { state.current = nil }
                        return false
                    }
                    state.current = Presentation(id: id, continuation: continuation, handle: current.handle)
                    return true
                }
                guard stored else { return continuation.resume(returning: .failure(.cancelled)) }
                Task { @MainActor in self.start(request, id: id, redirectURI: redirectURI) }
            }
        } onCancel: {
            finish(id, with: .failure(.cancelled), cancelSession: true)
        }
        return try outcome.get()
    }

    private func reserve() throws(ExternalUserAgentError) -> UInt64 {
        let id = state.withLock { state -> UInt64? in
            guard state.current == nil else { return nil }
            state.nextID += 1
            state.current = Presentation(id: state.nextID)
            return state.nextID
        }
        guard let id else { throw .alreadyInProgress }
        return id
    }

    @MainActor
    private func start(_ request: WebAuthenticationSessionRequest, id: UInt64, redirectURI: URL) {
        guard state.withLock({ $0.current?.id == id }) else { return }
        let handle = driver.start(request) { [self] result in
            finish(id, with: Self.outcome(of: result, redirectURI: redirectURI), cancelSession: false)
        }
        guard let handle else {
            finish(id, with: .failure(.browserLaunchFailed(nil)), cancelSession: false)
            return
        }
        let stillShowing = state.withLock { state in
            guard let current = state.current, current.id == id else { return false }
            state.current = Presentation(id: id, continuation: current.continuation, handle: handle)
            return true
        }
        if !stillShowing { handle.cancel() }
    }

    /// Ends presentation `id` with `outcome`, once; later endings of the same presentation are ignored.
    private func finish(_ id: UInt64, with outcome: Outcome, cancelSession: Bool) {
        let ended = state.withLock { state -> Presentation? in
            guard let current = state.current, current.id == id, current.continuation != nil else { return nil }
            state.current = nil
            return current
        }
        guard let ended else { return }
        // The sheet's dismissal is queued on the main actor before the caller resumes, so a caller
        // that starts again at once queues its presentation behind the dismissal, not ahead of it.
        if cancelSession, let handle = ended.handle {
            Task { @MainActor in handle.cancel() }
        }
        ended.continuation?.resume(returning: outcome)
    }

    // MARK: Pure rules

    /// What the session waits for, for `redirectURI`.
    static func callback(
        for redirectURI: URL, httpsSupported: Bool
    ) throws(ExternalUserAgentError) -> WebAuthenticationCallback {
        guard let scheme = redirectURI.scheme?.lowercased(), !scheme.isEmpty else {
            throw .invalidRedirectURI("it has no scheme")
        }
        switch scheme {
        case "http":
            throw .invalidRedirectURI("an authentication session cannot wait for http; use LoopbackUserAgent")
        case "https":
            guard httpsSupported else {
                throw .invalidRedirectURI("https callbacks need iOS 17.4 or macOS 14.4 and an associated domain")
            }
            guard let host = redirectURI.host, !host.isEmpty else { throw .invalidRedirectURI("it has no host") }
            let path = redirectURI.path(percentEncoded: false)
            return .https(host: host, path: path.isEmpty ? "/" : path)
        default:
            return .customScheme(scheme)
        }
    }

    /// What a session's ending means for the caller.
    static func outcome(
        of result: Result<URL, WebAuthenticationSessionFailure>, redirectURI: URL
    ) -> Result<URL, ExternalUserAgentError> {
        switch result {
        case .success(let url):
            return CallbackURLMatcher.matches(url, redirectURI: redirectURI)
                ? .success(url) : .failure(.unexpectedCallback)
        case .failure(let failure):
            switch failure {
            case .canceledLogin: return .failure(.cancelled)
            case .presentationContextNotProvided, .presentationContextInvalid:
                return .failure(.browserLaunchFailed(failure))
            case .other(let error): return .failure(.sessionFailed(error))
            }
        }
    }
}
