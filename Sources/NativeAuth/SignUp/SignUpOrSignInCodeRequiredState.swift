public import Foundation

/// A one-time code was sent by ``NativeAuthClient/signUpOrSignIn(_:)``: to sign a known user in,
/// or to verify a new user's address. Submitting it ends signed in either way (for a new user,
/// the account is created and signed in with one more request), unless the tenant asks for more.
public final class SignUpOrSignInCodeRequiredState: CodeRequiredState {
    /// Indirect: a value is one reference to its case's fields, so copying it, and the code
    /// that copies and destroys it, stay small.
    indirect enum Path: Sendable {
        case signIn(SignInCodeRequiredState)
        case signUp(SignUpCodeRequiredState, scopes: [String], claims: String?)
    }

    let path: Path

    init(_ path: Path) { self.path = path }

    @inline(never)
    var codeCore: CodeStateCore {
        switch path {
        case .signIn(let state): state.codeCore
        case .signUp(let state, _, _): state.codeCore
        }
    }
    var core: StateCore { codeCore.core }

    /// Whether the username was new: submitting the code creates the account.
    public var isNewUser: Bool {
        if case .signUp = path { return true }
        return false
    }
    /// Where the code was sent, masked (such as `a***e@co**o.com`).
    public var sentTo: String { codeCore.sentTo }
    /// How the code was sent (email, SMS): the `channelTargetType` of the delegate callbacks.
    public var channelTargetType: ChannelType { codeCore.channel }
    /// How many characters the code has, when the server said.
    public var codeLength: Int? { codeCore.codeLength }
    /// The flow's correlation id.
    public var correlationId: UUID { core.flow.correlationId }

    /// Submits the code the user received.
    ///
    /// For a known user this is ``SignInCodeRequiredState/submitCode(_:)``. For a new user it is
    /// ``SignUpCodeRequiredState/submitCode(_:)`` followed, once the account exists, by
    /// ``SignInAfterSignUpState/signIn(scopes:claims:)`` with the flow's scopes.
    ///
    /// - Returns: signed in (saying whether the account was created), or the step the server
    ///   asks for next.
    /// - Throws: ``VerifyCodeError``. A wrong or empty code (``VerifyCodeError/isInvalidCode``)
    ///   leaves this state usable. When the account was created but signing in failed, the state
    ///   is spent and the account exists: start ``NativeAuthClient/signUpOrSignIn(_:)`` again and
    ///   it signs the user in.
    @inline(never)
    public func submitCode(_ code: String) async throws(VerifyCodeError) -> SignUpOrSignInResult {
        switch path {
        case .signIn(let state):
            return SignUpOrSignInResult(try await state.submitCode(code), accountCreated: false)
        case .signUp(let state, let scopes, let claims):
            switch try await state.submitCode(code) {
            case .completed(let created):
                do {
                    return SignUpOrSignInResult(
                        try await created.signIn(scopes: scopes, claims: claims), accountCreated: true)
                } catch {
                    var details = error.details
                    details.stateConsumed = true
                    throw VerifyCodeError(details: details)
                }
            case .passwordRequired(let next):
                return .newUserPasswordRequired(next)
            case .attributesRequired(let attributes, let next):
                return .newUserAttributesRequired(attributes, next)
            case .codeRequired:
                // A second code right after this one is no answer to a code.
                throw VerifyCodeError(
                    .unexpectedResponse, correlationId: correlationId, note: "The server asked for a code again.")
            }
        }
    }

    /// Sends a new code; the previous one stops working.
    ///
    /// - Returns: a fresh state for the new code; this one is spent.
    /// - Throws: ``ResendCodeError``.
    @inline(never)
    public func resendCode() async throws(ResendCodeError) -> SignUpOrSignInCodeRequiredState {
        switch path {
        case .signIn(let state):
            return SignUpOrSignInCodeRequiredState(.signIn(try await state.resendCode()))
        case .signUp(let state, let scopes, let claims):
            return SignUpOrSignInCodeRequiredState(
                .signUp(try await state.resendCode(), scopes: scopes, claims: claims))
        }
    }

    /// Where the code went and whether the user is new; never the code or token.
    public var description: String {
        let described = codeCore.describe("SignUpOrSignInCodeRequiredState")
        return String(described.dropLast()) + ", isNewUser: \(isNewUser))"
    }
}
