public import Foundation

/// The behaviour of an ``EmulatedTenant``: code and token lifetimes, password policy, sign-up
/// attributes, the password-reset job, MFA policy and how complete its answers are.
///
/// Change settings at any time with ``EmulatedTenant/settings`` or ``EmulatedTenant/configure(_:)``;
/// they apply from the next request on.
public struct EmulatorSettings: Sendable, Equatable {
    /// How a password-reset job ends once it has been polled enough.
    public enum ResetJobOutcome: String, Sendable, Equatable, CaseIterable {
        /// The password is changed and `poll_completion` answers `succeeded`.
        case succeed
        /// The password is left as it was and `poll_completion` answers `failed`; the new password
        /// may then be submitted again.
        case fail
    }

    /// Which of a user's methods a V2 password reset offers for recovery
    /// (``nativeAuthV2RecoveryMethods``).
    public enum RecoveryMethods: String, Sendable, Equatable, CaseIterable {
        /// The user's email method only.
        case email
        /// The email method, then the user's SMS methods (``EmulatedUser/mfaMethods`` whose
        /// channel is `sms`), in their order.
        case emailAndSMS
        /// The user's SMS methods only; a user without one is offered the email method.
        case sms
    }

    /// Whether, and how, the tenant takes pushed authorization requests (RFC 9126).
    public enum PushedAuthorizationRequests: String, Sendable, Equatable, CaseIterable {
        /// Not taken, as with Entra: the discovery document names no
        /// `pushed_authorization_request_endpoint`, `oauth2/v2.0/par` answers 404, and the
        /// authorization endpoint reads its parameters from the URL only.
        case off
        /// Taken: the discovery document names the endpoint (with
        /// `require_pushed_authorization_requests: false`), and the authorization endpoint takes
        /// either a `request_uri` or the parameters in the URL.
        case offered
        /// Required (`require_pushed_authorization_requests: true`, RFC 9126 §5): the authorization
        /// endpoint refuses a request without a `request_uri` with `invalid_request` (RFC 9126 §4).
        case required
    }

    /// The metadata documents the tenant publishes for OpenID Connect and OAuth clients.
    public enum DiscoveryDocuments: String, Sendable, Equatable, CaseIterable {
        /// The OpenID Connect discovery document at `{issuer}/.well-known/openid-configuration`
        /// (``EmulatorEndpoint/openIDConfiguration``), as Entra; no RFC 8414 document.
        case openIDConnect
        /// Only RFC 8414 authorization server metadata, at
        /// `/.well-known/oauth-authorization-server/{tenantId}/v2.0` (the well-known segment
        /// between the host and the issuer's path, RFC 8414 §3), as a first-party-only
        /// authorization server publishes it: the same members as the OpenID document but for
        /// `authorization_endpoint`, `end_session_endpoint` and the pushed authorization request
        /// endpoint, which it does not serve. The OpenID document's path answers 404.
        case authorizationServerOnly
        /// The RFC 8414 document as for ``authorizationServerOnly``, with an OpenID document of
        /// another issuer (`https://{host}/`, as a host's root document) at the OpenID path, which
        /// a client must not take for the tenant's.
        case foreignOpenIDDocument
    }

    /// Whether, and how, the tenant takes DPoP proofs (RFC 9449) with the token requests of browser
    /// sign-ins and at its protected resource.
    public enum DPoPMode: String, Sendable, Equatable, CaseIterable {
        /// Not taken, as with Entra, whose discovery document has no
        /// `dpop_signing_alg_values_supported`: a `DPoP` header is not read (RFC 9449 §5: a server
        /// that does not take DPoP issues Bearer tokens), and every token is a Bearer token.
        case off
        /// Taken when sent: a token request with a valid proof gets tokens bound to its key
        /// (`token_type` `DPoP`), one without gets Bearer tokens as before.
        case offered
        /// Required: a web token request (the `authorization_code` grant, the refresh of a browser
        /// sign-in's refresh token) without a proof is refused with `invalid_dpop_proof`.
        case required
    }

