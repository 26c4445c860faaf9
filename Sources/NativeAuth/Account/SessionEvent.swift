import AuthSupport
public import Foundation

/// Something that happened to the signed-in session, for driving an app's UI.
@nonexhaustive
public indirect enum SessionEvent: Sendable, Equatable, CustomStringConvertible {
    /// An account signed in (replacing any earlier one).
    case signedIn(Account)
    /// A new access token was obtained with the refresh token.
    case tokenRefreshed(Account, scopes: [String], expiresOn: Date)
    /// The account was signed out, by the app or because the session ended on the server.
    case signedOut(Account, reason: SignOutReason)

    /// The event's kind and account; never a token.
    public var description: String {
        switch self {
        case .signedIn(let account): "signedIn(\(account.username))"
        case .tokenRefreshed(let account, let scopes, _): "tokenRefreshed(\(account.username), scopes: \(scopes))"
        case .signedOut(let account, let reason): "signedOut(\(account.username), \(reason))"
        }
    }
}

/// Why an account was signed out.
public enum SignOutReason: Sendable, Hashable {
    /// The app called ``UserAccountResult/signOut()``.
    case requested
    /// The refresh token expired or was revoked, or none was stored: the user must sign in again.
    case sessionExpired
}

/// Hands session events to every open stream.
final class SessionEventHub: Sendable {
    /// The open streams, by the id each removes itself with: a list, as there are few.
    private let continuations = Locked<[(id: UUID, continuation: AsyncStream<SessionEvent>.Continuation)]>([])

    func stream() -> AsyncStream<SessionEvent> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<SessionEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { $0.removeAll { $0.id == id } }
        }
        continuations.withLock { $0.append((id, continuation)) }
        return stream
    }

    func publish(_ event: SessionEvent) {
        for entry in continuations.current { entry.continuation.yield(event) }
    }

    deinit {
        for entry in continuations.current { entry.continuation.finish() }
    }
}
