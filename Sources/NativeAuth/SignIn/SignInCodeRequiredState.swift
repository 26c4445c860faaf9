public import Foundation

/// A one-time code was sent for sign-in: submit it, or ask for a new one.
public final class SignInCodeRequiredState: Sendable, CustomStringConvertible {
    let core: StateCore
    /// Where the code was sent, masked (such as `a***e@co**o.com`).
    public let sentTo: String
    /// How the code was sent.
    public let channel: ChannelType
    /// How many characters the code has, when the server said.
    public let codeLength: Int?

    init(flow: FlowContext, challenge: CodeChallenge) {
        core = StateCore(flow: flow, token: challenge.continuationToken)
        sentTo = challenge.sentTo
        channel = challenge.channel
        codeLength = challenge.codeLength
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the code the user received.
    ///
    /// - Returns: where sign-in goes next: signed in, or a second factor or method registration.
    /// - Throws: ``VerifyCodeError``. A wrong or empty code (``VerifyCodeError/isInvalidCode``)
    ///   leaves this state usable, so the user can try again.
    public func submitCode(_ code: String) async throws(VerifyCodeError) -> SignInResult {
        try await core.run(VerifyCodeError.self) { token throws(VerifyCodeError) in
            let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !code.isEmpty else {
                throw core.flow.fail(.invalidCode, note: "The code is empty; nothing was sent.")
            }
            return try await SignInFlow.exchange(
                .tokenWithCode(continuationToken: token, code: Secret(code), scopes: core.flow.scopes),
                flow: core.flow, as: VerifyCodeError.self, classify: VerifyCodeError.classify)
        }
    }

    /// Sends a new code; the previous one stops working.
    ///
    /// - Returns: a fresh state for the new code; this one is spent.
    /// - Throws: ``ResendCodeError``.
    public func resendCode() async throws(ResendCodeError) -> SignInCodeRequiredState {
        try await core.run(ResendCodeError.self) { token throws(ResendCodeError) in
            let challenge = try await core.flow.requestCode(
                .signInChallenge(continuationToken: token, methodId: nil), as: ResendCodeError.self,
                classify: ResendCodeError.classify)
            return SignInCodeRequiredState(flow: core.flow, challenge: challenge)
        }
    }

    /// Where the code went; never the code or token.
    public var description: String {
        "SignInCodeRequiredState(sentTo: \(sentTo), channel: \(channel), codeLength: \(codeLength.map(String.init) ?? "unknown"))"
    }
}
