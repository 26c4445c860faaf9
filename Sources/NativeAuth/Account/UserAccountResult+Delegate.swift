import Foundation

/// Receives the outcome of requesting an access token, on the main actor.
@MainActor
public protocol CredentialsDelegate: AnyObject, Sendable {
    /// No token was returned (``RetrieveAccessTokenError`` says why). Required.
    func onAccessTokenRetrieveError(error: RetrieveAccessTokenError)
    /// The access token is ready. Optional.
    func onAccessTokenRetrieveCompleted(result: TokenResult)
}

extension CredentialsDelegate {
    /// Optional; when left out, ``onAccessTokenRetrieveError(error:)`` reports it, with the token
    /// kept in the error's ``NativeAuthError/unhandledOutcome``.
    public func onAccessTokenRetrieveCompleted(result: TokenResult) {
        DelegateDispatch.missingMethod("onAccessTokenRetrieveCompleted(result:)")
    }
}

extension UserAccountResult {
    /// Returns an access token and reports the outcome to `delegate`, once, on the main actor.
    /// The delegate form of ``getAccessToken(scopes:forceRefresh:)`` and, when `claims` is given,
    /// of ``getAccessToken(scopes:forceRefresh:claims:)``.
    ///
    /// - Parameters:
    ///   - scopes: the scopes the token must carry; empty means the scopes asked for at sign-in.
    ///   - forceRefresh: `true` to refresh even when a cached token is valid.
    ///   - claims: an OIDC claims request (a JSON object); `nil` for none.
    ///   - delegate: receives the token or the error.
    public func getAccessToken(
        scopes: [String] = [], forceRefresh: Bool = false, claims: String? = nil, delegate: any CredentialsDelegate
    ) {
        reportToDelegate(correlationId: UUID()) { () async throws(RetrieveAccessTokenError) in
            if let claims {
                return try await self.getAccessToken(scopes: scopes, forceRefresh: forceRefresh, claims: claims)
            }
            return try await self.getAccessToken(scopes: scopes, forceRefresh: forceRefresh)
        } deliver: { token in
            delegate.onAccessTokenRetrieveCompleted(result: token)
        } fail: { error in
            delegate.onAccessTokenRetrieveError(error: error)
        }
    }
}
