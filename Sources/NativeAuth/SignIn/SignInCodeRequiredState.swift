public import Foundation

/// A one-time code was sent for sign-in: submit it, or ask for a new one.
public final class SignInCodeRequiredState: CodeRequiredState {
    let codeCore: CodeStateCore
    var core: StateCore { codeCore.core }
    /// Where the code was sent, masked (such as `a***e@co**o.com`).
    public var sentTo: String { codeCore.sentTo }
    /// How the code was sent (email, SMS): the `channelTargetType` of the delegate callbacks.
    public var channelTargetType: ChannelType { codeCore.channel }
    /// How many characters the code has, when the server said.
    public var codeLength: Int? { codeCore.codeLength }

    init(codeCore: CodeStateCore) { self.codeCore = codeCore }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the code the user received.
    ///
    /// - Returns: where sign-in goes next: signed in, or a second factor or method registration.
    /// - Throws: ``VerifyCodeError``. A wrong or empty code (``VerifyCodeError/isInvalidCode``)
    ///   leaves this state usable, so the user can try again.
    @inline(never)
    public func submitCode(_ code: String) async throws(VerifyCodeError) -> SignInResult {
        try await codeCore.submit(code, as: VerifyCodeError.self) { code, action throws(FlowError) in
            try await codeCore.engine.signIn.submitCode(code, factor: .first, action: action)
        }
    }

    /// Sends a new code; the previous one stops working.
    ///
    /// - Returns: a fresh state for the new code; this one is spent.
    /// - Throws: ``ResendCodeError``.
    @inline(never)
    public func resendCode() async throws(ResendCodeError) -> SignInCodeRequiredState {
        SignInCodeRequiredState(
            codeCore: try await codeCore.resend(as: ResendCodeError.self) { action throws(FlowError) in
                try await codeCore.engine.signIn.resendCode(action: action)
            })
    }

    /// Where the code went; never the code or token.
    public var description: String { codeCore.describe("SignInCodeRequiredState") }
}
