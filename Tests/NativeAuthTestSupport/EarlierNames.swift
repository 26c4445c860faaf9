public import NativeAuth

/// The challenge steps' earlier `submitCode(_:)`, which MSAL calls `submitChallenge`: deprecated,
/// and still driven by the flow drivers so that it keeps working.
///
/// The calls go through protocols whose witness is the deprecated method (for the multi-factor
/// step, ``CodeRequiredState`` itself): a witness is not a use, so the drivers compile without
/// warnings while apps calling the earlier name on the state are told the new one.
public enum EarlierNames: Sendable {
    /// `submitCode(_:)` of the multi-factor code step.
    public static func submitCode(_ state: MFARequiredState, _ code: String)
        async throws(MFASubmitChallengeError) -> SignInResult
    {
        try await submitAnyCode(state, code)
    }

    /// `submitCode(_:)` of the registration code step.
    public static func submitCode(_ state: RegisterStrongAuthVerificationRequiredState, _ code: String)
        async throws(RegisterStrongAuthSubmitChallengeError) -> SignInResult
    {
        try await submitRegistrationCode(state, code)
    }

    private static func submitAnyCode<State: CodeRequiredState>(_ state: State, _ code: String)
        async throws(State.CodeError) -> State.CodeResult
    {
        try await state.submitCode(code)
    }

    private static func submitRegistrationCode(_ state: some EarlierRegistrationSubmitCode, _ code: String)
        async throws(RegisterStrongAuthSubmitChallengeError) -> SignInResult
    {
        try await state.submitCode(code)
    }
}

/// The registration code step's earlier `submitCode(_:)`.
public protocol EarlierRegistrationSubmitCode {
    /// Submits the code sent to the contact being registered.
    func submitCode(_ code: String) async throws(RegisterStrongAuthSubmitChallengeError) -> SignInResult
}

extension RegisterStrongAuthVerificationRequiredState: EarlierRegistrationSubmitCode {}