    /// The number of digits of every one-time code.
    public var codeLength: Int = 8
    /// How long a continuation token stays usable, in seconds.
    public var continuationTokenLifetime: TimeInterval = 600
    /// How long an access token and an id token stay valid, in seconds.
    public var accessTokenLifetime: TimeInterval = 3600
    /// How long a refresh token stays usable, in seconds.
    public var refreshTokenLifetime: TimeInterval = 86_400 * 90
    /// Whether a refresh returns a new refresh token.
    public var rotateRefreshTokens: Bool = true
    /// Whether a rotated-out refresh token stops working (only with ``rotateRefreshTokens``).
    public var revokeRotatedRefreshTokens: Bool = true
    /// Attributes sign-up collects. Missing required ones make `signup/v1.0/continue` answer
    /// `attributes_required`; values must match ``EmulatedRequiredAttribute/regex`` when it is set.
    public var requiredSignUpAttributes: [EmulatedRequiredAttribute] = []
    /// Whether the tenant signs new users up. When `false`, `signup/v1.0/start` for a new username
    /// answers `unauthorized_client` (Entra's answer for a user flow with sign-up turned off is
    /// not documented; Docs/Protocol.md says what the SDK reads from any such refusal).
    public var signUpEnabled: Bool = true
    /// Whether the V2 sign-up journey's user flow is email with password (`true`) or email
    /// one-time code (`false`): with a password, `collectAttributes` lists `password` and the user
    /// is created only once one is given. V1 sign-up asks for a password when the client offers the
    /// `password` challenge type instead. With sign-up off (``signUpEnabled``), the
    /// `authorize-challenge` answer carries no `sign_up` link and `api/v2.0/signup/start` answers 404.
    public var signUpCollectsPassword: Bool = true
    /// The shortest password accepted (`password_too_short` below it).
    public var passwordMinLength: Int = 8
    /// The longest password accepted (`password_too_long` above it).
    public var passwordMaxLength: Int = 256
    /// Passwords refused with `password_banned`, compared case-insensitively.
    public var bannedPasswords: Set<String> = [
        "password", "password1", "password1!", "password123", "p@ssw0rd", "12345678", "qwerty123",
    ]
    /// How many times `resetpassword/v1.0/poll_completion` answers `in_progress` before the job ends.
    public var resetPollsBeforeCompletion: Int = 2
    /// The `poll_interval` returned by `resetpassword/v1.0/submit`, in seconds.
    public var resetPollInterval: Int = 1
    /// How the password-reset job ends.
    public var resetJobOutcome: ResetJobOutcome = .succeed
    /// Whether every user needs a second factor, even one with no ``EmulatedUser/mfaMethods``
    /// (such a user must then register a method first).
    public var mfaRequiredForAll: Bool = false
    /// Method ids (on MFA challenges) and contact addresses (on registration challenges) that the
    /// tenant refuses with `access_denied` / `provider_blocked_by_rep`.
    public var blockedMethodIds: Set<String> = []
    /// Seconds added to the clock for everything the server reports: the `Date` header, token
    /// `iat`/`nbf`/`exp`, and the expiry checks. Use it to test clock-skew handling.
    public var serverClockOffset: TimeInterval = 0
    /// Whether answers include the optional fields `interval`, `expires_in` (on continue steps)
    /// and `code_length`. Turn off to check that a client copes without them.
    public var includeOptionalFields: Bool = true

    /// Seconds every answer takes, on the tenant's clock (0: answers at once). The wait honours
    /// task cancellation.
    public var latency: TimeInterval = 0

