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
    /// The protected resource, `GET {authority}/emulator/me`, which answers with the signed-in user
    /// (`{"username":…,"oid":…}`) when called with an access token the tenant issued, whatever its
    /// scopes (`Authorization: Bearer …`).
    case resource = "emulator/me"
    /// `GET v2.0/.well-known/openid-configuration`: the OpenID Connect discovery document.
    case openIDConfiguration = "v2.0/.well-known/openid-configuration"
    /// `GET discovery/v2.0/keys`: the JWK Set of the key that signs browser sign-in ID tokens.
    case keys = "discovery/v2.0/keys"
    /// `GET oauth2/v2.0/authorize`: the authorization endpoint, which shows the sign-in page.
    case authorize = "oauth2/v2.0/authorize"
    /// `POST login`: where the sign-in page's form is posted.
    case login = "login"
    /// `GET oauth2/v2.0/logout`: the end-session endpoint.
    case logout = "oauth2/v2.0/logout"
    /// `POST oauth2/v2.0/par`: the pushed authorization request endpoint (RFC 9126), served when
    /// ``EmulatorSettings/pushedAuthorizationRequests`` is not ``EmulatorSettings/PushedAuthorizationRequests/off``.
    case pushedAuthorizationRequest = "oauth2/v2.0/par"
    /// `POST oauth2/v2.0/authorize-challenge`: Native Auth V2's start of authorization (`client_id`,
    /// answered 401 with a continuation token and the journey links) and its resume
    /// (`continuation_token`, answered with a `code`). Served when ``EmulatorSettings/nativeAuthV2`` is on.
    case authorizeChallenge = "oauth2/v2.0/authorize-challenge"
    /// `POST oauth2/v2.0/first-party/authorize-challenge`: the authorization challenge endpoint of
    /// OAuth 2.0 for First-Party Applications (`username`, `password`, `otp`, `auth_session`;
    /// answered with an `authorization_code` or the draft's error answers), served when
    /// ``EmulatorSettings/authorizationChallengeEndpoint`` is on. Not Native Auth V2's
    /// ``authorizeChallenge``.
    case authorizationChallenge = "oauth2/v2.0/first-party/authorize-challenge"
    /// `POST api/v2.0/signin/start`: Native Auth V2's sign-in journey, the `sign_in` link (JSON).
    case v2SignInStart = "api/v2.0/signin/start"
    /// `POST api/v2.0/auth/methods/{type}/{id}/challenge`: a method's `challenge` (and `resend`)
    /// link in Native Auth V2; `{type}` and `{id}` are one path segment each (JSON).
    case v2MethodChallenge = "api/v2.0/auth/methods/{type}/{id}/challenge"
    /// `POST api/v2.0/auth/methods/{type}/{id}/riskverify`: the `riskverify` link an SMS method's
    /// `challenge` answers with (``EmulatorSettings/nativeAuthV2SMSRiskVerification``); posting
    /// it sends the code (JSON). The path is the emulator's: the sources do not name the service's.
    case v2MethodRiskVerify = "api/v2.0/auth/methods/{type}/{id}/riskverify"
    /// `POST api/v2.0/auth/methods/{type}/{id}/verify`: a method's `verify` link in Native Auth V2 (JSON).
    case v2MethodVerify = "api/v2.0/auth/methods/{type}/{id}/verify"
    /// `POST api/v2.0/auth/methods/{type}/{id}/enroll`: a method's `enroll` link in Native Auth
    /// V2's method registration, which takes the contact (JSON).
    case v2MethodEnroll = "api/v2.0/auth/methods/{type}/{id}/enroll"
    /// `POST api/v2.0/auth/methods/{type}/{id}/activate`: the `activate` link of a method being
    /// registered, which takes the code sent to the contact (JSON).
    case v2MethodActivate = "api/v2.0/auth/methods/{type}/{id}/activate"
    /// `POST api/v2.0/resetpassword/start`: Native Auth V2's password-reset journey, the
    /// `reset_password` link (JSON).
    case v2ResetPasswordStart = "api/v2.0/resetpassword/start"
    /// `PUT api/v2.0/auth/methods/password/{id}`: the password method's `update` link in Native
    /// Auth V2's password reset, which takes the new password (JSON; `PUT` only).
    case v2PasswordUpdate = "api/v2.0/auth/methods/password/{id}"
    /// `POST api/v2.0/auth/methods/password/{id}/pollUpdate`: the `poll` link of a password update
    /// in Native Auth V2 (JSON).
    case v2PasswordPollUpdate = "api/v2.0/auth/methods/password/{id}/pollUpdate"
    /// `POST api/v2.0/auth/methods/password/{id}/recover`: the password method's `recover` link in
    /// Native Auth V2's sign-in, which starts a password reset inside the sign-in (JSON).
    case v2PasswordRecover = "api/v2.0/auth/methods/password/{id}/recover"
    /// `POST api/v2.0/signup/start`: Native Auth V2's sign-up journey, the `sign_up` link (JSON).
    case v2SignUpStart = "api/v2.0/signup/start"
    /// `POST api/v2.0/signup/submitattributes`: the `submitAttributes` link of a V2 sign-up (JSON).
    case v2SignUpSubmitAttributes = "api/v2.0/signup/submitattributes"

    /// The HTTP method the endpoint answers: `GET` for ``resource``, ``openIDConfiguration``,
    /// ``keys``, ``authorize`` and ``logout``; `PUT` for ``v2PasswordUpdate``; `POST` for all others.
    public var method: String {
        switch self {
        case .resource, .openIDConfiguration, .keys, .authorize, .logout: "GET"
        case .v2PasswordUpdate: "PUT"
        default: "POST"
        }
    }
}
