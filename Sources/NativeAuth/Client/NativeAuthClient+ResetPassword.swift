import Foundation

extension NativeAuthClient {
    /// Starts a self-service password reset: a code is sent to the user's email address.
    ///
    /// - Throws: ``ResetPasswordStartError``; an empty username is refused before any request.
    public func resetPassword(_ parameters: ResetPasswordParameters) async throws(ResetPasswordStartError)
        -> ResetPasswordStartResult
    {
        do {
            return try await ResetPasswordFlow.start(parameters, client: core)
        } catch {
            throw ResetPasswordStartError(error).continuing(
                core.context(username: parameters.username, scopes: [], correlationId: error.correlationId))
        }
    }
}

extension NativeAuthClient {
    /// Starts a password reset and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``resetPassword(_:)``.
    public func resetPassword(parameters: ResetPasswordParameters, delegate: any ResetPasswordStartDelegate) {
        var parameters = parameters
        let correlationId = parameters.correlationId ?? UUID()
        parameters.correlationId = correlationId
        reportToDelegate(correlationId: correlationId) { [parameters] () async throws(ResetPasswordStartError) in
            try await self.resetPassword(parameters)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onResetPasswordStartError(error: error)
        }
    }
}
