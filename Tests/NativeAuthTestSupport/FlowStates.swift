public import Foundation
public import NativeAuth

// The catalogue of the native flows' states: one description of every public state type (its
// flow, its calls, whether a code was sent to make it) and one way to act on any of them, read by
// the rules tests, the fuzz and property drivers, the delegate tests and the state-machine
// document's test, instead of a list of its own in each. How to reach each state on the emulator
// is in `FlowFixture`.

/// The public state types of the native flows, one case per type.
public enum FlowStateKind: String, CaseIterable, Sendable {
    case signInCode, signInPassword, awaitingMFA, mfaRequired, registerStrongAuth, registerVerification
    case signUpCode, signUpPassword, signUpAttributes, signInAfterSignUp
    case resetCode, resetPassword, signInAfterReset
    case signUpOrSignInCode
    case authMethodSelection
    case resetAuthMethodSelection

    /// The flows a client starts, by the name of the client's method.
    public enum Flow: String, CaseIterable, Sendable {
        case signIn, signUp, resetPassword, signUpOrSignIn
    }

    /// The public type's name.
    public var typeName: String {
        switch self {
        case .signInCode: "SignInCodeRequiredState"
        case .signInPassword: "SignInPasswordRequiredState"
        case .awaitingMFA: "AwaitingMFAState"
        case .mfaRequired: "MFARequiredState"
        case .registerStrongAuth: "RegisterStrongAuthState"
        case .registerVerification: "RegisterStrongAuthVerificationRequiredState"
        case .signUpCode: "SignUpCodeRequiredState"
        case .signUpPassword: "SignUpPasswordRequiredState"
        case .signUpAttributes: "SignUpAttributesRequiredState"
        case .signInAfterSignUp: "SignInAfterSignUpState"
        case .resetCode: "ResetPasswordCodeRequiredState"
        case .resetPassword: "ResetPasswordRequiredState"
        case .signInAfterReset: "SignInAfterResetPasswordState"
        case .signUpOrSignInCode: "SignUpOrSignInCodeRequiredState"
        case .authMethodSelection: "AuthMethodSelectionRequiredState"
        case .resetAuthMethodSelection: "ResetPasswordAuthMethodSelectionRequiredState"
        }
    }

    /// The flow whose start leads here; the second factor and method registration are reached
    /// from every flow's sign-in (``isShared``), and are listed under sign-in.
    public var flow: Flow {
        switch self {
        case .signInCode, .signInPassword, .awaitingMFA, .mfaRequired, .registerStrongAuth, .registerVerification,
            .authMethodSelection:
            .signIn
        case .signUpCode, .signUpPassword, .signUpAttributes, .signInAfterSignUp: .signUp
        case .resetCode, .resetPassword, .signInAfterReset, .resetAuthMethodSelection: .resetPassword
        case .signUpOrSignInCode: .signUpOrSignIn
        }
    }

    /// Whether every flow can reach it: the second factor and method registration, which a sign-in
    /// at the end of any flow may ask for.
    public var isShared: Bool {
        switch self {
        case .awaitingMFA, .mfaRequired, .registerStrongAuth, .registerVerification: true
        default: false
        }
    }

    /// Whether a one-time code was sent when a state of this kind was made.
    public var hasCode: Bool {
        switch self {
        case .signInCode, .mfaRequired, .registerVerification, .signUpCode, .resetCode, .signUpOrSignInCode: true
        default: false
        }
    }

    /// Every public `async` call of the type that leads on, the one that moves the flow forward
    /// first, then the other one the drivers use, then the other names of those two.
    public var calls: [FlowStateCall] {
        switch self {
        case .signInCode, .signUpCode, .resetCode, .signUpOrSignInCode: [.submitCode, .resendCode]
        case .signInPassword: [.submitPassword, .resetPassword]
        case .signUpPassword, .resetPassword: [.submitPassword]
        case .awaitingMFA: [.requestChallenge]
        case .mfaRequired: [.submitChallenge, .requestChallenge, .resendCode]
        case .registerStrongAuth: [.challengeAuthMethod]
        case .registerVerification: [.submitChallenge, .challengeAuthMethod, .resendCode]
        case .signUpAttributes: [.submitAttributes]
        case .signInAfterSignUp, .signInAfterReset: [.signIn]
        case .authMethodSelection, .resetAuthMethodSelection: [.selectAuthMethod]
        }
    }

