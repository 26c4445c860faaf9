public import Foundation

/// A multi-factor code was sent: submit it, or send one to a method again.
public final class MFARequiredState: CodeRequiredState {
    let codeCore: CodeStateCore
    var core: StateCore { codeCore.core }
    /// Where the code was sent, masked.
    public var sentTo: String { codeCore.sentTo }
    /// How the code was sent (email, SMS): the `channelTargetType` of the delegate callbacks.
    public var channelTargetType: ChannelType { codeCore.channel }
    /// How many characters the code has, when the server said.
    public var codeLength: Int? { codeCore.codeLength }
    /// The user's methods, to send a code to another one.
    public let authMethods: [AuthMethod]
    /// The method the code was sent to.
    let method: AuthMethod
    /// Over V2, the `challenge` link of every method (to send a code again, or to another one);
    /// `.v1` otherwise.
    let methodLinks: StepEngine

    init(codeCore: CodeStateCore, method: AuthMethod, authMethods: [AuthMethod], methodLinks: V2StepContext? = nil) {
        self.codeCore = codeCore
        self.method = method
        self.authMethods = authMethods
        self.methodLinks = methodLinks.map { .v2($0) } ?? .v1
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Sends a code to `authMethod` (again, or to another method).
    ///
    /// - Returns: a fresh state for the new code; this one is spent.
    /// - Throws: ``MFARequestChallengeError``.
    public func requestChallenge(authMethod: AuthMethod) async throws(MFARequestChallengeError) -> MFARequiredState {
        try await Self.challenge(authMethod, on: core, methods: authMethods, engine: methodLinks)
    }

    /// Sends a new code to the same method; the previous one stops working.
    ///
    /// - Returns: a fresh state for the new code; this one is spent.
    /// - Throws: ``MFARequestChallengeError``.
    public func resendCode() async throws(MFARequestChallengeError) -> MFARequiredState {
        try await requestChallenge(authMethod: method)
    }

    /// Submits the code the user received.
    ///
    /// - Returns: where sign-in goes next.
    /// - Throws: ``MFASubmitChallengeError``; a wrong code leaves this state usable.
    @inline(never)
    public func submitChallenge(_ code: String) async throws(MFASubmitChallengeError) -> SignInResult {
        try await codeCore.submit(code, as: MFASubmitChallengeError.self) { code, action throws(FlowError) in
            try await codeCore.engine.signIn.submitCode(code, factor: .second, action: action)
        }
    }

    /// Submits the code the user received: the same as ``submitChallenge(_:)``.
    ///
    /// MSAL names this step `submitChallenge`; this name remains as the ``CodeRequiredState``
    /// requirement, which code written for any code step calls. Called on an `MFARequiredState`
    /// itself, it is deprecated: use ``submitChallenge(_:)``.
    @available(*, deprecated, renamed: "submitChallenge(_:)")
    public func submitCode(_ code: String) async throws(MFASubmitChallengeError) -> SignInResult {
        try await submitChallenge(code)
    }

    /// Sends a code to `method` with the token of `core`'s state.
    static func challenge(_ method: AuthMethod, on core: StateCore, methods: [AuthMethod], engine: StepEngine)
        async throws(MFARequestChallengeError) -> MFARequiredState
    {
        try await core.run(MFARequestChallengeError.self) { action throws(FlowError) in
            try await engine.signIn.requestChallenge(method, methods: methods, action: action)
        }
    }

    /// Where the code went; never the code or token.
    public var description: String { codeCore.describe("MFARequiredState") }
}
