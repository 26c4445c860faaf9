import Foundation
import NativeAuth

/// A state object the SDK handed out.
enum AnyFlowState: Sendable {
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

    var kind: FlowStateKind {
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
        }
    }

    /// The channel its code went through, for states that have a code.
    var channel: ChannelType? {
        switch self {
        case .signInCode(let state): state.channel
        case .mfaRequired(let state): state.channel
        case .registerVerification(let state): state.channel
        case .signUpCode(let state): state.channel
        case .resetCode(let state): state.channel
        default: nil
        }
    }

    /// The flow's correlation id.
    var correlationId: UUID {
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
        }
    }

    /// What the app would print for it.
    var description: String {
        switch self {
        case .signInCode(let state): state.description
        case .signInPassword(let state): state.description
        case .awaitingMFA(let state): state.description
        case .mfaRequired(let state): state.description
        case .registerStrongAuth(let state): state.description
        case .registerVerification(let state): state.description
        case .signUpCode(let state): state.description
        case .signUpPassword(let state): state.description
        case .signUpAttributes(let state): state.description
        case .signInAfterSignUp(let state): state.description
        case .resetCode(let state): state.description
        case .resetPassword(let state): state.description
        case .signInAfterReset(let state): state.description
        }
    }

    /// The methods it offers (MFA and registration states).
    var methods: [AuthMethod]? {
        switch self {
        case .awaitingMFA(let state): state.authMethods
        case .mfaRequired(let state): state.authMethods
        case .registerStrongAuth(let state): state.authMethods
        case .registerVerification(let state): state.authMethods
        default: nil
        }
    }
}

/// What one action led to, as the app sees it.
enum ObservedOutcome: Sendable {
    case state(AnyFlowState)
    case completed(UserAccountResult)
    case attributesInvalid([String])
    /// An error; `newStateGiven` says, for delegate callbacks that pass one, whether the state to
    /// go on with was given.
    case error(any NativeAuthError, newStateGiven: Bool?)
    /// A result case this version of the tests does not know.
    case unknown(String)

    var summary: String {
        switch self {
        case .state(let state): "state \(state.kind)"
        case .completed(let account): "completed(\(account.account.username))"
        case .attributesInvalid(let names): "attributesInvalid(\(names))"
        case .error(let error, let given):
            "error \(FlowErrorCategory(error)) (isStateStillUsable: \(error.isStateStillUsable)"
                + (given.map { ", newState given: \($0)" } ?? "") + ") \(error)"
        case .unknown(let text): "unknown outcome \(text)"
        }
    }
}

extension FlowErrorCategory {
    /// Reads an error through the public questions only.
    init(_ error: any NativeAuthError) {
        var yes: [(String, FlowErrorCategory)] = []
        func ask(_ answer: Bool, _ category: FlowErrorCategory) {
            if answer { yes.append((category.description, category)) }
        }
        ask(error.isStateBusy, .stateBusy)
        ask(error.isStateAlreadyUsed, .stateSpent)
        ask(error.isCancelled, .cancelled)
        ask(error.isNetworkError, .network)
        ask(error.isUnexpectedResponse, .unexpectedResponse)
        ask(error.isBrowserRequired, .browserRequired)
        ask(error.isConfigurationError, .configuration)
        ask(error.isFlowExpired, .flowExpired)
        ask(error.isMissingDelegateMethod, .missingDelegateMethod)
        ask(error.isUserNotFound, .userNotFound)
        switch error {
        case let error as SignInStartError:
            ask(error.isInvalidUsername, .invalidUsername)
            ask(error.isInvalidCredentials, .invalidCredentials)
        case let error as VerifyCodeError:
            ask(error.isInvalidCode, .invalidCode)
            ask(error.isUserAlreadyExists, .userAlreadyExists)
        case let error as PasswordRequiredError:
            ask(error.isInvalidPassword, .invalidPassword(error.passwordPolicyViolation))
            ask(error.isPasswordResetFailed, .passwordResetFailed)
            // An interrupted wait (cancelled, no answer, an unusable answer) also says the reset
            // goes on; the interruption is the category.
            ask(
                error.isPasswordResetPending && !error.isCancelled && !error.isNetworkError
                    && !error.isUnexpectedResponse, .passwordResetPending)
            ask(error.isUserAlreadyExists, .userAlreadyExists)
        case let error as SignUpStartError:
            ask(error.isUserAlreadyExists, .userAlreadyExists)
            ask(error.isInvalidUsername, .invalidUsername)
            ask(error.isInvalidPassword, .invalidPassword(error.passwordPolicyViolation))
            ask(error.isInvalidAttributes, .attributesInvalid)
        case let error as AttributesRequiredError:
            ask(error.isInvalidAttributes, .attributesInvalid)
            ask(error.isUserAlreadyExists, .userAlreadyExists)
        case let error as MFARequestChallengeError:
            ask(error.isMethodBlocked, .methodBlocked)
        case let error as MFASubmitChallengeError:
            ask(error.isInvalidCode || error.isInvalidChallenge, .invalidCode)
        case let error as RegisterStrongAuthChallengeError:
            ask(error.isInvalidInput, .invalidInput)
            ask(error.isMethodBlocked, .methodBlocked)
        case let error as RegisterStrongAuthSubmitChallengeError:
            ask(error.isInvalidCode || error.isInvalidChallenge, .invalidCode)
        case let error as ResetPasswordStartError:
            ask(error.isUserDoesNotHavePassword, .userHasNoPassword)
            ask(error.isInvalidUsername, .invalidUsername)
        default:
            break
        }
        switch yes.count {
        case 0: self = .general
        case 1: self = yes[0].1
        default: self = .ambiguous(yes.map(\.0))
        }
    }
}

