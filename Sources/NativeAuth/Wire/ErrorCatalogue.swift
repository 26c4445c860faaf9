import Foundation

/// How the SDK reads a server error: the one place where `error`, `suberror`, `error_codes`
/// and `error_description` values are matched.
///
/// Rules, as Microsoft's own clients read the same answers:
/// - Only the **first** error code counts (`error_codes[0]`); codes further down the list are
///   detail, never an outcome.
/// - A code counts only under the `error` it belongs to: 50034 under `invalid_request` is not
///   "user not found".
/// - A wrong password is `invalid_grant` with first code 50126 and no suberror, nothing else.
extension ServerError {
    func isError(_ value: String) -> Bool { error.caseInsensitiveCompare(value) == .orderedSame }
    func isSuberror(_ value: String) -> Bool { suberror?.caseInsensitiveCompare(value) == .orderedSame }
    /// `error` or `suberror` is `value`.
    func names(_ value: String) -> Bool { isError(value) || isSuberror(value) }

    // MARK: Every step

    /// The app is misconfigured: not a public client, native auth off, unknown or confidential
    /// client, or a `client_id` the server calls not valid (90100 about `client_id`).
    var isConfigurationError: Bool { has(.configuration) }

    /// The continuation token is unknown, used up or expired: the flow cannot go on.
    var isInvalidContinuationToken: Bool { has(.invalidContinuationToken) }

    /// No such user (`user_not_found`, or 50034 first on the token endpoint's `invalid_grant`).
    var isUserNotFound: Bool { has(.userNotFound) }

    /// A user with this username exists (`user_already_exists`).
    var isUserAlreadyExists: Bool { has(.userAlreadyExists) }

    /// The username is empty or not valid: 90100 first, with a description about the username
    /// (90100 is "a parameter is empty or not valid" for any parameter).
    var isInvalidUsername: Bool { has(.invalidUsername) }

    /// A wrong one-time code (`invalid_oob_value`, or 50181 first under `invalid_grant`).
    var isInvalidCode: Bool { has(.invalidCode) }

    /// An attribute must be verified first.
    var isVerificationRequired: Bool { has(.verificationRequired) }

    /// The method or contact is blocked (`provider_blocked_by_rep`, or 550024 first).
    var isMethodBlocked: Bool { has(.methodBlocked) }

    /// The password was refused by the tenant's password policy, with the specific reason.
    var passwordPolicyViolation: PasswordPolicyViolation? {
        guard has(.passwordPolicy), let suberror else { return nil }
        return PasswordPolicyViolation(wire: suberror)
    }

    /// An error answer that consumes the continuation token and moves the flow on to another step
    /// (a second factor, method registration, a password or attributes at sign-up).
    var movesFlow: Bool { continuationToken != nil && NextStep.anyStep.contains { $0.matches(self) } }

    // MARK: Password steps

    /// What `invalid_grant` on a step that checks a password means, by its first code; `nil` for
    /// anything else. Only 50126 is a wrong password.
    var passwordStepKind: ErrorKind? { has(.passwordStep) ? kind(of: .passwordStep) : nil }

    /// A few codes, so a list rather than a dictionary of its own type.
    static let passwordStepCodes: [(code: Int, kind: ErrorKind)] = [
        (50126, .invalidCredentials),
        (50053, .accountLocked),
        (50057, .accountDisabled),
        (50055, .passwordExpired),
        (50142, .passwordChangeRequired),
        (50133, .passwordChangeRequired),
        (50132, .passwordChangeRequired),
        (50076, .strongAuthenticationRequired),
        (50079, .strongAuthenticationRequired),
    ]

    /// The kind ``passwordStepCodes`` gives `code`.
    static func passwordStepKind(_ code: Int) -> ErrorKind? {
        passwordStepCodes.first { $0.code == code }?.kind
    }

    // MARK: Refresh

    /// What a refused refresh means: the refresh token is dead (sign the user out), or the user
    /// must interact (keep the account and its refresh token); `nil` for any other error.
    ///
    /// Dead: `bad_token` or `user_account_deleted`, or a first code of an expired, revoked or
    /// invalidated grant. Interaction: consent, multi-factor or conditional access, a claims
    /// challenge, `interaction_required`, and any other `invalid_grant`.
    var refreshKind: ErrorKind? {
        let grantError = isError("invalid_grant") || isError("expired_token") || isError("interaction_required")
        guard grantError || isError("consent_required") || isError("login_required") else { return nil }
        if isSuberror("bad_token") || isSuberror("user_account_deleted")
            || (grantError && firstCode.map(Self.deadGrantCodes.contains) == true)
        {
            return .refreshTokenExpired
        }
        return .interactionRequired
    }

