public import NativeAuth
import NativeAuthEmulator

/// How to reach each state of ``FlowStateKind`` on the emulator, and how to move it on: a client
/// (asking for the second factor and method registration) on an ``EmulatorHarness`` tenant with its
/// fixture users, a required sign-up attribute (`city`) and a password reset that completes at
/// once. The client speaks V1, or V2 (``FlowStateVariant``): V2 reaches every state but method
/// registration's, by the same steps.
public struct FlowFixture: Sendable {
    public static let newUser = "rules@example.com"
    public static let password = EmulatorHarness.password
    public static let newPassword = "N3w-Secure-Pass!"

    public let harness: EmulatorHarness
    public let client: NativeAuthClient
    /// The protocol the client speaks.
    public let protocolVersion: NativeAuthProtocol

    /// A fixture on `harness`, whose client speaks `protocolVersion` and sends through `transport`
    /// (the tenant itself by default).
    public init(
        harness: EmulatorHarness = EmulatorHarness(), transport: (any HTTPTransport)? = nil,
        protocolVersion: NativeAuthProtocol = .v1
    ) {
        self.harness = harness
        self.protocolVersion = protocolVersion
        var configuration = try? NativeAuthConfiguration(
            clientId: harness.tenant.clientId, authority: harness.tenant.authority,
            capabilities: [.mfaRequired, .registrationRequired])
        configuration?.clock = harness.clock
        configuration?.protocolVersion = protocolVersion
        configuration?.requestTimeout = TestBounds.requestDeadline
        guard let configuration else { preconditionFailure("configuration") }
        client = NativeAuthClient(
            configuration: configuration, transport: transport ?? harness.tenant,
            credentialStore: InMemoryCredentialStore())
        harness.tenant.configure {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "city")]
            $0.resetPollsBeforeCompletion = 0
        }
    }

    /// The last code the tenant sent to `address` (empty when none was sent).
    public func code(_ address: String) -> String { harness.tenant.lastCode(sentTo: address) ?? "" }

    /// A new state of `kind`, reached from the start of its flow.
    public func reach(_ kind: FlowStateKind) async throws -> FlowState {
        if protocolVersion == .v2, !kind.isReachableOverV2 {
            throw TestFailure("\(kind.typeName) is not reached over V2")
        }
        let password = Self.password
        switch kind {
        case .signInCode: return try await start(.signIn, "grace@example.com", expecting: kind)
        case .signInPassword: return try await start(.signIn, "ada@example.com", expecting: kind)
        case .awaitingMFA: return try await start(.signIn, "alan@example.com", password: password, expecting: kind)
        case .registerStrongAuth:
            return try await start(.signIn, "joan@example.com", password: password, expecting: kind)
        case .signUpCode: return try await start(.signUp, Self.newUser, expecting: kind)
        case .resetCode: return try await start(.resetPassword, "ada@example.com", expecting: kind)
        case .signUpOrSignInCode: return try await start(.signUpOrSignIn, Self.newUser, expecting: kind)
        case .signUpPassword:
            return try await next(forward(try await start(.signUp, Self.newUser, expecting: .signUpCode)), kind)
        case .signUpAttributes:
            let code = try await start(.signUp, Self.newUser, password: password, expecting: .signUpCode)
            return try await next(forward(code), kind)
        case .signInAfterSignUp:
            let code = try await start(
                .signUp, Self.newUser, password: password, attributes: ["city": "Oslo"], expecting: .signUpCode)
            return try await next(forward(code), kind)
        case .mfaRequired: return try await next(forward(try await reach(.awaitingMFA)), kind)
        case .registerVerification: return try await next(forward(try await reach(.registerStrongAuth)), kind)
        case .resetPassword: return try await next(forward(try await reach(.resetCode)), kind)
        case .signInAfterReset: return try await next(forward(try await reach(.resetPassword)), kind)
        case .authMethodSelection:
            // V2 only: a tenant that offers every first factor, and a sign-in that lets the user choose.
            guard protocolVersion == .v2 else { throw TestFailure("\(kind.typeName) is reached over V2 only") }
            harness.tenant.configure { $0.nativeAuthV2FirstFactorChoice = true }
            var parameters = SignInParameters(username: "ada@example.com")
            parameters.selectsAuthMethod = true
            let result = await FlowActionResult.attempt(
                { () async throws(SignInStartError) in try await client.signIn(parameters) }, FlowOutcome.of)
            return try await next(result, kind)
        case .resetAuthMethodSelection:
            // V2 only: a tenant that offers the email and SMS methods for recovery, to a user with
            // an SMS method, and a reset that lets the user choose.
            guard protocolVersion == .v2 else { throw TestFailure("\(kind.typeName) is reached over V2 only") }
            harness.tenant.configure { $0.nativeAuthV2RecoveryMethods = .emailAndSMS }
            harness.tenant.addUser(Self.smsUser)
            var parameters = ResetPasswordParameters(username: Self.smsUser.username)
            parameters.selectsAuthMethod = true
            let result = await FlowActionResult.attempt(
                { () async throws(ResetPasswordStartError) in try await client.resetPassword(parameters) },
                FlowOutcome.of)
            return try await next(result, kind)
        }
    }

    /// A user with a password and an SMS method, for the choice of a recovery method.
    static let smsUser = EmulatedUser(
        username: "ida@example.com", password: password,
        mfaMethods: [EmulatedAuthMethod(id: "ida-sms", channel: "sms", address: "+15550100")])

    /// The input with which the forward call of `state` (``FlowStateKind/forwardCall``) succeeds,
    /// read when it is asked for: a code is the last one the tenant sent.
    public func forwardInput(for state: FlowState) -> FlowActionInput {
        switch state.kind {
        case .signInCode: FlowActionInput(code: code("grace@example.com"))
        case .signInPassword, .signUpPassword: FlowActionInput(password: Self.password)
        case .awaitingMFA: FlowActionInput()
        case .mfaRequired: FlowActionInput(code: code("alan.backup@example.com"))
        case .registerStrongAuth: FlowActionInput(contact: "joan.x@example.com")
        case .registerVerification: FlowActionInput(code: code("joan.x@example.com"))
        case .signUpCode, .signUpOrSignInCode: FlowActionInput(code: code(Self.newUser))
        case .signUpAttributes: FlowActionInput(attributes: ["city": "Oslo"])
        case .resetCode: FlowActionInput(code: code("ada@example.com"))
        case .resetPassword: FlowActionInput(password: Self.newPassword)
        case .signInAfterSignUp, .signInAfterReset: FlowActionInput()
        case .authMethodSelection, .resetAuthMethodSelection: FlowActionInput()
        }
    }

    /// Makes the forward call of `state` with ``forwardInput(for:)``. A new password's wait for the
    /// reset to complete moves the manual clock as the SDK sleeps; nothing else does, so another
    /// call waiting on the clock (the tenant's latency) waits until the test moves it.
    public func forward(_ state: FlowState) async -> FlowActionResult {
        let mover = state.kind == .resetPassword ? advanceWhileSleeping(harness.clock) : nil
        defer { mover?.cancel() }
        let call = state.kind.forwardCall
        return await state.perform(call, forwardInput(for: state))
            ?? FlowActionResult(outcome: .unknown("\(state.kind) has no \(call)"), declaredError: "")
    }

    private func start(
        _ flow: FlowStateKind.Flow, _ username: String, password: String? = nil, attributes: UserAttributes = [:],
        expecting kind: FlowStateKind
    ) async throws -> FlowState {
        try await next(client.start(flow, username: username, password: password, attributes: attributes), kind)
    }

    private func next(_ result: FlowActionResult, _ kind: FlowStateKind) async throws -> FlowState {
        guard case .state(let state) = result.outcome, state.kind == kind else {
            throw TestFailure("expected a \(kind.typeName), got \(result.outcome)")
        }
        return state
    }
}