/// One call into the SDK, with every input made concrete, ready to run on any task.
struct SDKInvocation: Sendable {
    enum Call: Sendable {
        case signIn(SignInParameters)
        case signUp(SignUpParameters)
        case resetPassword(ResetPasswordParameters)
        case state(AnyFlowState, Input)
    }

    struct Input: Sendable {
        var action: StateAction
        var code = ""
        var password = ""
        var attributes = UserAttributes()
        var contact = ""
        var methodIndex = 0
    }

    let client: NativeAuthClient
    let call: Call
}

/// Runs invocations through the `async throws` API.
enum PropertyAsyncDriver {
    static func run(_ invocation: SDKInvocation) async -> ObservedOutcome {
        switch invocation.call {
        case .signIn(let parameters):
            do {
                return observe(try await invocation.client.signIn(parameters))
            } catch {
                return .error(error, newStateGiven: nil)
            }
        case .signUp(let parameters):
            do {
                switch try await invocation.client.signUp(parameters) {
                case .codeRequired(let state, _, _, _): return .state(.signUpCode(state))
                case .attributesInvalid(let names): return .attributesInvalid(names)
                @unknown default: return .unknown("SignUpStartResult")
                }
            } catch {
                return .error(error, newStateGiven: nil)
            }
        case .resetPassword(let parameters):
            do {
                switch try await invocation.client.resetPassword(parameters) {
                case .codeRequired(let state, _, _, _): return .state(.resetCode(state))
                @unknown default: return .unknown("ResetPasswordStartResult")
                }
            } catch {
                return .error(error, newStateGiven: nil)
            }
        case .state(let state, let input):
            return await act(on: state, input)
        }
    }

    static func observe(_ result: SignInStartResult) -> ObservedOutcome {
        switch result {
        case .codeRequired(let state, _, _, _): .state(.signInCode(state))
        case .passwordRequired(let state): .state(.signInPassword(state))
        case .completed(let account): .completed(account)
        case .awaitingMFA(let state, _): .state(.awaitingMFA(state))
        case .strongAuthRegistrationRequired(let state, _): .state(.registerStrongAuth(state))
        @unknown default: .unknown("SignInStartResult")
        }
    }

    static func observe(_ result: SignInResult) -> ObservedOutcome {
        switch result {
        case .completed(let account): .completed(account)
        case .awaitingMFA(let state, _): .state(.awaitingMFA(state))
        case .strongAuthRegistrationRequired(let state, _): .state(.registerStrongAuth(state))
        @unknown default: .unknown("SignInResult")
        }
    }

    static func observe(_ result: SignUpResult) -> ObservedOutcome {
        switch result {
        case .completed(let state): .state(.signInAfterSignUp(state))
        case .passwordRequired(let state): .state(.signUpPassword(state))
        case .attributesRequired(_, let state): .state(.signUpAttributes(state))
        @unknown default: .unknown("SignUpResult")
        }
    }

    static func observe(_ result: RegisterStrongAuthChallengeResult) -> ObservedOutcome {
        switch result {
        case .verificationRequired(let state, _, _, _): .state(.registerVerification(state))
        case .completed(let account): .completed(account)
        @unknown default: .unknown("RegisterStrongAuthChallengeResult")
        }
    }

