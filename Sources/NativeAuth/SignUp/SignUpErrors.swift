import Foundation

/// Why ``NativeAuthClient/signUp(_:)`` failed.
public struct SignUpStartError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// A user with this username already exists (`user_already_exists`, 1003037).
    public var isUserAlreadyExists: Bool { kind == .userAlreadyExists }
    /// The username is empty or not valid.
    public var isInvalidUsername: Bool { kind == .invalidUsername }
    /// The password is empty or the tenant's policy refused it (see ``passwordPolicyViolation``).
    public var isInvalidPassword: Bool {
        if case .invalidPassword = kind { return true }
        return false
    }
    /// Why the password policy refused the password, when it did.
    public var passwordPolicyViolation: PasswordPolicyViolation? {
        if case .invalidPassword(let violation) = kind { return violation }
        return nil
    }
    /// An attribute name or value cannot be sent (checked before any request);
    /// ``invalidAttributes`` names it.
    public var isInvalidAttributes: Bool { kind == .attributesInvalid }
    /// The names of the attributes that cannot be sent.
    public var invalidAttributes: [String] { details.invalidAttributes }

    static var naming: ErrorNaming {
        ErrorNaming([.userAlreadyExists, .passwordPolicy, .invalidUsername, .attributesRequired])
    }

    /// ``naming`` at `start`; the code it asks for next names nothing of its own.
    static func naming(at endpoint: Endpoint) -> ErrorNaming { endpoint == .signUpStart ? naming : .none }
}

/// Why submitted sign-up attributes were not accepted.
public struct AttributesRequiredError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// Some values were refused (`attribute_validation_failed`), or could not be encoded; the
    /// state stays usable. ``invalidAttributes`` names them.
    public var isInvalidAttributes: Bool { kind == .attributesInvalid }
    /// The names of the refused attributes.
    public var invalidAttributes: [String] { details.invalidAttributes }

    static var naming: ErrorNaming { .signUpContinue }
}

extension ErrorNaming {
    /// The sign-up `continue` steps: what any code step may hear, plus refused attributes.
    /// (`user_already_exists` and `user_not_found` are named for every step.)
    static var signUpContinue: ErrorNaming {
        ErrorNaming([.invalidCode, .userNotFound, .verificationRequired, .attributesInvalid])
    }
}

/// Why sign-in after sign-up failed.
public struct SignInAfterSignUpError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The user was created, but the server gave no token to sign in with: ask the user to sign
    /// in normally.
    public var isSignInUnavailable: Bool { kind == .signInUnavailable }

    static var naming: ErrorNaming { ErrorNaming([.userNotFound]) }
}

extension VerifyCodeError {
    /// Sign-up: a user with this username was created meanwhile (`user_already_exists`).
    public var isUserAlreadyExists: Bool { kind == .userAlreadyExists }
    /// Sign-up or reset: an attribute must be verified first (`verification_required`).
    public var isVerificationRequired: Bool { kind == .verificationRequired }
}

extension PasswordRequiredError {
    /// Sign-up: a user with this username was created meanwhile (`user_already_exists`).
    public var isUserAlreadyExists: Bool { kind == .userAlreadyExists }
    /// Sign-up: an attribute must be verified first (`verification_required`).
    public var isVerificationRequired: Bool { kind == .verificationRequired }
}

extension AttributesRequiredError {
    /// A user with this username was created meanwhile (`user_already_exists`).
    public var isUserAlreadyExists: Bool { kind == .userAlreadyExists }
    /// An attribute must be verified first (`verification_required`).
    public var isVerificationRequired: Bool { kind == .verificationRequired }
}

extension SignUpStartError {
    /// The server wants attributes that sign-up did not give (`attributes_required` at the
    /// start): start again with them in ``SignUpParameters/attributes``.
    public var isAttributesRequired: Bool { kind == .attributesRequired }
}

/// Why ``NativeAuthClient/signUpOrSignIn(_:)`` failed.
public struct SignUpOrSignInStartError: DetailedError {
    /// Everything the error carries.
    public let details: NativeAuthErrorDetails
    init(details: NativeAuthErrorDetails) { self.details = details }

    /// The username is empty or not valid (checked before any request, or `invalid_request` 90100).
    public var isInvalidUsername: Bool { kind == .invalidUsername }
    /// An attribute name or value cannot be sent (checked before any request);
    /// ``invalidAttributes`` names it.
    public var isInvalidAttributes: Bool { kind == .attributesInvalid }
    /// The names of the attributes that cannot be sent.
    public var invalidAttributes: [String] { details.invalidAttributes }
    /// The tenant requires attributes that were not given (`attributes_required` at sign-up):
    /// start again with them.
    public var isAttributesRequired: Bool { kind == .attributesRequired }
    /// No user has this username, and the server refused to sign one up: sign-up is turned off
    /// for the app, or not allowed for this username. The server's own answer is in the raw
    /// fields (``NativeAuthError/serverError``, ``NativeAuthError/serverErrorDescription``).
    public var isSignUpUnavailable: Bool { kind == .signUpUnavailable }
    /// A user with this username was created between the sign-in and the sign-up requests:
    /// start again, and the user signs in.
    public var isUserAlreadyExists: Bool { kind == .userAlreadyExists }
}
