// iOS (and Mac Catalyst), macOS and visionOS, where ASWebAuthenticationPresentationContextProviding
// exists. tvOS and watchOS are left out with `!os(...)` rather than the three listed, so that the Linux
// check against stub frameworks (Scripts/apple-typecheck.py) compiles this file too.
#if canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
    public import AuthenticationServices
    public import Foundation

    /// An ``ExternalUserAgent`` that shows the sign-in page in `ASWebAuthenticationSession`, the
    /// system's sign-in sheet on iOS, iPadOS, macOS and visionOS.
    ///
    /// The redirect URI decides what the session waits for:
    ///
    /// - a custom scheme (`com.example.app:/oauth2redirect`, `msauth.com.example.app://auth`): any
    ///   URL with that scheme ends the session;
    /// - an `https` URL (`https://example.com/oauth2redirect`): on iOS 17.4, macOS 14.4 and
    ///   visionOS 1.1 or later, for a host your app has an associated domain for. Earlier systems
    ///   refuse it with ``ExternalUserAgentError/isInvalidRedirectURI``.
    ///
    /// An `http` redirect is refused: use ``LoopbackUserAgent`` for loopback redirects.
    ///
    /// The agent shows one session at a time: a second ``authorize(url:redirectURI:)`` while one is
    /// showing fails at once with ``ExternalUserAgentError/isAlreadyInProgress`` and leaves the
    /// first one alone. The user closing the sheet gives ``ExternalUserAgentError/isCancelled``, as
    /// does cancelling the task, which also dismisses the sheet.
    ///
    /// ```swift
    /// let agent = WebAuthenticationSessionUserAgent(prefersEphemeralWebBrowserSession: true) {
    ///     view.window ?? ASPresentationAnchor()
    /// }
    /// ```
    public final class WebAuthenticationSessionUserAgent: ExternalUserAgent {
        private let core: WebAuthenticationSessionCore

        /// Creates an agent.
        ///
        /// - Parameters:
        ///   - prefersEphemeralWebBrowserSession: `true` to share no cookies or website data with
        ///     the user's browser (no single sign-on with it, and no "wants to use … to sign in"
        ///     prompt); `false` (the default) to share them.
        ///   - presentationAnchor: Returns the window the sheet is shown over; called on the main
        ///     actor when the session starts.
        public init(
            prefersEphemeralWebBrowserSession: Bool = false,
            presentationAnchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
        ) {
            core = WebAuthenticationSessionCore(
                driver: SystemWebAuthenticationSessionDriver(anchor: presentationAnchor),
                prefersEphemeralSession: prefersEphemeralWebBrowserSession)
        }

        /// Shows `url` in the system's sign-in sheet and returns the URL it ended on, which starts
        /// with `redirectURI`.
        ///
        /// - Throws: ``ExternalUserAgentError``: ``ExternalUserAgentError/isCancelled`` when the
        ///   user closed the sheet or the task was cancelled;
        ///   ``ExternalUserAgentError/isAlreadyInProgress`` when this agent is already showing a
        ///   sheet; ``ExternalUserAgentError/isInvalidRedirectURI`` for an `http` redirect, or an
        ///   `https` one on a system that cannot wait for it;
        ///   ``ExternalUserAgentError/isBrowserLaunchFailed`` when the sheet could not be shown;
        ///   ``ExternalUserAgentError/isSessionFailed`` for any other error of the session.
        public func authorize(url: URL, redirectURI: URL) async throws -> URL {
            try await core.authorize(url: url, redirectURI: redirectURI)
        }
    }

    /// `ASWebAuthenticationSession` behind ``WebAuthenticationSessionDriver``; no logic of its own
    /// beyond choosing the initializer the system offers and naming the system's errors.
    struct SystemWebAuthenticationSessionDriver: WebAuthenticationSessionDriver {
        let anchor: @MainActor @Sendable () -> ASPresentationAnchor

        var supportsHTTPSCallbacks: Bool {
            if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) { return true }
            return false
        }

        @MainActor
        func start(
            _ request: WebAuthenticationSessionRequest,
            completion: @escaping @Sendable (Result<URL, WebAuthenticationSessionFailure>) -> Void
        ) -> (any WebAuthenticationSessionHandle)? {
            let handler: @Sendable (URL?, (any Error)?) -> Void = { url, error in
                if let url {
                    completion(.success(url))
                } else {
                    completion(.failure(Self.failure(error)))
                }
            }
            let session: ASWebAuthenticationSession
            switch request.callback {
            case .customScheme(let scheme):
                if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
                    session = ASWebAuthenticationSession(
                        url: request.url, callback: .customScheme(scheme), completionHandler: handler)
                } else {
                    session = ASWebAuthenticationSession(
                        url: request.url, callbackURLScheme: scheme, completionHandler: handler)
                }
            case .https(let host, let path):
                guard #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) else { return nil }
                session = ASWebAuthenticationSession(
                    url: request.url, callback: .https(host: host, path: path), completionHandler: handler)
            }
            let provider = PresentationContextProvider(anchor: anchor)
            session.presentationContextProvider = provider
            session.prefersEphemeralWebBrowserSession = request.prefersEphemeralSession
            guard session.start() else { return nil }
            return SystemWebAuthenticationSessionHandle(session: session, provider: provider)
        }

        private static func failure(_ error: (any Error)?) -> WebAuthenticationSessionFailure {
            guard let error else { return .other(ExternalUserAgentError.unexpectedCallback) }
            guard let sessionError = error as? ASWebAuthenticationSessionError else { return .other(error) }
            switch sessionError.code {
            case .canceledLogin: return .canceledLogin
            case .presentationContextNotProvided: return .presentationContextNotProvided
            case .presentationContextInvalid: return .presentationContextInvalid
            @unknown default: return .other(error)
            }
        }
    }

    /// A started session. It keeps the presentation context provider alive, which the session
    /// holds only weakly.
    @MainActor
    final class SystemWebAuthenticationSessionHandle: WebAuthenticationSessionHandle {
        private let session: ASWebAuthenticationSession
        private let provider: PresentationContextProvider

        init(session: ASWebAuthenticationSession, provider: PresentationContextProvider) {
            self.session = session
            self.provider = provider
        }

        func cancel() {
            session.cancel()
        }
    }

    /// Hands the session the window chosen by the app.
    final class PresentationContextProvider: NSObject, ASWebAuthenticationPresentationContextProviding {
        private let anchor: @MainActor @Sendable () -> ASPresentationAnchor

        init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
            self.anchor = anchor
        }

        func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
            // The system asks on the main thread, from `start()`.
            MainActor.assumeIsolated { anchor() }
        }
    }
#endif
