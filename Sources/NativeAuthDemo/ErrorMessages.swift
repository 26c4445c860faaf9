import Foundation
import NativeAuth

/// One clear line for every error the SDK throws, built from the errors' `isXxx` questions.
enum ErrorMessage {
    static func of(_ error: SignInStartError) -> String {
        if error.isUserNotFound { return "No account uses this email address." }
        if error.isInvalidUsername { return "That is not a valid email address." }
        if error.isInvalidCredentials { return "Wrong password." }
        return common(error)
    }

    static func of(_ error: VerifyCodeError) -> String {
        if error.isInvalidCode { return "That code is not right (or it expired). Check the email and try again." }
        return common(error)
    }

    static func of(_ error: ResendCodeError) -> String {
        "A new code could not be sent. " + common(error)
    }

    static func of(_ error: PasswordRequiredError) -> String {
        if error.isInvalidPassword { return "Wrong password." }
        if error.isUserNotFound { return "The account no longer exists." }
        return common(error)
    }

    /// For a password being chosen (sign-up, password reset) rather than checked.
    static func ofNewPassword(_ error: PasswordRequiredError) -> String {
        if let violation = error.passwordPolicyViolation { return "That password is \(reason(violation))." }
        if error.isInvalidPassword { return "That password is not accepted; choose another one." }
        if error.isPasswordResetFailed { return "The server could not change the password; please enter it again." }
        return of(error)
    }

    /// Why the tenant's password policy refused a password, with what to do about it.
    static func reason(_ violation: PasswordPolicyViolation) -> String {
        switch violation {
        case .tooShort: "too short: at least 8 characters"
        case .tooLong: "too long: at most 256 characters"
        case .tooWeak: "too weak: mix upper/lower case, digits and symbols"
        case .recentlyUsed: "recently used: choose one you have not used before"
        case .banned: "too common: choose one that is harder to guess"
        case .invalid: "not allowed: it holds characters the tenant refuses"
        case .other(let suberror): "refused by the tenant's policy (\(suberror))"
        }
    }

    static func of(_ error: SignUpStartError) -> String {
        if error.isUserAlreadyExists {
            return "An account already uses this email address: sign in, or reset its password if you forgot it."
        }
        if error.isInvalidUsername { return "That is not a valid email address." }
        if let violation = error.passwordPolicyViolation { return "That password is \(reason(violation))." }
        if error.isInvalidPassword { return "That password is not accepted; choose another one." }
        if error.isInvalidAttributes { return "Not accepted: " + error.invalidAttributes.joined(separator: ", ") + "." }
        return common(error)
    }

    static func of(_ error: SignUpOrSignInStartError) -> String {
        if error.isSignUpUnavailable {
            return "No account uses this email address, and this tenant does not sign new users up."
        }
        if error.isInvalidUsername { return "That is not a valid email address." }
        if error.isInvalidAttributes { return "Not accepted: " + error.invalidAttributes.joined(separator: ", ") + "." }
        if error.isAttributesRequired { return "The tenant needs more details to sign up; use \"Sign up\"." }
        return common(error)
    }

    static func of(_ error: AttributesRequiredError) -> String {
        if error.isInvalidAttributes {
            let names = error.invalidAttributes
            let list = names.isEmpty ? "some values" : names.joined(separator: ", ")
            return "Not accepted: \(list). Please enter \(names.count == 1 ? "it" : "them") again."
        }
        return common(error)
    }

    static func of(_ error: ResetPasswordStartError) -> String {
        if error.isUserNotFound { return "No account uses this email address." }
        if error.isUserDoesNotHavePassword {
            return "This account signs in with an email code and has no password to reset."
        }
        if error.isInvalidUsername { return "That is not a valid email address." }
        return common(error)
    }

    static func of(_ error: MFARequestChallengeError) -> String {
        if error.isMethodBlocked { return "This method is blocked right now; choose another one." }
        return "No code could be sent. " + common(error)
    }

    static func of(_ error: MFASubmitChallengeError) -> String {
        if error.isInvalidChallenge { return "That code is not right (or it expired). Check the email and try again." }
        return common(error)
    }

    static func of(_ error: RegisterStrongAuthChallengeError) -> String {
        if error.isInvalidInput { return "That contact is not valid for this method; check it and try again." }
        if error.isMethodBlocked { return "That contact is blocked; use another one." }
        return common(error)
    }

    static func of(_ error: RegisterStrongAuthSubmitChallengeError) -> String {
        if error.isInvalidChallenge { return "That code is not right (or it expired). Check the email and try again." }
        return common(error)
    }

    static func of(_ error: RetrieveAccessTokenError) -> String {
        if error.isRefreshTokenExpired { return "The session has expired; you were signed out. Please sign in again." }
        if error.isNoAccount { return "Nobody is signed in any more." }
        if error.isStorageError { return "The credential store could not be read or written." }
        return common(error)
    }

    static func of(_ error: WebSignInError) -> String {
        if error.isCancelled { return "The browser sign-in was cancelled." }
        if error.isAccessDenied { return "The sign-in was cancelled on the sign-in page." }
        if let agent = error.underlyingError as? ExternalUserAgentError {
            if agent.isTimedOut {
                return "Nobody signed in in the browser in time; choose the browser sign-in again to retry."
            }
            if agent.isBrowserLaunchFailed { return "No browser could be opened: \(agent.description)" }
        }
        return "The browser sign-in failed: \(error.description)"
    }

    /// What every step can answer.
    static func common(_ error: some NativeAuthError) -> String {
        if error.isBrowserRequired {
            let reason = error.redirectReason.map { " Reason given: \($0)" } ?? ""
            return "This sign-in cannot be finished in the app; the server requires a browser." + reason
        }
        if error.isNetworkError { return "The server could not be reached. Check the connection and try again." }
        if error.isFlowExpired { return "This took too long and the flow expired. Please start again." }
        if error.isConfigurationError {
            return "The app is not set up for native authentication (check the client id and the tenant's settings)."
        }
        if error.isCancelled { return "Cancelled." }
        if error.isStateAlreadyUsed { return "This step was already completed; please start again." }
        if error.isStateBusy { return "Still working on the previous request; try again in a moment." }
        let text = error.errorDescription ?? "Something went wrong."
        return text + " (correlation id \(error.correlationId.uuidString.lowercased()))"
    }
}