    /// The call that moves the flow forward.
    public var forwardCall: FlowStateCall { calls[0] }

    /// The calls that also have a delegate form.
    public var delegateCalls: [FlowStateCall] {
        switch self {
        case .mfaRequired: [.submitChallenge, .requestChallenge]
        case .registerVerification: [.submitChallenge, .challengeAuthMethod]
        default: calls
        }
    }
}

extension FlowStateKind {
    /// Whether a client speaking Native Auth V2 reaches this state: every one.
    public var isReachableOverV2: Bool { true }

    /// Whether a client speaking V1 reaches this state: all but the choice of a first factor or of
    /// a recovery method, steps V1 does not have (Docs/NativeAuthV2.md, "Choosing the first
    /// factor", "Password reset over V2").
    public var isReachableOverV1: Bool { self != .authMethodSelection && self != .resetAuthMethodSelection }
}

/// A state type as a client speaking one protocol reaches it: the catalogue's kinds over V1, and
/// those V2 reaches over V2, behind the same public types. The generic state rules run over all of
/// them.
public struct FlowStateVariant: Sendable, Hashable, CustomStringConvertible {
    public let kind: FlowStateKind
    public let protocolVersion: NativeAuthProtocol

    public init(_ kind: FlowStateKind, over protocolVersion: NativeAuthProtocol = .v1) {
        self.kind = kind
        self.protocolVersion = protocolVersion
    }

    /// Every kind over V1, then every kind V2 reaches over V2.
    public static let all: [FlowStateVariant] =
        FlowStateKind.allCases.filter(\.isReachableOverV1).map { FlowStateVariant($0) }
        + FlowStateKind.allCases.filter(\.isReachableOverV2).map { FlowStateVariant($0, over: .v2) }

    /// The public type's name, with ` over V2` for a V2 variant.
    public var typeName: String { protocolVersion == .v1 ? kind.typeName : kind.typeName + " over V2" }

    public var description: String { typeName }
}

/// A call on a state object, by its method's name.
public enum FlowStateCall: String, CaseIterable, Sendable {
    case submitCode, resendCode, submitPassword, submitAttributes, requestChallenge, submitChallenge
    case challengeAuthMethod, signIn, selectAuthMethod
    /// A password reset from the sign-in's password screen.
    case resetPassword
}

/// What a call is given. Each call reads the inputs it takes; the others are ignored.
public struct FlowActionInput: Sendable {
    public var code: String
    public var password: String
    public var attributes: UserAttributes
    /// The method to challenge or register; the state's first method when `nil`.
    public var authMethod: AuthMethod?
    public var contact: String
    public var scopes: [String]

    public init(
        code: String = "", password: String = "", attributes: UserAttributes = [:], authMethod: AuthMethod? = nil,
        contact: String = "", scopes: [String] = []
    ) {
        self.code = code
        self.password = password
        self.attributes = attributes
        self.authMethod = authMethod
        self.contact = contact
        self.scopes = scopes
    }
}

/// A state object the SDK handed out.
public enum FlowState: Sendable {
    case signInCode(SignInCodeRequiredState)
    case signInPassword(SignInPasswordRequiredState)
    case awaitingMFA(AwaitingMFAState)
    case mfaRequired(MFARequiredState)
    case registerStrongAuth(RegisterStrongAuthState)
    case registerVerification(RegisterStrongAuthVerificationRequiredState)
    case signUpCode(SignUpCodeRequiredState)
    case signUpPassword(SignUpPasswordRequiredState)
    case signUpAttributes(SignUpAttributesRequiredState)
    case signInAfterSignUp(SignInAfterSignUpState)
    case resetCode(ResetPasswordCodeRequiredState)
    case resetPassword(ResetPasswordRequiredState)
    case signInAfterReset(SignInAfterResetPasswordState)
    case signUpOrSignInCode(SignUpOrSignInCodeRequiredState)
    case authMethodSelection(AuthMethodSelectionRequiredState)
    case resetAuthMethodSelection(ResetPasswordAuthMethodSelectionRequiredState)

