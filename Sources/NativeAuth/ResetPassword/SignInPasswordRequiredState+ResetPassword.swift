import Foundation

extension SignInPasswordRequiredState {
    /// Starts a password reset for the user signing in, from the password screen: the "Forgot
    /// your password?" of a sign-in, also after a wrong password.
    ///
    /// Over native authentication V2 the reset continues the sign-in: the SDK follows the password
    /// method's `recover` link with the sign-in's continuation token (inline password reset), and
    /// when the server offered none, starts a reset of its own for the user. Over V1 it starts the
    /// reset ``NativeAuthClient/resetPassword(_:)`` starts, for the username of this sign-in, with
    /// the sign-in's correlation id. Either way the reset goes on as any other: submit the code on
    /// the state returned, then the new password, then sign in with one more request.
    ///
    /// - Parameter selectsAuthMethod: as ``ResetPasswordParameters/selectsAuthMethod``: when the
    ///   server offers more than one email or SMS recovery method, the user chooses
    ///   (`.authMethodSelectionRequired`) instead of the SDK taking the first email method. Over
    ///   V1 it changes nothing.
    /// - Returns: what ``NativeAuthClient/resetPassword(_:)`` returns: a code was sent, or, with
    ///   `selectsAuthMethod`, a recovery method to choose.
    /// - Throws: ``ResetPasswordStartError``. Once the server has answered the reset's first
    ///   request this state is spent, as after any step that moves the flow on; a failure before
    ///   that (no connection, a cancellation) leaves it usable
    ///   (``NativeAuthError/isStateStillUsable``), so the password can still be submitted on it.
    public func resetPassword(selectsAuthMethod: Bool = false) async throws(ResetPasswordStartError)
        -> ResetPasswordStartResult
    {
        try await core.run(ResetPasswordStartError.self) { action throws(FlowError) in
            try await engine.resetPassword.startFromSignIn(selects: selectsAuthMethod, action: action)
        }
    }

    /// Starts a password reset for the user signing in and reports the outcome to `delegate`,
    /// once, on the main actor. The delegate form of ``resetPassword(selectsAuthMethod:)``, with the delegate of
    /// ``NativeAuthClient/resetPassword(parameters:delegate:)``: its error callback has no
    /// `newState`, so keep this state to submit the password on it after an error that leaves it
    /// usable.
    public func resetPassword(selectsAuthMethod: Bool = false, delegate: any ResetPasswordStartDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(ResetPasswordStartError) in
            try await self.resetPassword(selectsAuthMethod: selectsAuthMethod)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onResetPasswordStartError(error: error)
        }
    }
}
