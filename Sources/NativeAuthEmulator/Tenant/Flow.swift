import Foundation

/// What a continuation token stands for: one flow of one user, at one step, until a deadline.
///
/// A token is consumed by the step that moves its flow forward; the flow is then stored again
/// under a fresh token. An answer that leaves the flow where it was (a wrong code, a weak
/// password) keeps the token usable.
struct Flow: Sendable {
    enum Kind: String, Sendable {
        case signIn = "sign-in"
        case signUp = "sign-up"
        case resetPassword = "password reset"
        case registration = "method registration"
        /// A Native Auth V2 authorization, from `authorize-challenge` to its `code`.
        case authorization = "V2 authorization"
    }

    enum Stage: String, Sendable {
        // Sign-in
        case initiated, passwordChallenged, oobChallenged, mfaRequired, mfaChallenged
        // Sign-up and password reset
        case started, codeSent, credentialRequired, attributesRequired
        case verified, submitted, failed
        // Method registration
        case registrationRequired, registrationChallenged, registrationPreverified
        /// Finished: the token can only be spent on `oauth2/v2.0/token` (grant `continuation_token`).
        case completed
        // Native Auth V2: no journey yet; a first-factor method list, code or password; a
        // second-factor method list or code; the journey done (the token resumes authorization).
        case authorizationStarted, firstFactorOffered, firstFactorCodeSent, passwordRequested
        case secondFactorOffered, secondFactorCodeSent, journeyFinished
        // Native Auth V2 password reset: the email method offered, its code sent, the new password
        // asked for, the update being polled (then `journeyFinished`).
        case recoveryOffered, recoveryCodeSent, newPasswordRequested, passwordUpdating
        // Native Auth V2 sign-up: attributes asked before the code, the code sent, more asked after it.
        case signUpAttributesRequested, signUpCodeSent, signUpMoreRequested
        // Native Auth V2 method registration (JIT): the methods offered, the code sent to the contact.
        case registrationOffered, registrationCodeSent
    }

    var kind: Kind
    /// The user's name as the flow was started with it.
    var username: String
    var stage: Stage
    var expiresAt: Date
    /// `capabilities` sent when the flow started.
    var capabilities: Set<String>
    /// `challenge_type` values sent when the flow started.
    var offeredChallengeTypes: Set<String>
    /// The one code that is currently valid, if any.
    var code: String?

    // Sign-up
    var password: String?
    var attributes: [String: String] = [:]

    // MFA
    var methodId: String?
    /// The SMS method whose `riskverify` link the flow's last answer gave, until it is posted.
    var riskVerificationPending: String?
    /// The SMS methods whose phone the flow has verified: their challenges send the code at once.
    var riskVerified: Set<String> = []

    // Method registration
    var registrationTarget: String?
    var registrationChannel: String?

    // Password reset
    var newPassword: String?
    var polls = 0

    init(kind: Kind, username: String, stage: Stage, capabilities: Set<String>, offeredChallengeTypes: Set<String>) {
        self.kind = kind
        self.username = username
        self.stage = stage
        self.expiresAt = .distantPast
        self.capabilities = capabilities
        self.offeredChallengeTypes = offeredChallengeTypes
    }
}

/// What the tenant keeps about a refresh token: whose it is, until when it works, whether it
/// was revoked (by rotation or by ``EmulatedTenant/revokeRefreshTokens(for:)``), and whether it
/// came from a browser sign-in (its refreshes then sign their ID tokens). A refresh token carries
/// no scopes: each refresh asks for the scopes it wants.
struct RefreshTokenRecord: Sendable, Equatable {
    var username: String
    var expiresAt: Date
    var revoked = false
    var signsIDTokens = false
    /// The JWK thumbprint of the DPoP key the token is bound to (RFC 9449 §5), or `nil` when it is
    /// not bound: refreshing it then needs a proof made with that key.
    var dpopKey: String? = nil
    /// The authentication of the sign-in the token comes from (browser and first-party sign-ins):
    /// every token it refreshes carries its `auth_time` and `acr` (RFC 9470 §6.1).
    var authentication: AuthenticationEvent? = nil
}