    public var kind: FlowStateKind {
        switch self {
        case .signInCode: .signInCode
        case .signInPassword: .signInPassword
        case .awaitingMFA: .awaitingMFA
        case .mfaRequired: .mfaRequired
        case .registerStrongAuth: .registerStrongAuth
        case .registerVerification: .registerVerification
        case .signUpCode: .signUpCode
        case .signUpPassword: .signUpPassword
        case .signUpAttributes: .signUpAttributes
        case .signInAfterSignUp: .signInAfterSignUp
        case .resetCode: .resetCode
        case .resetPassword: .resetPassword
        case .signInAfterReset: .signInAfterReset
        case .signUpOrSignInCode: .signUpOrSignInCode
        case .authMethodSelection: .authMethodSelection
        case .resetAuthMethodSelection: .resetAuthMethodSelection
        }
    }

    /// The state object itself.
    public var object: any AnyObject & Sendable & CustomStringConvertible {
        switch self {
        case .signInCode(let state): state
        case .signInPassword(let state): state
        case .awaitingMFA(let state): state
        case .mfaRequired(let state): state
        case .registerStrongAuth(let state): state
        case .registerVerification(let state): state
        case .signUpCode(let state): state
        case .signUpPassword(let state): state
        case .signUpAttributes(let state): state
        case .signInAfterSignUp(let state): state
        case .resetCode(let state): state
        case .resetPassword(let state): state
        case .signInAfterReset(let state): state
        case .signUpOrSignInCode(let state): state
        case .authMethodSelection(let state): state
        case .resetAuthMethodSelection(let state): state
        }
    }

    /// The flow's correlation id.
    public var correlationId: UUID {
        switch self {
        case .signInCode(let state): state.correlationId
        case .signInPassword(let state): state.correlationId
        case .awaitingMFA(let state): state.correlationId
        case .mfaRequired(let state): state.correlationId
        case .registerStrongAuth(let state): state.correlationId
        case .registerVerification(let state): state.correlationId
        case .signUpCode(let state): state.correlationId
        case .signUpPassword(let state): state.correlationId
        case .signUpAttributes(let state): state.correlationId
        case .signInAfterSignUp(let state): state.correlationId
        case .resetCode(let state): state.correlationId
        case .resetPassword(let state): state.correlationId
        case .signInAfterReset(let state): state.correlationId
        case .signUpOrSignInCode(let state): state.correlationId
        case .authMethodSelection(let state): state.correlationId
        case .resetAuthMethodSelection(let state): state.correlationId
        }
    }

    /// What the app would print for it.
    public var description: String { object.description }

    /// The channel its code went through, for states that have a code.
    public var channel: ChannelType? {
        switch self {
        case .signInCode(let state): state.channelTargetType
        case .mfaRequired(let state): state.channelTargetType
        case .registerVerification(let state): state.channelTargetType
        case .signUpCode(let state): state.channelTargetType
        case .resetCode(let state): state.channelTargetType
        case .signUpOrSignInCode(let state): state.channelTargetType
        default: nil
        }
    }

    /// The methods it offers (MFA and registration states).
    public var methods: [AuthMethod]? {
        switch self {
        case .awaitingMFA(let state): state.authMethods
        case .mfaRequired(let state): state.authMethods
        case .registerStrongAuth(let state): state.authMethods
        case .registerVerification(let state): state.authMethods
        case .authMethodSelection(let state): state.authMethods
        case .resetAuthMethodSelection(let state): state.authMethods
        default: nil
        }
    }
}

/// What one call led to, as the app sees it.
public enum FlowOutcome: Sendable {
    case state(FlowState)
    case completed(UserAccountResult)
    case attributesInvalid([String])
    /// An error; `newStateGiven` says, for delegate callbacks that pass one, whether the state to
    /// go on with was given.
    case error(any NativeAuthError, newStateGiven: Bool?)
    /// A result case the catalogue does not know.
    case unknown(String)