    static let deadGrantCodes: [Int] = [70008, 700082, 70043, 50173, 50132, 50133, 70000]

    // MARK: Helpers

    /// Whether the description names `parameter` (case-insensitive).
    func describes(_ parameter: String) -> Bool {
        errorDescription?.range(of: parameter, options: .caseInsensitive) != nil
    }
}

/// What a server error means for a flow, read from the table below: the catalogue of every
/// `error`, `suberror` and first error code the SDK acts on.
///
/// A step's error type names the meanings it reports, in order
/// (``ServerError/kind(naming:)``); anything else falls back to the meanings every step shares
/// (configuration, an expired flow, a missing or existing user).
enum ServerErrorMeaning: Sendable, Hashable, CaseIterable {
    case configuration
    case invalidContinuationToken
    case userNotFound
    case userAlreadyExists
    case invalidUsername
    case invalidCode
    case verificationRequired
    case methodBlocked
    /// A contact to register that is empty or not valid (901001).
    case invalidContact
    /// A user without a password asked to reset it (500222).
    case userHasNoPassword
    case attributesInvalid
    /// `attributes_required` as the error (sign-up start).
    case attributesRequired
    /// A `password_*` suberror: the tenant's policy refused a new password.
    case passwordPolicy
    /// `invalid_grant` without suberror on a password step, read by its first code.
    case passwordStep

    /// What the meaning is as an error kind; ``passwordPolicy`` and ``passwordStep`` read the
    /// error further.
    func kind(for error: ServerError) -> ErrorKind? {
        switch self {
        case .configuration: .configuration
        case .invalidContinuationToken: .flowExpired
        case .userNotFound: .userNotFound
        case .userAlreadyExists: .userAlreadyExists
        case .invalidUsername: .invalidUsername
        case .invalidCode: .invalidCode
        case .verificationRequired: .verificationRequired
        case .methodBlocked: .methodBlocked
        case .invalidContact: .invalidInput
        case .userHasNoPassword: .userHasNoPassword
        case .attributesInvalid: .attributesInvalid
        case .attributesRequired: .attributesRequired
        case .passwordPolicy: .invalidPassword(error.passwordPolicyViolation)
        case .passwordStep: error.firstCode.flatMap(ServerError.passwordStepKind)
        }
    }
}

/// One line of the catalogue: which answers carry a meaning. Every condition given must hold;
/// text is compared without regard to case.
struct ServerErrorRule: Sendable {
    var error: String? = nil
    var suberror: String? = nil
    /// `error` or `suberror`.
    var named: String? = nil
    var suberrorPrefix: String? = nil
    var withoutSuberror = false
    /// The first error code is one of these (any when empty); a few codes, so a list.
    var firstCodes: [Int] = []
    /// The description names this parameter.
    var describing: String? = nil

    func matches(_ answer: ServerError) -> Bool {
        if let error, !answer.isError(error) { return false }
        if let suberror, !answer.isSuberror(suberror) { return false }
        if let named, !answer.names(named) { return false }
        if let suberrorPrefix, answer.suberror?.lowercased().hasPrefix(suberrorPrefix) != true { return false }
        if withoutSuberror, answer.suberror != nil { return false }
        if !firstCodes.isEmpty, answer.firstCode.map(firstCodes.contains) != true { return false }
        if let describing, !answer.describes(describing) { return false }
        return true
    }
}

extension ServerError {
    /// The catalogue. Sources: Docs/Protocol.md ("Error answers"), and how Microsoft's clients read
    /// the same answers.
    static let catalogue: [(meaning: ServerErrorMeaning, rule: ServerErrorRule)] = [
        (.configuration, .init(error: "invalid_client")),
        (.configuration, .init(error: "unauthorized_client")),
        (.configuration, .init(suberror: "nativeauthapi_disabled")),
        (.configuration, .init(firstCodes: [550022, 700016])),
        (.configuration, .init(error: "invalid_request", firstCodes: [90100], describing: "client_id")),
        (.invalidContinuationToken, .init(error: "expired_token")),
        (.invalidContinuationToken, .init(error: "invalid_request", firstCodes: [55000, 55200, 55112, 552003])),
        (.userNotFound, .init(error: "user_not_found")),
        (.userNotFound, .init(error: "invalid_grant", firstCodes: [50034])),
        (.userAlreadyExists, .init(error: "user_already_exists")),
        (.invalidUsername, .init(error: "invalid_request", firstCodes: [90100], describing: "username")),
        (.invalidCode, .init(suberror: "invalid_oob_value")),
        (.invalidCode, .init(error: "invalid_grant", firstCodes: [50181])),
        (.verificationRequired, .init(named: "verification_required")),
        (.methodBlocked, .init(suberror: "provider_blocked_by_rep")),
        (.methodBlocked, .init(firstCodes: [550024])),
        (.invalidContact, .init(error: "invalid_request", firstCodes: [901001])),
        (.userHasNoPassword, .init(error: "invalid_request", firstCodes: [500222])),
        (.attributesInvalid, .init(named: "attribute_validation_failed")),
        (.attributesRequired, .init(error: "attributes_required")),
        (.passwordPolicy, .init(suberrorPrefix: "password_")),
        (
            .passwordStep,
            .init(error: "invalid_grant", withoutSuberror: true, firstCodes: passwordStepCodes.map(\.code))
        ),
    ]

