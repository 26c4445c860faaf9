public import Foundation

/// A multi-factor code was sent: submit it, or send one to a method again.
public final class MFARequiredState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// Where the code was sent, masked.
    public let sentTo: String
    /// How the code was sent.
    public let channel: ChannelType
    /// How many characters the code has, when the server said.
    public let codeLength: Int?
    /// The user's methods, to send a code to another one.
    public let authMethods: [AuthMethod]

    init(core: StateCore, challenge: CodeChallenge, authMethods: [AuthMethod]) {
        self.core = core
        sentTo = challenge.sentTo
        channel = challenge.channel
        codeLength = challenge.codeLength
        self.authMethods = authMethods
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Sends a code to `authMethod` (again, or to another method).
    ///
    /// - Returns: a fresh state for the new code; this one is spent.
    /// - Throws: ``MFARequestChallengeError``.
    public func requestChallenge(authMethod: AuthMethod) async throws(MFARequestChallengeError) -> MFARequiredState {
        try await core.run(MFARequestChallengeError.self) { token throws(MFARequestChallengeError) in
            try await Self.challenge(authMethod, token: token, flow: core.flow, methods: authMethods)
        }
    }

    /// Submits the code the user received.
    ///
    /// - Returns: where sign-in goes next.
    /// - Throws: ``MFASubmitChallengeError``; a wrong code leaves this state usable.
    public func submitChallenge(_ code: String) async throws(MFASubmitChallengeError) -> SignInResult {
        try await core.run(MFASubmitChallengeError.self) { token throws(MFASubmitChallengeError) in
            let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !code.isEmpty else {
                throw core.flow.fail(.invalidCode, note: "The code is empty; nothing was sent.")
            }
            return try await SignInFlow.exchange(
                .tokenWithMFACode(continuationToken: token, code: Secret(code), scopes: core.flow.scopes),
                flow: core.flow, as: MFASubmitChallengeError.self, classify: MFASubmitChallengeError.classify)
        }
    }

    static func challenge(_ method: AuthMethod, token: Secret, flow: FlowContext, methods: [AuthMethod])
        async throws(MFARequestChallengeError) -> MFARequiredState
    {
        let challenge = try await flow.requestCode(
            .signInChallenge(continuationToken: token, methodId: method.id), as: MFARequestChallengeError.self,
            classify: MFARequestChallengeError.classify)
        return MFARequiredState(
            core: StateCore(flow: flow, token: challenge.continuationToken), challenge: challenge, authMethods: methods)
    }

    /// Where the code went; never the code or token.
    public var description: String { "MFARequiredState(sentTo: \(sentTo), channel: \(channel))" }
}