    /// The error, when the call failed.
    public var failure: (any NativeAuthError)? {
        if case .error(let error, _) = self { return error }
        return nil
    }

    /// The state of type `T` this outcome led to; throws otherwise.
    public func state<T>(_ type: T.Type = T.self) throws -> T {
        guard case .state(let state) = self, let typed = state.object as? T else {
            throw TestFailure("expected a \(T.self), got \(self)")
        }
        return typed
    }

    /// The error of type `E`; throws otherwise.
    public func error<E: NativeAuthError>(_ type: E.Type = E.self) throws -> E {
        guard case .error(let error, _) = self, let typed = error as? E else {
            throw TestFailure("expected a \(E.self), got \(self)")
        }
        return typed
    }

    /// The signed-in account; throws otherwise.
    public func account() throws -> UserAccountResult {
        guard case .completed(let account) = self else {
            throw TestFailure("expected a signed-in account, got \(self)")
        }
        return account
    }
}

/// How a call ended, with what else its result carried.
public struct FlowActionResult: Sendable {
    public var outcome: FlowOutcome
    /// The error type the call declares (`throws(E)`).
    public var declaredError: String
    /// What the result carried besides the state, as an app would show it: where a code went, the
    /// methods offered, the attributes asked for.
    public var shown: [String]

    public init(outcome: FlowOutcome, declaredError: String, shown: [String] = []) {
        self.outcome = outcome
        self.declaredError = declaredError
        self.shown = shown
    }

    /// Runs `body`, turning its value (through `map`) or its typed error into a result.
    static func attempt<T, E: NativeAuthError>(
        _ body: () async throws(E) -> T, _ map: (T) -> (FlowOutcome, [String])
    ) async -> FlowActionResult {
        do {
            let (outcome, shown) = map(try await body())
            return FlowActionResult(outcome: outcome, declaredError: String(describing: E.self), shown: shown)
        } catch {
            return FlowActionResult(
                outcome: .error(error, newStateGiven: nil), declaredError: String(describing: E.self))
        }
    }
}

// MARK: Results to outcomes

extension FlowOutcome {
    public static func of(_ result: SignInStartResult) -> (FlowOutcome, [String]) {
        switch result {
        case .codeRequired(let state, let sentTo, _, _): (.state(.signInCode(state)), [sentTo])
        case .passwordRequired(let state): (.state(.signInPassword(state)), [])
        case .completed(let account): (.completed(account), [])
        case .awaitingMFA(let state, let methods): (.state(.awaitingMFA(state)), [methods.description])
        case .strongAuthRegistrationRequired(let state, let methods):
            (.state(.registerStrongAuth(state)), [methods.description])
        case .authMethodSelectionRequired(let state, let methods):
            (.state(.authMethodSelection(state)), [methods.description])
        @unknown default: (.unknown("SignInStartResult"), [])
        }
    }

    public static func of(_ result: SignInResult) -> (FlowOutcome, [String]) {
        switch result {
        case .completed(let account): (.completed(account), [])
        case .awaitingMFA(let state, let methods): (.state(.awaitingMFA(state)), [methods.description])
        case .strongAuthRegistrationRequired(let state, let methods):
            (.state(.registerStrongAuth(state)), [methods.description])
        @unknown default: (.unknown("SignInResult"), [])
        }
    }

    public static func of(_ result: SignUpStartResult) -> (FlowOutcome, [String]) {
        switch result {
        case .codeRequired(let state, let sentTo, _, _): (.state(.signUpCode(state)), [sentTo])
        case .attributesInvalid(let names): (.attributesInvalid(names), names)
        case .passwordRequired(let state): (.state(.signUpPassword(state)), [])
        @unknown default: (.unknown("SignUpStartResult"), [])
        }
    }

    public static func of(_ result: SignUpResult) -> (FlowOutcome, [String]) {
        switch result {
        case .completed(let state): (.state(.signInAfterSignUp(state)), [])
        case .passwordRequired(let state): (.state(.signUpPassword(state)), [])
        case .attributesRequired(let attributes, let state):
            (.state(.signUpAttributes(state)), [attributes.description])
        case .codeRequired(let state, let sentTo, _, _): (.state(.signUpCode(state)), [sentTo])
        @unknown default: (.unknown("SignUpResult"), [])
        }
    }