    /// Whether the answer carries `meaning`.
    func has(_ meaning: ServerErrorMeaning) -> Bool {
        Self.catalogue.contains { $0.meaning == meaning && $0.rule.matches(self) }
    }

    /// The kind of the first of `meanings` the answer carries: how a step's error type reads a
    /// server error.
    func kind(naming meanings: [ServerErrorMeaning]) -> ErrorKind? {
        for meaning in meanings where has(meaning) { return kind(of: meaning) }
        return nil
    }

    func kind(of meaning: ServerErrorMeaning) -> ErrorKind? { meaning.kind(for: self) }

    /// What any step reports when its own meanings do not apply.
    var sharedKind: ErrorKind {
        if let kind = kind(naming: [.invalidContinuationToken, .userNotFound, .userAlreadyExists]) { return kind }
        return .general
    }
}

/// How a step names the server's errors before the meanings every step shares: the meanings it
/// gives them, in order of precedence. A value rather than a function, so that the flow engine's
/// shared bodies that take one are compiled once, not once per step.
struct ErrorNaming: Sendable {
    let meanings: [ServerErrorMeaning]
    /// A wrong password (``ErrorKind/invalidCredentials``) is the password step's own error,
    /// ``ErrorKind/invalidPassword(_:)``.
    var wrongPasswordIsInvalidPassword = false
    /// The meanings tried when ``meanings`` name none.
    var fallback: [ServerErrorMeaning] = []

    init(_ meanings: [ServerErrorMeaning], wrongPasswordIsInvalidPassword: Bool = false) {
        self.meanings = meanings
        self.wrongPasswordIsInvalidPassword = wrongPasswordIsInvalidPassword
    }

    /// No meaning of the step's own.
    static var none: ErrorNaming { ErrorNaming([]) }

    /// This naming, then `other`'s meanings for an error this one does not name.
    func otherwise(_ other: ErrorNaming) -> ErrorNaming {
        var naming = self
        naming.fallback += other.meanings
        return naming
    }

    /// The kind the step gives `error`; `nil` leaves it to the shared meanings.
    func kind(of error: ServerError) -> ErrorKind? {
        if let kind = error.kind(naming: meanings) {
            return wrongPasswordIsInvalidPassword && kind == .invalidCredentials ? .invalidPassword(nil) : kind
        }
        return error.kind(naming: fallback)
    }
}

/// The step an error answer moves the flow on to, with the continuation token it carries.
enum NextStep: Sendable, Equatable {
    /// A second factor (`mfa_required`, at the token endpoint).
    case mfa
    /// A strong authentication method to register (`registration_required`, at the token endpoint).
    case registration
    /// A password for the new user (`credential_required`, at sign-up `continue`).
    case credential
    /// More attributes for the new user (`attributes_required`, at sign-up `continue`).
    case attributes

    /// Which answers move which endpoint's flow on; the answer must carry a continuation token.
    static let catalogue: [(step: NextStep, endpoint: Endpoint, rule: ServerErrorRule)] = [
        (.mfa, .token, .init(suberror: "mfa_required")),
        (.registration, .token, .init(suberror: "registration_required")),
        (.credential, .signUpContinue, .init(named: "credential_required")),
        (.attributes, .signUpContinue, .init(named: "attributes_required")),
    ]

    /// Answers that move a flow on at any endpoint: they consume the continuation token even where
    /// the step cannot follow them.
    static let anyStep: [ServerErrorRule] = [
        "mfa_required", "registration_required", "credential_required",
        "attributes_required",
    ].map { ServerErrorRule(named: $0) }

    /// The step `error` moves the flow on to, when `endpoint` answered it.
    static func of(_ error: ServerError, at endpoint: Endpoint) -> NextStep? {
        guard error.continuationToken != nil else { return nil }
        return catalogue.first { $0.endpoint == endpoint && $0.rule.matches(error) }?.step
    }
}

// MARK: V2