    /// Runs `body`, mapping its result with `map` and its error to `.error`.
    static func attempt<T, E: NativeAuthError>(
        _ body: () async throws(E) -> T, _ map: (T) -> ObservedOutcome
    ) async -> ObservedOutcome {
        do {
            return map(try await body())
        } catch {
            return .error(error, newStateGiven: nil)
        }
    }

    static func method(_ methods: [AuthMethod], _ index: Int) -> AuthMethod {
        methods.indices.contains(index)
            ? methods[index] : AuthMethod(id: "missing", channel: .email, loginHint: "missing")
    }

    static func act(on state: AnyFlowState, _ input: SDKInvocation.Input) async -> ObservedOutcome {
        switch (state, input.action) {
        case (.signInCode(let state), .submitCode):
            return await attempt(
                { () async throws(VerifyCodeError) in try await state.submitCode(input.code) }, observe)
        case (.signInCode(let state), .resendCode):
            return await attempt({ () async throws(ResendCodeError) in try await state.resendCode() }) {
                .state(.signInCode($0))
            }
        case (.signInPassword(let state), .submitPassword):
            return await attempt(
                { () async throws(PasswordRequiredError) in try await state.submitPassword(input.password) }, observe)
        case (.awaitingMFA(let state), .requestChallenge):
            let method = method(state.authMethods, input.methodIndex)
            return await attempt({ () async throws(MFARequestChallengeError) in
                try await state.requestChallenge(authMethod: method)
            }) { .state(.mfaRequired($0)) }
        case (.mfaRequired(let state), .requestChallenge):
            let method = method(state.authMethods, input.methodIndex)
            return await attempt({ () async throws(MFARequestChallengeError) in
                try await state.requestChallenge(authMethod: method)
            }) { .state(.mfaRequired($0)) }
        case (.mfaRequired(let state), .submitCode):
            return await attempt(
                { () async throws(MFASubmitChallengeError) in try await state.submitChallenge(input.code) }, observe)
        case (.registerStrongAuth(let state), .challengeContact):
            let method = method(state.authMethods, input.methodIndex)
            return await attempt(
                { () async throws(RegisterStrongAuthChallengeError) in
                    try await state.challengeAuthMethod(authMethod: method, verificationContact: input.contact)
                }, observe)
        case (.registerVerification(let state), .challengeContact):
            let method = method(state.authMethods, input.methodIndex)
            return await attempt(
                { () async throws(RegisterStrongAuthChallengeError) in
                    try await state.challengeAuthMethod(authMethod: method, verificationContact: input.contact)
                }, observe)
        case (.registerVerification(let state), .submitCode):
            return await attempt(
                { () async throws(RegisterStrongAuthSubmitChallengeError) in
                    try await state.submitChallenge(input.code)
                }, observe)
        case (.signUpCode(let state), .submitCode):
            return await attempt(
                { () async throws(VerifyCodeError) in try await state.submitCode(input.code) }, observe)
        case (.signUpCode(let state), .resendCode):
            return await attempt({ () async throws(ResendCodeError) in try await state.resendCode() }) {
                .state(.signUpCode($0))
            }
        case (.signUpPassword(let state), .submitPassword):
            return await attempt(
                { () async throws(PasswordRequiredError) in try await state.submitPassword(input.password) }, observe)
        case (.signUpAttributes(let state), .submitAttributes):
            return await attempt(
                { () async throws(AttributesRequiredError) in
                    try await state.submitAttributes(input.attributes)
                }, observe)
        case (.signInAfterSignUp(let state), .signInAfter):
            return await attempt({ () async throws(SignInAfterSignUpError) in try await state.signIn() }, observe)
        case (.resetCode(let state), .submitCode):
            return await attempt({ () async throws(VerifyCodeError) in try await state.submitCode(input.code) }) {
                .state(.resetPassword($0))
            }
        case (.resetCode(let state), .resendCode):
            return await attempt({ () async throws(ResendCodeError) in try await state.resendCode() }) {
                .state(.resetCode($0))
            }
        case (.resetPassword(let state), .submitPassword):
            return await attempt({ () async throws(PasswordRequiredError) in
                try await state.submitPassword(input.password)
            }) { .state(.signInAfterReset($0)) }
        case (.signInAfterReset(let state), .signInAfter):
            return await attempt(
                { () async throws(SignInAfterResetPasswordError) in try await state.signIn() }, observe)
        default:
            return .unknown("\(input.action) is not offered by \(state.kind)")
        }
    }
}