    public static func of(_ result: SignUpOrSignInStartResult) -> (FlowOutcome, [String]) {
        switch result {
        case .codeRequired(let state, let sentTo, _, _): (.state(.signUpOrSignInCode(state)), [sentTo])
        case .passwordRequired(let state): (.state(.signInPassword(state)), [])
        case .attributesInvalid(let names): (.attributesInvalid(names), names)
        case .newUserPasswordRequired(let state): (.state(.signUpPassword(state)), [])
        @unknown default: (.unknown("\(result)"), [])
        }
    }

    public static func of(_ result: SignUpOrSignInResult) -> (FlowOutcome, [String]) {
        switch result {
        case .completed(let account, _): (.completed(account), [])
        case .awaitingMFA(let state, let methods): (.state(.awaitingMFA(state)), [methods.description])
        case .strongAuthRegistrationRequired(let state, let methods):
            (.state(.registerStrongAuth(state)), [methods.description])
        case .newUserPasswordRequired(let state): (.state(.signUpPassword(state)), [])
        case .newUserAttributesRequired(let attributes, let state):
            (.state(.signUpAttributes(state)), attributes.map(\.name))
        @unknown default: (.unknown("\(result)"), [])
        }
    }

    public static func of(_ result: ResetPasswordStartResult) -> (FlowOutcome, [String]) {
        switch result {
        case .codeRequired(let state, let sentTo, _, _): (.state(.resetCode(state)), [sentTo])
        case .authMethodSelectionRequired(let state, let methods):
            (.state(.resetAuthMethodSelection(state)), [methods.description])
        @unknown default: (.unknown("ResetPasswordStartResult"), [])
        }
    }

    public static func of(_ result: RegisterStrongAuthChallengeResult) -> (FlowOutcome, [String]) {
        switch result {
        case .verificationRequired(let state, let sentTo, _, _): (.state(.registerVerification(state)), [sentTo])
        case .completed(let account): (.completed(account), [])
        @unknown default: (.unknown("RegisterStrongAuthChallengeResult"), [])
        }
    }
}

// MARK: Starting a flow

extension NativeAuthClient {
    /// Starts `flow` with `username` (and `password`, `attributes` where the flow takes them).
    public func start(
        _ flow: FlowStateKind.Flow, username: String, password: String? = nil, attributes: UserAttributes = [:],
        correlationId: UUID? = nil
    ) async -> FlowActionResult {
        switch flow {
        case .signIn:
            let parameters = SignInParameters(username: username, password: password, correlationId: correlationId)
            return await .attempt({ () async throws(SignInStartError) in try await signIn(parameters) }, FlowOutcome.of)
        case .signUp:
            let parameters = SignUpParameters(
                username: username, password: password, attributes: attributes, correlationId: correlationId)
            return await .attempt({ () async throws(SignUpStartError) in try await signUp(parameters) }, FlowOutcome.of)
        case .resetPassword:
            let parameters = ResetPasswordParameters(username: username, correlationId: correlationId)
            return await .attempt(
                { () async throws(ResetPasswordStartError) in try await resetPassword(parameters) }, FlowOutcome.of)
        case .signUpOrSignIn:
            let parameters = SignUpOrSignInParameters(
                username: username, attributes: attributes, correlationId: correlationId)
            return await .attempt(
                { () async throws(SignUpOrSignInStartError) in try await signUpOrSignIn(parameters) }, FlowOutcome.of)
        }
    }
}

// MARK: Acting on a state

