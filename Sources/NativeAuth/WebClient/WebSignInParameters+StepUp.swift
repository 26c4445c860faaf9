extension WebSignInParameters {
    /// The parameters of a browser sign-in that answers a resource's step-up challenge (RFC 9470
    /// §4): `acr_values` and `max_age` are the challenge's, and its scopes are added to `scopes`.
    ///
    /// The new ID token is checked against them as a first-party step-up's is
    /// (``WebAuthClient/signInFirstParty(continuing:stepUp:password:scopes:additionalParameters:)``):
    /// an `auth_time` no older than `max_age` allows (``IDTokenCheck/authTime``), and an `acr`, when
    /// it has one, among the `acr_values` (``IDTokenCheck/authenticationContext``). A browser
    /// sign-in does not require the account's user: pass its username as `loginHint`.
    ///
    /// ```swift
    /// let parameters = WebSignInParameters(
    ///     stepUp: challenge, scopes: ["offline_access"], loginHint: account.account.username)
    /// let stronger = try await client.signIn(parameters, using: agent)
    /// ```
    ///
    /// A negative `maxAge` or an empty `acrValues` entry is refused with
    /// ``WebSignInError/isInvalidParameters`` when the sign-in starts, before anything is sent.
    public init(stepUp: StepUpChallenge, scopes: [String] = [], loginHint: String? = nil) {
        self.init(
            scopes: scopes + stepUp.scopes, loginHint: loginHint, maxAge: stepUp.maxAge, acrValues: stepUp.acrValues)
        requiresListedACR = true
    }
}
