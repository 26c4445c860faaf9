public import Foundation

/// Why an ``ExternalUserAgent`` returned no callback.
///
/// Ask the `isXxx` properties rather than matching on the description; new reasons may be added.
/// ``isCancelled`` is the one to check first: the user closed the browser window or the sign-in
/// task was cancelled, which is not a failure to report.
public struct ExternalUserAgentError: Error, LocalizedError, CustomStringConvertible, Sendable {
    enum Code: Sendable, Equatable {
        case cancelled
        case timedOut
        case portInUse(UInt16)
        case listenerFailed(String)
        case browserLaunchFailed
        case invalidRedirectURI(String)
        case alreadyInProgress
        case sessionFailed
        case unexpectedCallback
    }

    var code: Code { box.code }

    /// The error that caused this one, when there is one (for example the error the browser-opening
    /// closure threw, or the error the operating system's authentication session reported).
    public var underlyingError: (any Error)? { box.underlyingError }

    /// The fields, behind one reference: the error is one pointer to copy, store and throw.
    private let box: Box

    private final class Box: Sendable {
        let code: Code
        let underlyingError: (any Error)?

        init(_ code: Code, _ underlyingError: (any Error)?) {
            self.code = code
            self.underlyingError = underlyingError
        }
    }

    init(_ code: Code, underlyingError: (any Error)? = nil) {
        box = Box(code, underlyingError)
    }

    /// `true` when the user cancelled (closed the sign-in window) or the task waiting for the
    /// callback was cancelled. Not a failure: simply stop the sign-in.
    public var isCancelled: Bool { code == .cancelled }

    /// `true` when no callback arrived within the agent's timeout.
    public var isTimedOut: Bool { code == .timedOut }

    /// `true` when the loopback port the agent was told to listen on is taken by another socket.
    public var isPortInUse: Bool {
        if case .portInUse = code { return true }
        return false
    }

    /// `true` when the loopback listener could not be set up or failed for another reason than a
    /// port in use (the operating system refused a socket call).
    public var isListenerFailed: Bool {
        if case .listenerFailed = code { return true }
        return false
    }

    /// `true` when the browser (or the system's authentication session) could not be opened.
    /// ``underlyingError`` holds what the opener reported.
    public var isBrowserLaunchFailed: Bool { code == .browserLaunchFailed }

    /// `true` when the redirect URI cannot be served by this agent (for example a loopback agent
    /// given a redirect that is not `http://127.0.0.1:<port>/…`, or an `http` redirect given to
    /// the Apple session agent).
    public var isInvalidRedirectURI: Bool {
        if case .invalidRedirectURI = code { return true }
        return false
    }

    /// `true` when the agent was already showing a sign-in page; it shows one at a time.
    public var isAlreadyInProgress: Bool { code == .alreadyInProgress }

    /// `true` when the operating system's authentication session ended with an error other than
    /// a cancellation. ``underlyingError`` holds it.
    public var isSessionFailed: Bool { code == .sessionFailed }

    /// `true` when the session ended on a URL that does not start with the redirect URI.
    public var isUnexpectedCallback: Bool { code == .unexpectedCallback }

    /// What happened, in plain language. Never contains the callback URL or any part of its query.
    public var description: String {
        let reason: String
        switch code {
        case .cancelled:
            reason = "the sign-in was cancelled"
        case .timedOut:
            reason = "no callback arrived before the timeout"
        case .portInUse(let port):
            reason = "port \(port) on 127.0.0.1 is already in use"
        case .listenerFailed(let detail):
            reason = "the loopback listener failed: \(detail)"
        case .browserLaunchFailed:
            reason = "the browser could not be opened" + Self.suffix(underlyingError)
        case .invalidRedirectURI(let detail):
            reason = "the redirect URI cannot be used: \(detail)"
        case .alreadyInProgress:
            reason = "a sign-in page is already being shown by this agent"
        case .sessionFailed:
            reason = "the authentication session failed" + Self.suffix(underlyingError)
        case .unexpectedCallback:
            reason = "the session ended on a URL that does not match the redirect URI"
        }
        return "ExternalUserAgentError: \(reason)."
    }

    /// Same as ``description``.
    public var errorDescription: String? { description }

    private static func suffix(_ error: (any Error)?) -> String {
        guard let error else { return "" }
        return ": \(error)"
    }
}

extension ExternalUserAgentError {
    package static let cancelled = ExternalUserAgentError(.cancelled)
    static let timedOut = ExternalUserAgentError(.timedOut)
    static let alreadyInProgress = ExternalUserAgentError(.alreadyInProgress)
    static let unexpectedCallback = ExternalUserAgentError(.unexpectedCallback)

    static func invalidRedirectURI(_ detail: String) -> ExternalUserAgentError {
        ExternalUserAgentError(.invalidRedirectURI(detail))
    }

    static func browserLaunchFailed(_ underlying: (any Error)?) -> ExternalUserAgentError {
        ExternalUserAgentError(.browserLaunchFailed, underlyingError: underlying)
    }

    static func sessionFailed(_ underlying: (any Error)?) -> ExternalUserAgentError {
        ExternalUserAgentError(.sessionFailed, underlyingError: underlying)
    }
}
