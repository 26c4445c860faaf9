import Foundation

/// Receives the outcome of a browser sign-in started with a delegate, once, on the main actor:
/// ``WebAuthClient/signIn(_:using:delegate:)``,
/// ``NativeAuthClient/signInWithBrowser(_:redirectURI:using:delegate:)`` and
/// ``NativeAuthError/continueInBrowser(redirectURI:using:delegate:)``.
@MainActor
public protocol WebSignInDelegate: AnyObject, Sendable {
    /// The user is signed in. Required.
    func onWebSignInCompleted(result: UserAccountResult)
    /// The sign-in did not complete: cancelled, declined, refused by a check, … Nothing was stored. Required.
    func onWebSignInError(error: WebSignInError)
}

/// Runs a browser sign-in and reports its one outcome to `delegate` on the main actor.
func reportWebSignIn(
    to delegate: any WebSignInDelegate,
    _ action: @escaping @Sendable () async throws(WebSignInError) -> UserAccountResult
) {
    Task {
        let result = await outcome(of: action)
        await MainActor.run {
            switch result {
            case .success(let account): delegate.onWebSignInCompleted(result: account)
            case .failure(let error): delegate.onWebSignInError(error: error)
            }
        }
    }
}

extension WebAuthClient {
    /// Signs the user in through `agent` and reports the outcome to `delegate`, once, on the main
    /// actor. The delegate form of ``signIn(_:using:)``.
    public func signIn(
        _ parameters: WebSignInParameters, using agent: any ExternalUserAgent, delegate: any WebSignInDelegate
    ) {
        reportWebSignIn(to: delegate) { () async throws(WebSignInError) in
            try await self.signIn(parameters, using: agent)
        }
    }
}