extension FlowState {
    /// Makes `call` on the state through the `async throws` API; `nil` when the state has no such call.
    public func perform(_ call: FlowStateCall, _ input: FlowActionInput = FlowActionInput()) async
        -> FlowActionResult?
    {
        let method =
            input.authMethod ?? methods?.first ?? AuthMethod(id: "none", channelTargetType: .email, loginHint: "none")
        let next = { (state: FlowState) in (FlowOutcome.state(state), [String]()) }
        switch (self, call) {
        case (.signInCode(let state), .submitCode):
            return await .attempt(
                { () async throws(VerifyCodeError) in try await state.submitCode(input.code) }, FlowOutcome.of)
        case (.signInCode(let state), .resendCode):
            return await .attempt({ () async throws(ResendCodeError) in try await state.resendCode() }) {
                next(.signInCode($0))
            }
        case (.signInPassword(let state), .submitPassword):
            return await .attempt(
                { () async throws(PasswordRequiredError) in try await state.submitPassword(input.password) },
                FlowOutcome.of)
        case (.signInPassword(let state), .resetPassword):
            return await .attempt(
                { () async throws(ResetPasswordStartError) in try await state.resetPassword() }, FlowOutcome.of)
        case (.awaitingMFA(let state), .requestChallenge):
            return await .attempt(
                { () async throws(MFARequestChallengeError) in try await state.requestChallenge(authMethod: method) }
            ) { next(.mfaRequired($0)) }
        case (.mfaRequired(let state), .requestChallenge):
            return await .attempt(
                { () async throws(MFARequestChallengeError) in try await state.requestChallenge(authMethod: method) }
            ) { next(.mfaRequired($0)) }
        case (.mfaRequired(let state), .resendCode):
            return await .attempt({ () async throws(MFARequestChallengeError) in try await state.resendCode() }) {
                next(.mfaRequired($0))
            }
        case (.mfaRequired(let state), .submitChallenge):
            return await .attempt(
                { () async throws(MFASubmitChallengeError) in try await state.submitChallenge(input.code) },
                FlowOutcome.of)
        case (.registerStrongAuth(let state), .challengeAuthMethod):
            return await .attempt(
                { () async throws(RegisterStrongAuthChallengeError) in
                    try await state.challengeAuthMethod(authMethod: method, verificationContact: input.contact)
                }, FlowOutcome.of)
        case (.registerVerification(let state), .challengeAuthMethod):
            return await .attempt(
                { () async throws(RegisterStrongAuthChallengeError) in
                    try await state.challengeAuthMethod(authMethod: method, verificationContact: input.contact)
                }, FlowOutcome.of)
        case (.registerVerification(let state), .resendCode):
            return await .attempt(
                { () async throws(RegisterStrongAuthChallengeError) in try await state.resendCode() }, FlowOutcome.of)
        case (.registerVerification(let state), .submitChallenge):
            return await .attempt(
                { () async throws(RegisterStrongAuthSubmitChallengeError) in
                    try await state.submitChallenge(input.code)
                }, FlowOutcome.of)
        case (.signUpCode(let state), .submitCode):
            return await .attempt(
                { () async throws(VerifyCodeError) in try await state.submitCode(input.code) }, FlowOutcome.of)
        case (.signUpCode(let state), .resendCode):
            return await .attempt({ () async throws(ResendCodeError) in try await state.resendCode() }) {
                next(.signUpCode($0))
            }
        case (.signUpPassword(let state), .submitPassword):
            return await .attempt(
                { () async throws(PasswordRequiredError) in try await state.submitPassword(input.password) },
                FlowOutcome.of)
        case (.signUpAttributes(let state), .submitAttributes):
            return await .attempt(
                { () async throws(AttributesRequiredError) in try await state.submitAttributes(input.attributes) },
                FlowOutcome.of)
        case (.signInAfterSignUp(let state), .signIn):
            return await .attempt(
                { () async throws(SignInAfterSignUpError) in try await state.signIn(scopes: input.scopes) },
                FlowOutcome.of)
        case (.signUpOrSignInCode(let state), .submitCode):
            return await .attempt(
                { () async throws(VerifyCodeError) in try await state.submitCode(input.code) }, FlowOutcome.of)
        case (.signUpOrSignInCode(let state), .resendCode):
            return await .attempt({ () async throws(ResendCodeError) in try await state.resendCode() }) {
                next(.signUpOrSignInCode($0))
            }
        case (.resetCode(let state), .submitCode):
            return await .attempt({ () async throws(VerifyCodeError) in try await state.submitCode(input.code) }) {
                next(.resetPassword($0))
            }
        case (.resetCode(let state), .resendCode):
            return await .attempt({ () async throws(ResendCodeError) in try await state.resendCode() }) {
                next(.resetCode($0))
            }
        case (.resetPassword(let state), .submitPassword):
            return await .attempt(
                { () async throws(PasswordRequiredError) in try await state.submitPassword(input.password) }
            ) { next(.signInAfterReset($0)) }
        case (.signInAfterReset(let state), .signIn):
            return await .attempt(
                { () async throws(SignInAfterResetPasswordError) in try await state.signIn(scopes: input.scopes) },
                FlowOutcome.of)
        case (.authMethodSelection(let state), .selectAuthMethod):
            return await .attempt(
                { () async throws(SignInStartError) in try await state.selectAuthMethod(method) }, FlowOutcome.of)
        case (.resetAuthMethodSelection(let state), .selectAuthMethod):
            return await .attempt(
                { () async throws(ResetPasswordStartError) in try await state.selectAuthMethod(method) },
                FlowOutcome.of)
        default:
            return nil
        }
    }

