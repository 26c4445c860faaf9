public import Foundation

/// Sign-in needs a second factor: choose one of the user's methods to receive a code.
public final class AwaitingMFAState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// The user's methods, from the server.
    public let authMethods: [AuthMethod]
    /// The protocol the state's action speaks; over V2, each method's checked `challenge` link.
    let engine: StepEngine

    init(core: StateCore, authMethods: [AuthMethod], engine: StepEngine = .v1) {
        self.core = core
        self.authMethods = authMethods
        self.engine = engine
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Sends a code to `authMethod`.
    ///
    /// - Returns: the state to submit the code on.
    /// - Throws: ``MFARequestChallengeError``; a blocked method leaves this state usable.
    public func requestChallenge(authMethod: AuthMethod) async throws(MFARequestChallengeError) -> MFARequiredState {
        try await MFARequiredState.challenge(authMethod, on: core, methods: authMethods, engine: engine)
    }

    /// The methods offered; never the token.
    public var description: String { "AwaitingMFAState(methods: \(authMethods.map(\.id)))" }
}