    /// The redirect URIs registered for the app, for browser sign-in (`oauth2/v2.0/authorize`) and
    /// sign-out (`post_logout_redirect_uri`). A loopback `http` URI (`127.0.0.1`, `localhost`,
    /// `[::1]`) matches on any port, as with Entra. When empty (the default), every absolute URI
    /// without a fragment counts as registered if it is `https`, loopback `http`, or an app's own
    /// scheme. List URIs to test what a wrong one does.
    public var redirectURIs: [String] = []
    /// How long an authorization code can be exchanged for tokens, in seconds (Entra's live about
    /// ten minutes).
    public var authorizationCodeLifetime: TimeInterval = 600
    /// Whether the tenant takes pushed authorization requests (RFC 9126) at
    /// ``EmulatorEndpoint/pushedAuthorizationRequest``: ``PushedAuthorizationRequests/off`` (the
    /// default, as Entra, whose discovery document names no such endpoint),
    /// ``PushedAuthorizationRequests/offered`` or ``PushedAuthorizationRequests/required``.
    public var pushedAuthorizationRequests: PushedAuthorizationRequests = .off
    /// How long the `request_uri` of a pushed authorization request can be used at the
    /// authorization endpoint, in seconds: the `expires_in` of the answer (at least 1).
    public var pushedAuthorizationRequestLifetime: TimeInterval = 60

    /// Whether the tenant takes DPoP proofs (RFC 9449) for the tokens of browser sign-ins:
    /// ``DPoPMode/off`` (the default, as Entra), ``DPoPMode/offered`` or ``DPoPMode/required``.
    /// The native API's own grants never read a proof.
    public var dpop: DPoPMode = .off
    /// Whether the token endpoint and the protected resource demand a server nonce in every proof
    /// (RFC 9449 §8, §9): a proof without the current nonce is answered `use_dpop_nonce` with a
    /// `DPoP-Nonce` header. Only with ``dpop`` on.
    public var dpopNonces: Bool = false
    /// How long each nonce is handed out, in seconds of the tenant's clock (at least 1): the nonce
    /// changes at every multiple of this time, and the one before it is still accepted for one more
    /// such period.
    public var dpopNonceLifetime: TimeInterval = 300
    /// How far a proof's `iat` may be from the tenant's time, in seconds, either way (RFC 9449
    /// §11.1); a proof's `jti` is remembered as long as the proof could be accepted.
    public var dpopProofLifetime: TimeInterval = 60

    /// The public key of the web client's `private_key_jwt` assertions (OpenID Connect Core §9), as
    /// the members of a JSON Web Key (RFC 7517 §4): `kty` `RSA` with `n` and `e`, `EC` with `crv`
    /// `P-256`, `x` and `y`, or `OKP` with `crv` `Ed25519` and `x`. When set, the client is
    /// confidential: the token requests of browser sign-ins, pushed authorization requests and
    /// authorization challenge requests must carry an assertion this key verifies (RFC 7523 §2.2,
    /// §3), `invalid_client` with `401` otherwise. `nil` (the default): client authentication is not
    /// checked, as for a public client.
    public var clientAssertionKey: [String: String]? = nil

    /// Whether the tenant serves OAuth 2.0 for First-Party Applications
    /// (draft-ietf-oauth-first-party-apps): the discovery document names
    /// ``EmulatorEndpoint/authorizationChallenge`` as its `authorization_challenge_endpoint`, which
    /// answers `username` and `password` (or a one-time code after `insufficient_authorization`)
    /// with an authorization code. Off by default, as Entra, whose discovery document names no
    /// such endpoint: its native authentication is the API of Docs/Protocol.md and
    /// Docs/NativeAuthV2Protocol.md. When `false`, the path answers 404.
    public var authorizationChallengeEndpoint: Bool = false
    /// The metadata documents the tenant publishes; ``DiscoveryDocuments/openIDConnect`` (Entra's)
    /// by default.
    public var discoveryDocuments: DiscoveryDocuments = .openIDConnect
    /// Whether that endpoint speaks an identifier-first profile: a first request with the username
    /// of a password user and no `password` is answered `403` `insufficient_authorization` with an
    /// `auth_session` and `password_required: true` (a member of the tenant's own profile, named
    /// as the draft's Appendix B.2 names `otp_required`), and the password comes back with the
    /// `auth_session` as `password`. Off by default: such a request is then `invalid_request`. A
    /// first request that carries the password is answered the same either way.
    public var authorizationChallengeIdentifierFirst: Bool = false

