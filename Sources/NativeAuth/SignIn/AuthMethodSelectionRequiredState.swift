public import Foundation

/// The server offers several first factors (native authentication V2): the user chooses one.
/// MSAL names this step `AuthMethodSelectionRequired`. Returned only when the app asked for it
/// with ``SignInParameters/selectsAuthMethod``.
public final class AuthMethodSelectionRequiredState: Sendable, CustomStringConvertible, CustomReflectable {
    let core: StateCore
    /// The methods offered, in the server's order: a password (`challengeType` `password`), an
    /// email or SMS code.
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

    /// Chooses `authMethod`: a code is sent to a code method, or the password is asked for.
    ///
    /// - Returns: ``SignInStartResult/codeRequired(_:sentTo:channelTargetType:codeLength:)`` or
    ///   ``SignInStartResult/passwordRequired(_:)``, as a sign-in's start returns them.
    /// - Throws: ``SignInStartError``; a method the server did not offer is refused before anything
    ///   is sent, and the state stays usable.
    public func selectAuthMethod(_ authMethod: AuthMethod) async throws(SignInStartError) -> SignInStartResult {
        try await core.run(SignInStartError.self) { action throws(FlowError) in
            try await SignInStepsV2(context: methodLinks).select(authMethod, action: action)
        }
    }

    /// Chooses `authMethod` and reports the outcome to `delegate`, once, on the main actor. The
    /// delegate form of ``selectAuthMethod(_:)``.
    public func selectAuthMethod(_ authMethod: AuthMethod, delegate: any SignInStartDelegate) {
        reportToDelegate(correlationId: correlationId) { () async throws(SignInStartError) in
            try await self.selectAuthMethod(authMethod)
        } deliver: { result in
            result.deliver(to: delegate)
        } fail: { error in
            delegate.onSignInStartError(error: error)
        }
    }

    /// The methods offered; never the token or a link.
    public var description: String { "AuthMethodSelectionRequiredState(methods: \(authMethods.map(\.id)))" }

    /// Reflection shows the description only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