extension ServerError {
    /// The password policy codes of V2's Errors table, by their folded spelling; a few, so a list.
    static let v2PasswordViolations: [(code: String, violation: PasswordPolicyViolation)] = [
        ("passwordtooweak", .tooWeak), ("passwordtooshort", .tooShort), ("passwordtoolong", .tooLong),
        ("passwordisinvalid", .invalid), ("passwordrecentlyused", .recentlyUsed), ("passwordbanned", .banned),
    ]

    /// The violation V2's Errors table gives the code `name`, in any of its spellings.
    static func v2PasswordViolation(_ name: String) -> PasswordPolicyViolation? {
        let folded = folded(name)
        return v2PasswordViolations.first { $0.code == folded }?.violation
    }

    /// One row of V2's catalogue: the kind an error has when it matches, and the link relations
    /// (or fixed endpoints) it holds for; every request when empty.
    struct V2Row: Sendable {
        var asked: [String] = []
        let kind: @Sendable (ServerError) -> ErrorKind?
    }

    /// V2's catalogue, in order: the Errors table of Docs/NativeAuthV2Protocol.md read code by code, names
    /// compared in V2's camelCase or V1's snake_case spelling, codes read from `AADSTS` numbers of
    /// the message. Rows keyed by what was asked say what an answer means there only.
    static let v2Catalogue: [V2Row] = [
        V2Row { $0.isBrowserRequired ? .browserRequired : nil },
        V2Row {
            $0.namesFolded("invalidOneTimeCode") || ($0.namesFolded("invalidGrant") && $0.firstCode == 50184)
                ? .invalidCode : nil
        },
        V2Row {
            $0.namesFolded("invalidContinuationToken") || $0.firstCode == 55200 || $0.namesFolded("expiredToken")
                ? .flowExpired : nil
        },
        V2Row { error in
            for name in [error.suberror, error.error] {
                if let name, let violation = v2PasswordViolation(name) { return .invalidPassword(violation) }
            }
            return nil
        },
        V2Row { $0.namesFolded("invalidUserNameOrPassword") || $0.firstCode == 50126 ? .invalidCredentials : nil },
        V2Row { $0.namesFolded("userNotFound") || $0.firstCode == 50034 ? .userNotFound : nil },
        // The OAuth refusals of a client (step 1's and the token endpoint's flat shape, RFC 6749
        // §5.2): the app's configuration, as V1 reads them; not the user's to correct.
        V2Row { $0.namesFolded("invalid_client") || $0.namesFolded("unauthorized_client") ? .configuration : nil },
        // Sign-up ([Android] PR 3240): the user exists, as `error.code`, `innerError.code` or a detail.
        V2Row {
            $0.namesFolded("userAlreadyExists") || $0.details.contains { $0.names("userAlreadyExists") }
                ? .userAlreadyExists : nil
        },
        // A refusal of `email` alone, where sign-up sends it: the username travels as `email`,
        // which the app cannot pass, so it is the username's, as V1 says it.
        V2Row(asked: ["submitAttributes"]) { error in
            let refused = error.invalidAttributes
            return error.namesFolded("attributeValidationError") && !refused.isEmpty
                && refused.allSatisfy { $0.lowercased() == "email" } ? .invalidUsername : nil
        },
        // A refused password (the only refused attribute; its policy code, when a detail gives
        // one, is the violation), or refused attributes.
        V2Row { error in
            guard error.namesFolded("attributeValidationError") else { return nil }
            let refused = error.invalidAttributes
            guard !refused.isEmpty, refused.allSatisfy({ $0.lowercased() == "password" }) else {
                return .attributesInvalid
            }
            return .invalidPassword(
                error.details.lazy.compactMap { $0.code.flatMap(v2PasswordViolation) }.first)
        },
        // Method registration: V1's numbers for a contact that is not valid and a blocked method,
        // read from the message as every V2 `AADSTS` number is (no V2 source names these).
        V2Row { $0.firstCode == 901_001 ? .invalidInput : nil },
        V2Row { $0.firstCode == 550_024 ? .methodBlocked : nil },
        // The start of a reset (its journey link, or a sign-in's `recover`): a user with no
        // password to reset, as `innerError.code` or AADSTS500222.
        V2Row(asked: ["reset_password", "recover"]) {
            $0.namesFolded("userDoesNotHavePassword") || $0.firstCode == 500_222 ? .userHasNoPassword : nil
        },
    ]

    /// What a V2 error means where `asked` (a link relation, or a fixed endpoint's name) answered
    /// it: the first row of ``v2Catalogue`` that holds there and matches; ``ErrorKind/general``
    /// for anything else.
    func v2Kind(asked: String? = nil) -> ErrorKind {
        for row in Self.v2Catalogue where row.asked.isEmpty || asked.map(row.asked.contains) == true {
            if let kind = row.kind(self) { return kind }
        }
        return .general
    }
}
