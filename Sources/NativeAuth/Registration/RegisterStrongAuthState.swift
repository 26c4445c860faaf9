public import Foundation

/// Where challenging a method for registration leads.
@nonexhaustive
public enum RegisterStrongAuthChallengeResult: Sendable {
    /// A code was sent to the contact; submit it on the state.
    case verificationRequired(
        RegisterStrongAuthVerificationRequiredState, sentTo: String, channel: ChannelType, codeLength: Int?)
    /// The contact was already verified: the method is registered and the user signed in.
    case completed(UserAccountResult)
}

/// Sign-in needs the user to register a strong authentication method first.
public final class RegisterStrongAuthState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// The kinds of method the user can register.
    public let authMethods: [AuthMethod]

    init(core: StateCore, authMethods: [AuthMethod]) {
        self.core = core
        self.authMethods = authMethods
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
        try await core.run(RegisterStrongAuthChallengeError.self) { token throws(RegisterStrongAuthChallengeError) in
            try await Self.challenge(
                authMethod, contact: verificationContact, token: token, flow: core.flow, methods: authMethods)
        }
    }

    static func challenge(
        _ method: AuthMethod, contact: String, token: Secret, flow: FlowContext, methods: [AuthMethod]
    ) async throws(RegisterStrongAuthChallengeError) -> RegisterStrongAuthChallengeResult {
        let contact = contact.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !contact.isEmpty else { throw flow.fail(.invalidInput, note: "The contact is empty; nothing was sent.") }
        typealias Failure = RegisterStrongAuthChallengeError
        let answer = try await flow.request(
            .registerChallenge(continuationToken: token, target: contact, channel: method.channel.description),
            as: Failure.self, classify: Failure.classify
        ) { reply throws(WireFailure) in try ChallengeAnswer(reply.object) }
        switch answer {
        case .code(let challenge):
            let state = RegisterStrongAuthVerificationRequiredState(
                core: StateCore(flow: flow, token: challenge.continuationToken), authMethods: methods,
                challenge: challenge)
            return .verificationRequired(
                state, sentTo: challenge.sentTo, channel: challenge.channel, codeLength: challenge.codeLength)
        case .preverified(let preverifiedToken):
            let continued = try await flow.request(
                .registerContinueWithToken(continuationToken: preverifiedToken), as: Failure.self,
                classify: Failure.classify
            ) { reply throws(WireFailure) in try ContinuationAnswer(reply.object) }
            let result = try await SignInFlow.exchange(
                .tokenWithContinuationToken(
                    continuationToken: continued.continuationToken, username: flow.username, scopes: flow.scopes),
                flow: flow, as: Failure.self, classify: Failure.classify)
            guard case .completed(let account) = result else {
                throw Failure(
                    .unexpected(
                        .init(problem: .unknownValue(field: "error", value: "second factor after registration"))),
                    correlationId: flow.correlationId, classify: Failure.classify)
            }
            return .completed(account)
        case .password:
            throw Failure(
                .unexpected(.init(problem: .unknownValue(field: "challenge_type", value: "password"))),
                correlationId: flow.correlationId, classify: Failure.classify)
        }
    }

    /// The methods offered; never the token.
    public var description: String { "RegisterStrongAuthState(methods: \(authMethods.map(\.id)))" }
}

/// A code was sent to the contact being registered: submit it, or challenge a contact again.
public final class RegisterStrongAuthVerificationRequiredState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// The kinds of method the user can register.
    public let authMethods: [AuthMethod]
    /// Where the code was sent.
    public let sentTo: String
    /// How the code was sent.
    public let channel: ChannelType
    /// How many characters the code has, when the server said.
    public let codeLength: Int?

    init(core: StateCore, authMethods: [AuthMethod], challenge: CodeChallenge) {
        self.core = core
        self.authMethods = authMethods
        sentTo = challenge.sentTo
        channel = challenge.channel
        codeLength = challenge.codeLength
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the code sent to the contact; on success the method is registered and sign-in goes on.
    ///
    /// - Throws: ``RegisterStrongAuthSubmitChallengeError``; a wrong code leaves this state usable.
    public func submitChallenge(_ code: String) async throws(RegisterStrongAuthSubmitChallengeError) -> SignInResult {
        typealias Failure = RegisterStrongAuthSubmitChallengeError
        return try await core.run(Failure.self) { token throws(Failure) in
            let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !code.isEmpty else {
                throw core.flow.fail(.invalidCode, note: "The code is empty; nothing was sent.")
            }
            let continued = try await core.flow.request(
                .registerContinueWithCode(continuationToken: token, code: Secret(code)), as: Failure.self,
                classify: Failure.classify
            ) { reply throws(WireFailure) in try ContinuationAnswer(reply.object) }
            return try await SignInFlow.exchange(
                .tokenWithContinuationToken(
                    continuationToken: continued.continuationToken, username: core.flow.username,
                    scopes: core.flow.scopes),
                flow: core.flow, as: Failure.self, classify: Failure.classify)
        }
    }

    /// Challenges a contact again (the same one to resend, or another).
    ///
    /// - Throws: ``RegisterStrongAuthChallengeError``.
    public func challengeAuthMethod(authMethod: AuthMethod, verificationContact: String)
        async throws(RegisterStrongAuthChallengeError) -> RegisterStrongAuthChallengeResult
    {
        try await core.run(RegisterStrongAuthChallengeError.self) { token throws(RegisterStrongAuthChallengeError) in
            try await RegisterStrongAuthState.challenge(
                authMethod, contact: verificationContact, token: token, flow: core.flow, methods: authMethods)
        }
    }

    /// The state's name; never the token.
    public var description: String {
        "RegisterStrongAuthVerificationRequiredState(sentTo: \(sentTo), channel: \(channel))"
    }
}
