public import Foundation

/// Sign-in needs the user to register a strong authentication method first.
public final class RegisterStrongAuthState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// The kinds of method the user can register.
    public let authMethods: [AuthMethod]
    /// The protocol the state's action speaks; over V2, each method's checked `enroll` link.
    let engine: StepEngine

    init(core: StateCore, authMethods: [AuthMethod], engine: StepEngine = .v1) {
        self.core = core
        self.authMethods = authMethods
        self.engine = engine
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Registers `verificationContact` (an email address or phone number) for `authMethod`.
    ///
    /// - Returns: a state to submit the code sent to the contact, or, when the contact was already
    ///   verified, the signed-in account.
    /// - Throws: ``RegisterStrongAuthChallengeError``; an invalid or blocked contact leaves this
    ///   state usable.
    public func challengeAuthMethod(authMethod: AuthMethod, verificationContact: String)
        async throws(RegisterStrongAuthChallengeError) -> RegisterStrongAuthChallengeResult
    {
        try await Self.challenge(
            authMethod, contact: verificationContact, on: core, methods: authMethods, engine: engine)
    }

    /// Registers `contact` for `method` with the token of `core`'s state.
    @inline(never)
    static func challenge(
        _ method: AuthMethod, contact: String, on core: StateCore, methods: [AuthMethod], engine: StepEngine
    ) async throws(RegisterStrongAuthChallengeError) -> RegisterStrongAuthChallengeResult {
        typealias Failure = RegisterStrongAuthChallengeError
        return try await core.run(Failure.self) { action throws(FlowError) in
            let flow = action.flow
            let contact = contact.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !contact.isEmpty else {
                throw flow.fail(.invalidInput, note: "The contact is empty; nothing was sent.")
            }
            return try await engine.signIn.registerChallenge(method, contact: contact, methods: methods, action: action)
        }
    }

    /// The methods offered; never the token.
    public var description: String { "RegisterStrongAuthState(methods: \(authMethods.map(\.id)))" }
}

/// A code was sent to the contact being registered: submit it, or challenge a contact again.
public final class RegisterStrongAuthVerificationRequiredState: Sendable, CustomStringConvertible {
    let codeCore: CodeStateCore
    var core: StateCore { codeCore.core }
    /// The kinds of method the user can register.
    public let authMethods: [AuthMethod]
    /// Where the code was sent.
    public var sentTo: String { codeCore.sentTo }
    /// How the code was sent (email, SMS): the `channelTargetType` of the delegate callbacks.
    public var channelTargetType: ChannelType { codeCore.channel }
    /// How the code was sent: the earlier name of ``channelTargetType``.
    @available(*, deprecated, renamed: "channelTargetType")
    public var channel: ChannelType { channelTargetType }
    /// How many characters the code has, when the server said.
    public var codeLength: Int? { codeCore.codeLength }
    /// The method and contact being registered.
    let method: AuthMethod
    let contact: String
    /// Over V2, every method's `enroll` link (to send the code again, or register another
    /// contact); `.v1` otherwise.
    let registration: StepEngine

    init(
        codeCore: CodeStateCore, method: AuthMethod, contact: String, authMethods: [AuthMethod],
        registration: V2StepContext? = nil
    ) {
        self.codeCore = codeCore
        self.method = method
        self.contact = contact
        self.authMethods = authMethods
        self.registration = registration.map { .v2($0) } ?? .v1
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the code sent to the contact; on success the method is registered and sign-in goes on.
    ///
    /// - Throws: ``RegisterStrongAuthSubmitChallengeError``; a wrong code leaves this state usable.
    @inline(never)
    public func submitChallenge(_ code: String) async throws(RegisterStrongAuthSubmitChallengeError) -> SignInResult {
        typealias Failure = RegisterStrongAuthSubmitChallengeError
        return try await codeCore.submit(code, as: Failure.self) { code, action throws(FlowError) in
            try await codeCore.engine.signIn.registerSubmit(code, action: action)
        }
    }

    /// Submits the code sent to the contact: the earlier name of ``submitChallenge(_:)``, MSAL's
    /// name for the step.
    @available(*, deprecated, renamed: "submitChallenge(_:)")
    public func submitCode(_ code: String) async throws(RegisterStrongAuthSubmitChallengeError) -> SignInResult {
        try await submitChallenge(code)
    }

    /// Challenges a contact again (the same one to resend, or another).
    ///
    /// - Throws: ``RegisterStrongAuthChallengeError``.
    public func challengeAuthMethod(authMethod: AuthMethod, verificationContact: String)
        async throws(RegisterStrongAuthChallengeError) -> RegisterStrongAuthChallengeResult
    {
        try await RegisterStrongAuthState.challenge(
            authMethod, contact: verificationContact, on: core, methods: authMethods, engine: registration)
    }

    /// Sends a new code to the same contact.
    ///
    /// - Throws: ``RegisterStrongAuthChallengeError``.
    public func resendCode() async throws(RegisterStrongAuthChallengeError) -> RegisterStrongAuthChallengeResult {
        try await challengeAuthMethod(authMethod: method, verificationContact: contact)
    }

    /// Where the code went; never the code or token.
    public var description: String { codeCore.describe("RegisterStrongAuthVerificationRequiredState") }
}