    /// Makes `call` on the state through its delegate form, whose callbacks go to `recorder`;
    /// `false` when the state has no delegate form of the call.
    @MainActor
    public func start(
        _ call: FlowStateCall, _ input: FlowActionInput = FlowActionInput(), delegate recorder: FlowDelegateRecorder
    )
        -> Bool
    {
        let method =
            input.authMethod ?? methods?.first ?? AuthMethod(id: "none", channelTargetType: .email, loginHint: "none")
        switch (self, call) {
        case (.signInCode(let state), .submitCode): state.submitCode(code: input.code, delegate: recorder)
        case (.signInCode(let state), .resendCode): state.resendCode(delegate: recorder)
        case (.signInPassword(let state), .submitPassword):
            state.submitPassword(password: input.password, delegate: recorder)
        case (.signInPassword(let state), .resetPassword): state.resetPassword(delegate: recorder)
        case (.awaitingMFA(let state), .requestChallenge):
            state.requestChallenge(authMethod: method, delegate: recorder)
        case (.mfaRequired(let state), .requestChallenge):
            state.requestChallenge(authMethod: method, delegate: recorder)
        case (.mfaRequired(let state), .submitChallenge):
            state.submitChallenge(challenge: input.code, delegate: recorder)
        case (.registerStrongAuth(let state), .challengeAuthMethod):
            state.challengeAuthMethod(authMethod: method, verificationContact: input.contact, delegate: recorder)
        case (.registerVerification(let state), .challengeAuthMethod):
            state.challengeAuthMethod(authMethod: method, verificationContact: input.contact, delegate: recorder)
        case (.registerVerification(let state), .submitChallenge):
            state.submitChallenge(challenge: input.code, delegate: recorder)
        case (.signUpCode(let state), .submitCode): state.submitCode(code: input.code, delegate: recorder)
        case (.signUpCode(let state), .resendCode): state.resendCode(delegate: recorder)
        case (.signUpPassword(let state), .submitPassword):
            state.submitPassword(password: input.password, delegate: recorder)
        case (.signUpAttributes(let state), .submitAttributes):
            state.submitAttributes(attributes: input.attributes, delegate: recorder)
        case (.signInAfterSignUp(let state), .signIn): state.signIn(scopes: input.scopes, delegate: recorder)
        case (.resetCode(let state), .submitCode): state.submitCode(code: input.code, delegate: recorder)
        case (.resetCode(let state), .resendCode): state.resendCode(delegate: recorder)
        case (.resetPassword(let state), .submitPassword):
            state.submitPassword(password: input.password, delegate: recorder)
        case (.signInAfterReset(let state), .signIn): state.signIn(scopes: input.scopes, delegate: recorder)
        case (.signUpOrSignInCode(let state), .submitCode): state.submitCode(code: input.code, delegate: recorder)
        case (.signUpOrSignInCode(let state), .resendCode): state.resendCode(delegate: recorder)
        case (.authMethodSelection(let state), .selectAuthMethod): state.selectAuthMethod(method, delegate: recorder)
        case (.resetAuthMethodSelection(let state), .selectAuthMethod):
            state.selectAuthMethod(method, delegate: recorder)
        default: return false
        }
        return true
    }
}
