public import Foundation

/// The server offers several methods to recover the account with (native authentication V2): the
/// user chooses where the code goes, an email address or a phone. MSAL names this step
/// `AuthMethodSelectionRequired`. Returned only when the app asked for it with
/// ``ResetPasswordParameters/selectsAuthMethod``.
public final class ResetPasswordAuthMethodSelectionRequiredState: Sendable, CustomStringConvertible,
    CustomReflectable
{
    let core: StateCore
    /// The methods offered, in the server's order: email and SMS codes.
    public let authMethods: [AuthMethod]
    /// Each method's checked `challenge` link.
    let methodLinks: V2StepContext

    init(core: StateCore, authMethods: [AuthMethod], methodLinks: V2StepContext) {
        self.core = core
        self.authMethods = authMethods
        self.methodLinks = methodLinks
    }

    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Chooses `authMethod`: a code is sent to it.
    ///
    /// - Returns: ``ResetPasswordStartResult/codeRequired(_:sentTo:channelTargetType:codeLength:)``,
    ///   as a reset's start returns it.
    /// - Throws: ``ResetPasswordStartError``; a method the server did not offer is refused before
    ///   anything is sent, and the state stays usable.
    public func selectAuthMethod(_ authMethod: AuthMethod) async throws(ResetPasswordStartError)
        -> ResetPasswordStartResult
    {
        try await core.run(ResetPasswordStartError.self) { action throws(FlowError) in
            try await ResetPasswordStepsV2(context: methodLinks).select(authMethod, action: action)
        }
    }

    /// Chooses `authMethod` and reports the outcome to `delegate`, once, on the main actor. The
    /// delegate form of ``selectAuthMethod(_:)``.
    public func selectAuthMethod(_ authMethod: AuthMethod, delegate: any ResetPasswordStartDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(ResetPasswordStartError) in
            try await self.selectAuthMethod(authMethod)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onResetPasswordStartError(error: error)
        }
    }

    /// The methods offered; never the token or a link.
    public var description: String {
        "ResetPasswordAuthMethodSelectionRequiredState(methods: \(authMethods.map(\.id)))"
    }

    /// Reflection shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
