public import Foundation

/// A code was sent to verify the new user's email address.
public final class SignUpCodeRequiredState: CodeRequiredState {
    let codeCore: CodeStateCore
    var core: StateCore { codeCore.core }
    /// Where the code was sent, masked.
    public var sentTo: String { codeCore.sentTo }
    /// How the code was sent (email, SMS): the `channelTargetType` of the delegate callbacks.
    public var channelTargetType: ChannelType { codeCore.channel }
    /// How many characters the code has, when the server said.
    public var codeLength: Int? { codeCore.codeLength }

    init(codeCore: CodeStateCore) { self.codeCore = codeCore }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the code.
    ///
    /// - Returns: the user was created, or the password or attributes the server wants next.
    /// - Throws: ``VerifyCodeError``; a wrong or empty code leaves this state usable.
    @inline(never)
    public func submitCode(_ code: String) async throws(VerifyCodeError) -> SignUpResult {
        try await codeCore.submit(code, as: VerifyCodeError.self) { code, action throws(FlowError) in
            try await codeCore.engine.signUp.submitCode(code, action: action)
        }
    }

    /// Sends a new code; the previous one stops working.
    ///
    /// - Returns: a fresh state for the new code; this one is spent.
    /// - Throws: ``ResendCodeError``.
    @inline(never)
    public func resendCode() async throws(ResendCodeError) -> SignUpCodeRequiredState {
        SignUpCodeRequiredState(
            codeCore: try await codeCore.resend(as: ResendCodeError.self) { action throws(FlowError) in
                try await codeCore.engine.signUp.resendCode(action: action)
            })
    }

    /// Where the code went; never the code or token.
    public var description: String { codeCore.describe("SignUpCodeRequiredState") }
}

/// The server wants a password for the new user.
public final class SignUpPasswordRequiredState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// The protocol the state's action speaks, with the link a V2 state follows.
    let engine: StepEngine

    init(core: StateCore, engine: StepEngine = .v1) {
        self.core = core
        self.engine = engine
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the password.
    ///
    /// - Returns: the user was created, or the attributes the server wants next.
    /// - Throws: ``PasswordRequiredError``; a password the policy refuses
    ///   (``PasswordRequiredError/passwordPolicyViolation``) leaves this state usable.
    public func submitPassword(_ password: String) async throws(PasswordRequiredError) -> SignUpResult {
        try await core.run(PasswordRequiredError.self) { action throws(FlowError) in
            guard !password.isEmpty else {
                throw action.flow.fail(.invalidPassword(nil), note: "The password is empty; nothing was sent.")
            }
            return try await engine.signUp.submitPassword(Secret(password), action: action)
        }
    }

    /// The state's name; never the token.
    public var description: String { "SignUpPasswordRequiredState()" }
}

/// The server wants more attributes for the new user.
public final class SignUpAttributesRequiredState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// The attributes the server asked for, with their type and pattern.
    public let requiredAttributes: [RequiredAttribute]
    /// The protocol the state's action speaks, with the link a V2 state follows.
    let engine: StepEngine

    init(core: StateCore, requiredAttributes: [RequiredAttribute], engine: StepEngine = .v1) {
        self.core = core
        self.requiredAttributes = requiredAttributes
        self.engine = engine
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits attribute values.
    ///
    /// - Returns: the user was created, or the attributes still missing.
    /// - Throws: ``AttributesRequiredError``; refused values (``AttributesRequiredError/isInvalidAttributes``)
    ///   leave this state usable.
    public func submitAttributes(_ attributes: UserAttributes) async throws(AttributesRequiredError) -> SignUpResult {
        try await core.run(AttributesRequiredError.self) { action throws(FlowError) in
            try await engine.signUp.submitAttributes(attributes, action: action)
        }
    }

    /// The attribute names asked for; never the token.
    public var description: String {
        "SignUpAttributesRequiredState(required: \(requiredAttributes.map(\.name)))"
    }
}

/// The user was created: sign them in with one request.
public final class SignInAfterSignUpState: Sendable, CustomStringConvertible {
    let base: SignInAfterFlow
    var core: StateCore { base.core }

    init(flow: FlowContext, token: Secret?, engine: StepEngine = .v1) {
        base = SignInAfterFlow(
            core: StateCore(flow: flow, token: token ?? Secret("")), engine: engine,
            unavailableNote: "The user was created, but the server gave no token for sign-in after sign-up.")
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Whether ``signIn(scopes:claims:)`` can sign the user in. `false` when the server created
    /// the user but gave no token to continue with: ask the user to sign in normally.
    public var isSignInAvailable: Bool { base.isSignInAvailable }

    /// Signs the user in, with one request to the token endpoint.
    ///
    /// - Parameter scopes: scopes for the access token, beyond `openid profile offline_access`.
    /// - Throws: ``SignInAfterSignUpError``.
    public func signIn(scopes: [String] = []) async throws(SignInAfterSignUpError) -> SignInResult {
        try await signIn(scopes: scopes, claims: nil)
    }

    /// Signs the new user in, with one request to the token endpoint.
    ///
    /// - Parameters:
    ///   - scopes: scopes for the access token, beyond `openid profile offline_access`.
    ///   - claims: an OIDC claims request (JSON) to send with the token request, such as an
    ///     authentication context the resource asks for.
    /// - Throws: ``SignInAfterSignUpError``; ``SignInAfterSignUpError/isSignInUnavailable`` when
    ///   the server gave no token to continue with (see ``isSignInAvailable``).
    @inline(never)
    public func signIn(scopes: [String] = [], claims: String?) async throws(SignInAfterSignUpError) -> SignInResult {
        try await base.signIn(scopes: scopes, claims: claims, as: SignInAfterSignUpError.self)
    }

    /// The state's name; never the token.
    public var description: String { "SignInAfterSignUpState()" }
}