    /// Whether the tenant serves Native Auth V2, the server-driven protocol of Docs/NativeAuthV2Protocol.md:
    /// ``EmulatorEndpoint/authorizeChallenge``, the sign-in journey's links under `api/v2.0/`, and
    /// the `authorization_code` grant of the codes they lead to. On by default: its paths are not
    /// the V1 paths, so V1 clients see no difference. When `false`, those paths answer 404, as a
    /// service without V2 would.
    public var nativeAuthV2: Bool = true
    /// Whether a V2 `signin/start` offers the user every first-factor method to choose from (the
    /// password, when the user has one, and an email code, each with its own `challenge` link)
    /// instead of the one the tenant picks (the password when the user has one, else a code).
    /// Off by default.
    public var nativeAuthV2FirstFactorChoice: Bool = false
    /// Whether the password method of a V2 sign-in offers its `recover` link (inline password
    /// reset, ``EmulatorEndpoint/v2PasswordRecover``): on the method where a `challenge` lists it,
    /// and at the top level of the password `verify` answer. On by default; off, the sign-in's
    /// answers have no `recover` link and the path answers `404`, as a service without inline
    /// reset would.
    public var nativeAuthV2PasswordRecovery: Bool = true
    /// The methods a V2 password reset offers for recovery (the answer to the `reset_password` and
    /// `recover` links): the email method (the default), or with it or instead of it the user's
    /// SMS methods, each with its own `challenge` link. Users without an SMS method are offered
    /// the email method whatever the setting.
    public var nativeAuthV2RecoveryMethods: RecoveryMethods = .email
    /// Whether the first `challenge` of an SMS method in a V2 flow (a second factor, a recovery
    /// method) answers `action: riskverify` with the method's `riskverify` link instead of sending
    /// the code; the code is sent, and the `verify` answer given, when the client posts that link
    /// with the answer's continuation token (Docs/NativeAuthV2.md, "Risk verification"). Later
    /// challenges of the same method in the flow (a resend) send the code at once. Off by default.
    public var nativeAuthV2SMSRiskVerification: Bool = false
    /// Whether a V2 sign-up whose first `submitAttributes` has no `password` asks for it there,
    /// before the code is sent (`collectAttributes` naming `password` alone), instead of after the
    /// code. With ``signUpCollectsPassword`` only. Off by default.
    public var nativeAuthV2SignUpPasswordBeforeCode: Bool = false
    /// Whether a V2 sign-up's first `submitAttributes` is answered by asking for `email` again, the
    /// attribute it has just received: an answer a client must end the flow on ("attribute already
    /// submitted", Docs/NativeAuthV2.md, "Sign-up over V2"). Off by default.
    public var nativeAuthV2SignUpAsksAgain: Bool = false
    /// Whether a V2 `challenge` answer leaves out `challengeContext` (its
    /// `authenticationFactor`): an answer whose screen a client cannot tell, which it must end the
    /// flow on. Off by default.
    public var nativeAuthV2ChallengeWithoutFactor: Bool = false
    /// Whether the V2 resume answer names its code `authorization_code`, as the First-Party Apps
    /// draft's code answer does, instead of `code`. Off by default.
    public var nativeAuthV2DraftCodeName: Bool = false

    /// Creates the default settings.
    public init() {}
}

/// A user attribute collected at sign-up, as reported in `required_attributes`.
public struct EmulatedRequiredAttribute: Sendable, Equatable {
    /// The attribute name, such as `"displayName"` or `"city"`.
    public var name: String
    /// The attribute type as the server names it: `"string"`, `"boolean"`, `"int"` or `"dateTime"`.
    public var type: String
    /// Whether sign-up cannot finish without it.
    public var required: Bool
    /// A regular expression the whole value must match, or `nil` for any value.
    public var regex: String?

    /// Creates an attribute definition.
    public init(name: String, type: String = "string", required: Bool = true, regex: String? = nil) {
        self.name = name
        self.type = type
        self.required = required
        self.regex = regex
    }
}
