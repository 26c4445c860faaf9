import Foundation

extension NativeAuthClient {
    /// Signs a user in, or up when the username is new, with one code screen for both.
    ///
    /// The SDK starts a sign-in; when the server answers that no user has the username, it starts
    /// a sign-up with `parameters.attributes` (one request more than ``signUp(_:)``: the sign-in
    /// `initiate` that found no user; a known user costs no request more than ``signIn(_:)``).
    /// Either way a code is sent and ``SignUpOrSignInCodeRequiredState/submitCode(_:)`` ends signed
    /// in, saying whether the account was created. A known user whose account signs in with a
    /// password gets ``SignUpOrSignInStartResult/passwordRequired(_:)``; one who must use the
    /// browser gets an error with ``NativeAuthError/isBrowserRequired``; a new user on a tenant
    /// that does not sign users up gets ``SignUpOrSignInStartError/isSignUpUnavailable``.
    ///
    /// - Throws: ``SignUpOrSignInStartError``: an empty username, or an attribute that cannot be
    ///   encoded, is refused before any request.
    public func signUpOrSignIn(
        _ parameters: SignUpOrSignInParameters
    ) async throws(SignUpOrSignInStartError) -> SignUpOrSignInStartResult {
        do {
            return try await SignUpOrSignInFlow.start(parameters, client: core)
        } catch {
            throw SignUpOrSignInStartError(error).continuing(
                core.context(
                    username: parameters.username, scopes: parameters.scopes, correlationId: error.correlationId))
        }
    }

    /// Signs a user in, or up when the username is new, and reports the outcome to `delegate`,
    /// once, on the main actor. The delegate form of ``signUpOrSignIn(_:)``.
    public func signUpOrSignIn(parameters: SignUpOrSignInParameters, delegate: any SignUpOrSignInStartDelegate) {
        var parameters = parameters
        let correlationId = parameters.correlationId ?? UUID()
        parameters.correlationId = correlationId
        reportToDelegate(correlationId: correlationId) { [parameters] () async throws(SignUpOrSignInStartError) in
            try await self.signUpOrSignIn(parameters)
        } deliver: { result in
            switch result {
            case .codeRequired(let state, let sentTo, let channel, let codeLength):
                delegate.onSignUpOrSignInCodeRequired(
                    newState: state, sentTo: sentTo, channelTargetType: channel, codeLength: codeLength)
            case .passwordRequired(let state):
                delegate.onSignUpOrSignInPasswordRequired(newState: state)
            case .attributesInvalid(let names):
                delegate.onSignUpOrSignInAttributesInvalid(attributeNames: names)
            case .newUserPasswordRequired(let state):
                delegate.onSignUpOrSignInNewUserPasswordRequiredBeforeCode(newState: state)
            }
        } fail: { error in
            delegate.onSignUpOrSignInStartError(error: error)
        }
    }
}
