import Foundation

/// What ``WebAuthClient/signOut(_:endingSessionUsing:postLogoutRedirectURI:)`` did: the local
/// sign-out, which always happens, and the two steps at the provider, each with its own outcome.
///
/// A sign-out does not throw. The account is gone from the app whatever the provider answered,
/// so there is nothing to retry and nothing to keep showing as signed in; a step that failed at
/// the provider is reported here, with its ``WebSignInError``, for the app to log or to tell the
/// user ("you are signed out of this app, but your browser session at the provider may remain").
///
/// ```swift
/// let result = await client.signOut(account, endingSessionUsing: agent)
/// if case .failed(let error) = result.revocation { logger.notice("revocation failed: \(error)") }
/// if case .failed(let error) = result.endSession, !error.isCancelled { showBrowserSessionNotice() }
/// ```
public struct WebSignOutResult: Sendable, CustomStringConvertible {
    /// The outcome of one step at the provider.
    @nonexhaustive
    public enum Outcome: Sendable, CustomStringConvertible {
        /// The step succeeded: the refresh token was revoked, or the provider's session ended and
        /// the browser came back with the expected `state`.
        case done
        /// The provider offers no endpoint for the step (no `revocation_endpoint`, or no
        /// `end_session_endpoint`); nothing was sent.
        case notSupported
        /// The step had nothing to do: no refresh token was stored, or no agent was given to end
        /// the session with. Nothing was sent.
        case skipped
        /// The step failed; the error says why (``WebSignInError/isNetworkError``,
        /// ``WebSignInError/isConfigurationError``, ``WebSignInError/isCancelled`` when the user
        /// closed the browser, ``WebSignInError/isStateMismatch``, …).
        case failed(WebSignInError)

        /// The error of a failed step, `nil` otherwise.
        public var error: WebSignInError? {
            if case .failed(let error) = self { return error }
            return nil
        }

        /// The outcome's name, and the error's description when it failed.
        public var description: String {
            switch self {
            case .done: "done"
            case .notSupported: "notSupported"
            case .skipped: "skipped"
            case .failed(let error): "failed(\(error))"
            }
        }
    }

    /// The local sign-out: whether the account was signed in, and whether its credentials left the
    /// credential store. It happens first, whatever the provider answers later.
    public var local: SignOutResult { steps.local }
    /// The revocation of the refresh token at the provider's `revocation_endpoint` (RFC 7009).
    public var revocation: Outcome { steps.revocation }
    /// The end of the provider's session at its `end_session_endpoint` (OpenID Connect
    /// RP-Initiated Logout), through the agent; ``Outcome/skipped`` when no agent was given.
    public var endSession: Outcome { steps.endSession }

    /// The three outcomes, behind one reference: a result is one pointer to copy and destroy.
    private let steps: Steps

    private final class Steps: Sendable {
        let local: SignOutResult
        let revocation: Outcome
        let endSession: Outcome

        init(local: SignOutResult, revocation: Outcome, endSession: Outcome) {
            self.local = local
            self.revocation = revocation
            self.endSession = endSession
        }
    }

    init(local: SignOutResult, revocation: Outcome, endSession: Outcome) {
        steps = Steps(local: local, revocation: revocation, endSession: endSession)
    }

    /// `true` when no step failed: the credentials left the store (or the account was signed out
    /// before), and neither the revocation nor the end of the session failed (a step that was not
    /// supported or had nothing to do is not a failure).
    public var isComplete: Bool {
        (local.removedFromStore || !local.wasSignedIn) && revocation.error == nil && endSession.error == nil
    }

    /// The three outcomes on one line; never a token.
    public var description: String {
        "WebSignOutResult(local: wasSignedIn=\(local.wasSignedIn) removedFromStore=\(local.removedFromStore), "
            + "revocation: \(revocation), endSession: \(endSession))"
    }
}
