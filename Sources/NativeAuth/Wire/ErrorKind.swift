/// What went wrong, for every error type of the SDK. Public error types answer `isXxx` from it.
enum ErrorKind: Sendable, Equatable {
    case browserRequired
    case configuration
    case network
    case cancelled
    case unexpectedResponse
    case flowExpired
    case stateSpent
    case stateBusy
    case missingDelegateMethod(String)
    case invalidUsername
    case userNotFound
    case invalidCredentials
    case invalidPassword(PasswordPolicyViolation?)
    case invalidCode
    case userAlreadyExists
    case attributesInvalid
    case attributesRequired
    case verificationRequired
    case userHasNoPassword
    case invalidInput
    case methodBlocked
    case refreshTokenExpired
    case noAccount
    case storage
    case passwordResetFailed
    case passwordResetPending
    case accountLocked
    case accountDisabled
    case passwordExpired
    case passwordChangeRequired
    case strongAuthenticationRequired
    case interactionRequired
    case accountMismatch
    case signInUnavailable
    case signUpUnavailable
    case proofOfPossession
    case invalidArgument
    /// The person did not confirm their presence before a refresh (``UserPresenceRequirement``).
    case userPresence(UserPresenceError.Reason)
    case general

    /// Whether the state an action was called on stays usable after this error: the user can
    /// correct the input or simply try again.
    var leavesStateUsable: Bool {
        switch self {
        case .invalidCode, .invalidPassword, .invalidCredentials, .network, .cancelled, .unexpectedResponse,
            .stateBusy, .attributesInvalid, .invalidInput, .methodBlocked, .general,
            .storage, .invalidUsername, .passwordResetFailed, .passwordResetPending, .interactionRequired,
            .accountMismatch, .invalidArgument, .proofOfPossession, .userPresence:
            true
        case .browserRequired, .configuration, .flowExpired, .stateSpent, .missingDelegateMethod, .userNotFound,
            .userAlreadyExists,
            .attributesRequired, .verificationRequired, .userHasNoPassword, .refreshTokenExpired, .noAccount,
            .accountLocked, .accountDisabled, .passwordExpired, .passwordChangeRequired, .strongAuthenticationRequired,
            .signInUnavailable, .signUpUnavailable:
            false
        }
    }

    /// A plain-language sentence for the kind.
    var sentence: String {
        switch self {
        case .browserRequired: "The server cannot continue natively; sign in with the browser instead."
        case .configuration:
            "The app is not configured for native authentication (unknown client id, not a public client, or native authentication is off for it)."
        case .network: "The server could not be reached."
        case .cancelled: "The operation was cancelled."
        case .unexpectedResponse: "The server gave an answer the SDK could not use."
        case .flowExpired: "The flow expired; start again."
        case .stateSpent: "This state was already used; continue with the state its action returned."
        case .stateBusy: "Another action on this state is still in progress."
        case .missingDelegateMethod(let name): "The delegate does not implement \(name)."
        case .invalidUsername: "The username is not valid."
        case .userNotFound: "No user has this username."
        case .invalidCredentials: "The username or password is wrong."
        case .invalidPassword(let violation?): "The password is not valid: \(violation)."
        case .invalidPassword(nil): "The password is not valid."
        case .invalidCode: "The code is not valid."
        case .userAlreadyExists: "A user with this username already exists."
        case .attributesInvalid: "Some attributes are not valid."
        case .attributesRequired: "More attributes are required."
        case .verificationRequired: "An attribute must be verified first."
        case .userHasNoPassword: "This user has no password to reset."
        case .invalidInput: "The contact is not valid."
        case .methodBlocked: "This method or contact is blocked; choose another."
        case .refreshTokenExpired: "The session expired; the user must sign in again."
        case .noAccount: "No account is signed in."
        case .storage: "The credential store could not be read or written."
        case .passwordResetFailed: "The password reset failed on the server."
        case .passwordResetPending: "The server has not finished resetting the password yet."
        case .accountLocked:
            "The account is locked after too many failed sign-in attempts; it unlocks after a while, or an administrator can unlock it."
        case .accountDisabled: "The account is disabled; an administrator must enable it."
        case .passwordExpired: "The password has expired; the user must reset it."
        case .passwordChangeRequired: "The user must change the password before signing in."
        case .strongAuthenticationRequired:
            "The tenant requires a stronger sign-in than this flow offers; sign in with the browser instead."
        case .interactionRequired:
            "The user must sign in interactively (consent, a second factor or a claims challenge); the account is kept."
        case .accountMismatch:
            "The server answered for another account than the signed-in one; nothing was stored."
        case .signInUnavailable:
            "The server gave no token to sign in with after this flow; ask the user to sign in."
        case .signUpUnavailable:
            "No user has this username, and the server did not sign one up (sign-up may be turned off for the app)."
        case .proofOfPossession:
            "The DPoP key could not be read back or sign, or the server refused its proof; the account is kept."
        case .invalidArgument: "An argument is not valid; nothing was sent."
        case .userPresence(let reason): UserPresenceError.sentence(reason)
        case .general: "The server refused the request."
        }
    }
}
