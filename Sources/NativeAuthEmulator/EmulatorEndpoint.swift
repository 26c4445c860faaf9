/// The endpoints an ``EmulatedTenant`` serves, each named by its path relative to the authority.
///
/// Use them with ``EmulatedTenant/force(_:on:times:)`` and ``EmulatedTenant/url(for:)``.
public enum EmulatorEndpoint: String, Sendable, CaseIterable {
    /// `signup/v1.0/start`
    case signUpStart = "signup/v1.0/start"
    /// `signup/v1.0/challenge`
    case signUpChallenge = "signup/v1.0/challenge"
    /// `signup/v1.0/continue`
    case signUpContinue = "signup/v1.0/continue"
    /// `oauth2/v2.0/initiate`
    case initiate = "oauth2/v2.0/initiate"
    /// `oauth2/v2.0/challenge`
    case challenge = "oauth2/v2.0/challenge"
    /// `oauth2/v2.0/introspect`
    case introspect = "oauth2/v2.0/introspect"
    /// `oauth2/v2.0/token`
    case token = "oauth2/v2.0/token"
    /// `register/v1.0/introspect`
    case registerIntrospect = "register/v1.0/introspect"
    /// `register/v1.0/challenge`
    case registerChallenge = "register/v1.0/challenge"
    /// `register/v1.0/continue`
    case registerContinue = "register/v1.0/continue"
    /// `resetpassword/v1.0/start`
    case resetStart = "resetpassword/v1.0/start"
    /// `resetpassword/v1.0/challenge`
    case resetChallenge = "resetpassword/v1.0/challenge"
    /// `resetpassword/v1.0/continue`
    case resetContinue = "resetpassword/v1.0/continue"
    /// `resetpassword/v1.0/submit`
    case resetSubmit = "resetpassword/v1.0/submit"
    /// `resetpassword/v1.0/poll_completion`
    case resetPollCompletion = "resetpassword/v1.0/poll_completion"
    /// The protected resource, `GET emulator/me`, which answers with the signed-in user when called
    /// with a valid access token (`Authorization: Bearer …`).
    case resource = "emulator/me"

    /// The HTTP method the endpoint answers: `GET` for ``resource``, `POST` for all others.
    public var method: String {
        self == .resource ? "GET" : "POST"
    }
}
