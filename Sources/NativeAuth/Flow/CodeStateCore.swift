public import Foundation

/// A state that waits for a one-time code the server sent: sign-in, sign-up, password reset and
/// the multi-factor step. One screen can serve them all: show where the code went, take the code,
/// offer to send a new one.
///
/// ```swift
/// func codeScreen<State: CodeRequiredState>(_ state: State) async {
///     print("Enter the \(state.codeLength ?? 8)-character code sent to \(state.sentTo)")
///     // try await state.submitCode(code), or try await state.resendCode()
/// }
/// ```
public protocol CodeRequiredState: AnyObject, Sendable, CustomStringConvertible, CustomReflectable {
    /// Where submitting the code leads (such as ``SignInResult``).
    associatedtype CodeResult: Sendable
    /// Why a submitted code did not lead on.
    associatedtype CodeError: NativeAuthError
    /// Why no new code was sent.
    associatedtype ResendError: NativeAuthError

    /// Where the code was sent, masked (such as `a***e@co**o.com`).
    var sentTo: String { get }
    /// How the code was sent (email, SMS): the `channelTargetType` of the delegate callbacks.
    var channelTargetType: ChannelType { get }
    /// How many characters the code has, when the server said.
    var codeLength: Int? { get }
    /// The flow's correlation id.
    var correlationId: UUID { get }

    /// Submits the code the user received. A wrong or empty code leaves the state usable.
    ///
    /// On ``MFARequiredState`` this is ``MFARequiredState/submitChallenge(_:)``, MSAL's name for
    /// the step: call that one when the type is known, and this one from code written for any
    /// code step.
    func submitCode(_ code: String) async throws(CodeError) -> CodeResult
    /// Sends a new code; the previous one stops working, and this state is spent.
    func resendCode() async throws(ResendError) -> Self
}

extension CodeRequiredState {
    /// Reflection (`dump`, debuggers, `Mirror`) shows the description only, never the token inside.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// How the code was sent: the earlier name of ``channelTargetType``.
    @available(*, deprecated, renamed: "channelTargetType")
    public var channel: ChannelType { channelTargetType }
}

/// What the code-entry states share: where the code went, the empty-code guard, resending and
/// the description. Each state adds only what submitting its code sends and where it leads.
/// A class: it never changes once built, and its fields are shared rather than copied.
final class CodeStateCore: Sendable {
    let core: StateCore
    let sentTo: String
    let channel: ChannelType
    let codeLength: Int?
    /// The protocol the state's actions speak, with the links a V2 state follows.
    let engine: StepEngine

    init(core: StateCore, challenge: CodeChallenge, engine: StepEngine = .v1) {
        self.core = core
        sentTo = challenge.sentTo
        channel = challenge.channel
        codeLength = challenge.codeLength
        self.engine = engine
    }

    convenience init(flow: FlowContext, challenge: CodeChallenge, engine: StepEngine = .v1) {
        self.init(
            core: StateCore(flow: flow, token: challenge.continuationToken), challenge: challenge, engine: engine)
    }

    /// Runs the state's action with the trimmed code; an empty code fails before anything is sent
    /// and leaves the state usable.
    func submit<T, E: DetailedError>(
        _ code: String, as errorType: E.Type, _ body: (Secret, StateCore.Action) async throws(FlowError) -> T
    ) async throws(E) -> T {
        try await core.run(E.self) { action throws(FlowError) in try await body(Self.trimmed(code, action), action) }
    }

    /// The code without surrounding white space; an empty code fails. Not generic: compiled once
    /// for every code state.
    private static func trimmed(_ code: String, _ action: StateCore.Action) throws(FlowError) -> Secret {
        let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !code.isEmpty else { throw action.flow.fail(.invalidCode, note: "The code is empty; nothing was sent.") }
        return Secret(code)
    }

    /// Asks for a new code with `body`, which makes the next code step (the journey's steps).
    func resend<E: DetailedError>(
        as errorType: E.Type, _ body: (StateCore.Action) async throws(FlowError) -> CodeStateCore
    ) async throws(E) -> CodeStateCore {
        try await core.run(E.self, body)
    }

    /// `Name(sentTo: …, channel: …, codeLength: …)`: where the code went; never the code or token.
    func describe(_ name: String) -> String {
        "\(name)(sentTo: \(sentTo), channel: \(channel), codeLength: \(codeLength.map(String.init) ?? "unknown"))"
    }
}
