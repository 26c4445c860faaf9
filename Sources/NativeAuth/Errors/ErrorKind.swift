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
    case general

    /// Whether the state an action was called on stays usable after this error: the user can
    /// correct the input or simply try again.
    var leavesStateUsable: Bool {
        switch self {
        case .invalidCode, .invalidPassword, .invalidCredentials, .network, .cancelled, .unexpectedResponse,
            .stateBusy, .attributesInvalid, .invalidInput, .methodBlocked, .general,
            .storage, .invalidUsername, .passwordResetFailed, .passwordResetPending:
            true
        case .browserRequired, .configuration, .flowExpired, .stateSpent, .missingDelegateMethod, .userNotFound,
            .userAlreadyExists,
            .attributesRequired, .verificationRequired, .userHasNoPassword, .refreshTokenExpired, .noAccount:
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
        case .general: "The server refused the request."
        }
    }
}
