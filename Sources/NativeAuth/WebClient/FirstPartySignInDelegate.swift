import Foundation

/// Receives the outcome of a first-party sign-in step started with a delegate, once, on the main
/// actor: ``WebAuthClient/signInFirstParty(_:delegate:)``,
/// ``WebAuthClient/signInFirstParty(continuing:stepUp:password:scopes:additionalParameters:delegate:)``,
/// ``FirstPartyChallengeState/submitCode(_:delegate:)``, ``FirstPartyChallengeState/submitPassword(_:delegate:)``
/// and ``FirstPartyChallengeState/submit(_:delegate:)``.
/// Every method is required, so no outcome can go undelivered.
@MainActor
public protocol FirstPartySignInDelegate: WebSignInDelegate {
    /// The provider asks for more (`insufficient_authorization`): go on with `newState`, such as
    /// with the one-time code it sent.
    func onFirstPartyChallengeRequired(newState: FirstPartyChallengeState)
    /// The provider asks for the browser (`redirect_to_web`): go on with `newState`'s
    /// ``FirstPartyBrowserRequiredState/continueInBrowser(using:delegate:)``.
    func onFirstPartyBrowserRequired(newState: FirstPartyBrowserRequiredState)
}

/// Runs a first-party step and reports its one outcome to `delegate` on the main actor.
func reportFirstParty(
    to delegate: any FirstPartySignInDelegate,
    _ action: @escaping @Sendable () async throws(WebSignInError) -> FirstPartySignInResult
) {
    Task {
        let result = await outcome(of: action)
        await MainActor.run {
            switch result {
            case .success(.completed(let account)): delegate.onWebSignInCompleted(result: account)
            case .success(.challengeRequired(let state)): delegate.onFirstPartyChallengeRequired(newState: state)
            case .success(.browserRequired(let state)): delegate.onFirstPartyBrowserRequired(newState: state)
            case .failure(let error): delegate.onWebSignInError(error: error)
            }
        }
    }
}

extension WebAuthClient {
    /// Starts a first-party sign-in and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``signInFirstParty(_:)``.
    public func signInFirstParty(_ parameters: FirstPartySignInParameters, delegate: any FirstPartySignInDelegate) {
        reportFirstParty(to: delegate) { () async throws(WebSignInError) in try await self.signInFirstParty(parameters)
        }
    }
}

extension FirstPartyChallengeState {
    /// Submits the one-time code and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``submitCode(_:)``; after a wrong code the state stays usable.
    public func submitCode(_ code: String, delegate: any FirstPartySignInDelegate) {
        reportFirstParty(to: delegate) { () async throws(WebSignInError) in try await self.submitCode(code) }
    }

    /// Submits the password and reports the outcome to `delegate`, once, on the main actor. The
    /// delegate form of ``submitPassword(_:)``; after a wrong password the state stays usable.
    public func submitPassword(_ password: String, delegate: any FirstPartySignInDelegate) {
        reportFirstParty(to: delegate) { () async throws(WebSignInError) in try await self.submitPassword(password) }
    }

    /// Submits `parameters` and reports the outcome to `delegate`, once, on the main actor. The
    /// delegate form of ``submit(_:)``.
    public func submit(_ parameters: [String: String], delegate: any FirstPartySignInDelegate) {
        reportFirstParty(to: delegate) { () async throws(WebSignInError) in try await self.submit(parameters) }
    }
}

extension FirstPartyBrowserRequiredState {
    /// Continues in the browser through `agent` and reports the outcome to `delegate`, once, on the
    /// main actor. The delegate form of ``continueInBrowser(using:)``.
    public func continueInBrowser(using agent: any ExternalUserAgent, delegate: any WebSignInDelegate) {
        reportWebSignIn(to: delegate) { () async throws(WebSignInError) in
            try await self.continueInBrowser(using: agent)
        }
    }
}
