// The samples of Docs/SignIn.md, and the tests that run them against an emulated tenant, with
// the console scripted.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The guide's input helper, the same as README.md's `ask` (which the samples below call); kept
/// in a namespace so that the two do not clash.
enum SignInGuideHelper {
    // snippet: sign-in-ask
    // import NativeAuth

    func ask(_ prompt: String) -> String {
        print(prompt, terminator: " ")
        return readLine() ?? ""
    }
    // snippet: end
}

// snippet: sign-in-start
func start(client: NativeAuthClient, email: String) async throws -> UserAccountResult? {
    switch try await client.signIn(SignInParameters(username: email)) {
    case .codeRequired(let state, let sentTo, let channelTargetType, let codeLength):
        print("A \(codeLength.map { "\($0)-character " } ?? "")code was sent by \(channelTargetType) to \(sentTo).")
        return try await enterCode(state)
    case .passwordRequired(let state):
        return try await enterPassword(state)
    case .completed(let account):
        return account
    case .awaitingMFA(let state, let methods):
        return try await secondFactor(state, methods: methods)
    case .strongAuthRegistrationRequired(let state, let methods):
        return try await registerMethod(state, methods: methods)
    case .authMethodSelectionRequired:
        return nil  // only when SignInParameters.selectsAuthMethod asks for it (V2)
    @unknown default:
        return nil
    }
}
// snippet: end

// snippet: sign-in-start-delegate
@MainActor
final class StartController: SignInStartDelegate {
    func start(client: NativeAuthClient, email: String) {
        client.signIn(parameters: SignInParameters(username: email), delegate: self)
    }

    func onSignInCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        // Show the code screen; keep newState for submitCode(code:delegate:).
    }

    func onSignInPasswordRequired(newState: SignInPasswordRequiredState) {
        // Show the password screen; keep newState for submitPassword(password:delegate:).
    }

    func onSignInCompleted(result: UserAccountResult) {}
    func onSignInAwaitingMFA(newState: AwaitingMFAState) {}
    func onSignInStrongAuthMethodRegistration(authMethods: [AuthMethod], newState: RegisterStrongAuthState) {}

    func onSignInStartError(error: SignInStartError) {
        // Required. Also receives isMissingDelegateMethod when an optional method above is left out.
    }
}
// snippet: end

// snippet: sign-in-enter-code
func enterCode(_ state: SignInCodeRequiredState) async throws -> UserAccountResult? {
    var state = state
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        let input = ask("Code (or 'resend'):")
        if input == "resend" {
            state = try await state.resendCode()  // the old state is spent; use the new one
            print("A new code was sent to \(state.sentTo).")
            continue
        }
        do {
            return try await finish(state.submitCode(input))
        } catch let error as VerifyCodeError where error.isInvalidCode {
            print("That code is not right.")
        }
    }
    print("Too many attempts. Start again.")
    return nil
}
// snippet: end

// snippet: sign-in-code-delegate
@MainActor
final class CodeController: SignInVerifyCodeDelegate, SignInResendCodeDelegate {
    private var state: SignInCodeRequiredState?

    init(state: SignInCodeRequiredState) {
        self.state = state
    }

    func submit(code: String) {
        state?.submitCode(code: code, delegate: self)
    }

    func resend() {
        state?.resendCode(delegate: self)
    }

    // SignInVerifyCodeDelegate
    func onSignInCompleted(result: UserAccountResult) {}
    func onSignInAwaitingMFA(newState: AwaitingMFAState) {}
    func onSignInStrongAuthMethodRegistration(authMethods: [AuthMethod], newState: RegisterStrongAuthState) {}
    func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?) {
        state = newState  // the same state when it is still usable (a wrong code), else nil
    }

    // SignInResendCodeDelegate
    func onSignInResendCodeCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        state = newState
    }
    func onSignInResendCodeError(error: ResendCodeError, newState: SignInCodeRequiredState?) {
        state = newState
    }
}
// snippet: end

// snippet: sign-in-enter-password
func enterPassword(_ state: SignInPasswordRequiredState) async throws -> UserAccountResult? {
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        do {
            return try await finish(state.submitPassword(ask("Password:")))
        } catch let error as PasswordRequiredError where error.isInvalidPassword {
            print("Wrong password.")
        }
    }
    print("Too many wrong passwords. Start again.")
    return nil
}
// snippet: end

// snippet: sign-in-password-delegate
@MainActor
final class PasswordController: SignInPasswordRequiredDelegate {
    private var state: SignInPasswordRequiredState?

    init(state: SignInPasswordRequiredState) {
        self.state = state
    }

    func submit(password: String) {
        state?.submitPassword(password: password, delegate: self)
    }

    func onSignInCompleted(result: UserAccountResult) {}

    func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?) {
        state = newState
        if error.isInvalidPassword {
            // Show "wrong password" and let the user try again on the same state.
        }
    }
}
// snippet: end

// snippet: sign-in-finish
func finish(_ result: SignInResult) async throws -> UserAccountResult? {
    switch result {
    case .completed(let account):
        return account
    case .awaitingMFA(let state, let methods):
        return try await secondFactor(state, methods: methods)
    case .strongAuthRegistrationRequired(let state, let methods):
        return try await registerMethod(state, methods: methods)
    @unknown default:
        return nil
    }
}
// snippet: end

// snippet: sign-in-second-factor
func secondFactor(_ state: AwaitingMFAState, methods: [AuthMethod]) async throws -> UserAccountResult? {
    for (index, method) in methods.enumerated() {
        print("\(index + 1). \(method.channelTargetType): \(method.loginHint)")
    }
    guard let choice = Int(ask("Send a code to:")), methods.indices.contains(choice - 1) else {
        return nil
    }
    let method = methods[choice - 1]
    var codeState = try await state.requestChallenge(authMethod: method)
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        let input = ask("Code sent to \(codeState.sentTo) (or 'resend'):")
        if input == "resend" {
            codeState = try await codeState.requestChallenge(authMethod: method)
            continue
        }
        do {
            return try await finish(codeState.submitChallenge(input))
        } catch let error as MFASubmitChallengeError where error.isInvalidChallenge {
            print("That code is not right.")
        }
    }
    print("Too many attempts. Start again.")
    return nil
}
// snippet: end

// snippet: sign-in-second-factor-delegate
@MainActor
final class SecondFactorController: MFARequestChallengeDelegate, MFASubmitChallengeDelegate {
    private var awaitingState: AwaitingMFAState?
    private var codeState: MFARequiredState?

    init(state: AwaitingMFAState) {
        awaitingState = state
    }

    func send(to method: AuthMethod) {
        if let codeState {
            codeState.requestChallenge(authMethod: method, delegate: self)  // resend or switch method
        } else {
            awaitingState?.requestChallenge(authMethod: method, delegate: self)
        }
    }

    func submit(code: String) {
        codeState?.submitChallenge(challenge: code, delegate: self)
    }

    // MFARequestChallengeDelegate
    func onMFARequestChallengeVerificationRequired(
        newState: MFARequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        awaitingState = nil
        codeState = newState
    }

    func onMFARequestChallengeError(error: MFARequestChallengeError, newState: MFARequiredState?) {
        // newState is the MFARequiredState you called, while it stays usable (a blocked method,
        // a network failure); nil when you called an AwaitingMFAState, which then stays usable
        // when error.isStateStillUsable.
        if let newState {
            codeState = newState
        } else if !error.isStateStillUsable {
            awaitingState = nil
            codeState = nil
        }
    }

    // MFASubmitChallengeDelegate
    func onSignInCompleted(result: UserAccountResult) {}

    func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?) {
        codeState = newState
    }
}
// snippet: end

// snippet: sign-in-register-method
func registerMethod(_ state: RegisterStrongAuthState, methods: [AuthMethod]) async throws -> UserAccountResult? {
    guard let method = methods.first(where: { $0.channelTargetType == .email }) ?? methods.first else {
        return nil
    }
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        let contact = ask("Email address for your second factor:")
        let outcome: RegisterStrongAuthChallengeResult
        do {
            outcome = try await state.challengeAuthMethod(authMethod: method, verificationContact: contact)
        } catch {
            guard error.isInvalidInput || error.isMethodBlocked else { throw error }
            print("That address cannot be used.")
            continue
        }
        switch outcome {
        case .completed(let account):
            return account  // the address was already verified
        case .verificationRequired(let codeState, let sentTo, _, _):
            for _ in 1...maxAttempts {
                do {
                    return try await finish(codeState.submitChallenge(ask("Code sent to \(sentTo):")))
                } catch let error as RegisterStrongAuthSubmitChallengeError where error.isInvalidChallenge {
                    print("That code is not right.")
                }
            }
            print("Too many wrong codes. Start again.")
            return nil
        @unknown default:
            return nil
        }
    }
    print("Too many addresses that cannot be used. Start again.")
    return nil
}
// snippet: end

// snippet: sign-in-register-method-delegate
@MainActor
final class RegistrationController: RegisterStrongAuthChallengeDelegate, RegisterStrongAuthSubmitChallengeDelegate {
    private var state: RegisterStrongAuthState?
    private var verificationState: RegisterStrongAuthVerificationRequiredState?

    init(state: RegisterStrongAuthState) {
        self.state = state
    }

    func register(contact: String) {
        guard let state, let method = state.authMethods.first else { return }
        state.challengeAuthMethod(authMethod: method, verificationContact: contact, delegate: self)
    }

    func submit(code: String) {
        verificationState?.submitChallenge(challenge: code, delegate: self)
    }

    // RegisterStrongAuthChallengeDelegate
    func onRegisterStrongAuthVerificationRequired(
        newState: RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: ChannelType,
        codeLength: Int?
    ) {
        state = nil
        verificationState = newState
    }

    func onRegisterStrongAuthChallengeError(error: RegisterStrongAuthChallengeError, newState: RegisterStrongAuthState?)
    {
        // After isInvalidInput or isMethodBlocked, newState challenges another contact. Called on a
        // verification state, newState is a RegisterStrongAuthState at the same point of the flow.
        state = newState
    }

    // Both protocols: the preverified shortcut, and sign-in completed after the code.
    func onSignInCompleted(result: UserAccountResult) {}

    // RegisterStrongAuthSubmitChallengeDelegate
    func onRegisterStrongAuthSubmitChallengeError(
        error: RegisterStrongAuthSubmitChallengeError, newState: RegisterStrongAuthVerificationRequiredState?
    ) {
        verificationState = newState
    }
}
// snippet: end

// snippet: sign-in-missing-delegate-method
@MainActor
final class MinimalStartController: SignInStartDelegate {
    func onSignInStartError(error: SignInStartError) {
        if error.isMissingDelegateMethod, let outcome = error.unhandledOutcome as? SignInStartResult {
            switch outcome {
            case .passwordRequired(let state):
                print("This screen has no password step yet; \(state) is still usable.")
            default:
                print("Unhandled outcome: \(outcome)")
            }
            return
        }
        print(error.errorDescription ?? "Sign-in failed.")
    }
}
// snippet: end

/// A client on an emulated tenant with a user who must pass a second factor, and one who must
/// register a method first.
private func makeStrongAuthClient() throws -> (client: NativeAuthClient, tenant: EmulatedTenant) {
    let (client, tenant, _) = try makeClient(capabilities: [.mfaRequired, .registrationRequired])
    tenant.addUser(
        EmulatedUser(
            username: "alan@example.com", password: "Enigma-Bombe-1940",
            mfaMethods: [EmulatedAuthMethod(id: "sms-1", channel: "sms", address: "+447700900123")]))
    tenant.addUser(
        EmulatedUser(username: "joan@example.com", password: "Code-Breaker-1941", requiresMethodRegistration: true))
    return (client, tenant)
}

@Suite(.hangLimit)
struct SignInSnippetTests {
    @Test func startsWithACodeAndRetriesAWrongOne() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console(input: ["00000000"])
        console.type { tenant.lastCode(sentTo: "grace@example.com") }

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "grace@example.com")
        }

        #expect(account?.account.username == "grace@example.com")
        #expect(console.printed("A 8-character code was sent by email to"))
        #expect(console.printed("That code is not right."))
    }

    @Test func resendsTheCode() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console(input: ["resend"])
        console.type { tenant.lastCode(sentTo: "grace@example.com") }

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "grace@example.com")
        }

        #expect(account != nil)
        #expect(console.printed("A new code was sent to"))
        #expect(tenant.outbox.count == 2)
    }

    @Test func startsWithAPasswordAndRetriesAWrongOne() async throws {
        let (client, _, _) = try makeClient()
        let console = Console(input: ["not-the-password", "Analytical-Engine-1843"])

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "ada@example.com")
        }

        #expect(account?.account.username == "ada@example.com")
        #expect(console.printed("Wrong password."))
    }

    @Test func givesUpAfterTooManyWrongCodes() async throws {
        let (client, _, _) = try makeClient()
        // One wrong code, then the end of input: every later answer is empty, which the SDK
        // refuses at once. The sample must stop asking.
        let console = Console(input: ["00000000"])

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "grace@example.com")
        }

        #expect(account == nil)
        #expect(console.printed("Too many attempts. Start again."))
    }

    @Test func givesUpAfterTooManyWrongPasswords() async throws {
        let (client, _, _) = try makeClient()
        let console = Console(input: ["not-the-password", "not-the-password", "not-the-password"])

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "ada@example.com")
        }

        #expect(account == nil)
        #expect(console.printed("Too many wrong passwords. Start again."))
    }

    @Test func givesUpAfterTooManyWrongSecondFactorCodes() async throws {
        let (client, _) = try makeStrongAuthClient()
        let console = Console(input: ["Enigma-Bombe-1940", "1", "00000000"])

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "alan@example.com")
        }

        #expect(account == nil)
        #expect(console.printed("Too many attempts. Start again."))
    }

    @Test func givesUpAfterTooManyUnusableContacts() async throws {
        let (client, _) = try makeStrongAuthClient()
        let console = Console(input: ["Code-Breaker-1941", "not-an-address"])

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "joan@example.com")
        }

        #expect(account == nil)
        #expect(console.printed("Too many addresses that cannot be used. Start again."))
    }

    @Test func givesUpAfterTooManyWrongRegistrationCodes() async throws {
        let (client, _) = try makeStrongAuthClient()
        let console = Console(input: ["Code-Breaker-1941", "joan.second@example.com", "00000000"])

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "joan@example.com")
        }

        #expect(account == nil)
        #expect(console.printed("Too many wrong codes. Start again."))
    }

    @Test func passesASecondFactor() async throws {
        let (client, tenant) = try makeStrongAuthClient()
        let console = Console(input: ["Enigma-Bombe-1940", "1"])
        console.type { tenant.lastCode(sentTo: "+447700900123") }

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "alan@example.com")
        }

        #expect(account?.account.username == "alan@example.com")
        #expect(console.printed("1. sms:"))
    }

    @Test func registersAMethod() async throws {
        let (client, tenant) = try makeStrongAuthClient()
        let console = Console(input: ["Code-Breaker-1941", "joan.second@example.com"])
        console.type { tenant.lastCode(sentTo: "joan.second@example.com") }

        let account = try await Console.$current.withValue(console) {
            try await start(client: client, email: "joan@example.com")
        }

        #expect(account?.account.username == "joan@example.com")
        #expect(tenant.user(named: "joan@example.com")?.mfaMethods.count == 1)
    }

    @MainActor
    @Test func theStartDelegateIsCalled() async throws {
        let (client, tenant, _) = try makeClient()
        StartController().start(client: client, email: "grace@example.com")
        try await requireUntil("the code") { tenant.lastCode(sentTo: "grace@example.com") != nil }
    }

    @MainActor
    @Test func theCodeDelegateResendsAndSignsIn() async throws {
        let (client, tenant, _) = try makeClient()
        let start = try await client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        CodeController(state: state).resend()
        try await requireUntil("the second code") { tenant.outbox.count == 2 }

        let again = try await client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let fresh, _, _, _) = again else {
            throw UnexpectedSampleOutcome(description: "\(again)")
        }
        CodeController(state: fresh).submit(code: try #require(tenant.lastCode(sentTo: "grace@example.com")))
        try await requireEventually("the sign-in") { try await client.currentAccount() != nil }
    }

    @MainActor
    @Test func thePasswordDelegateSignsIn() async throws {
        let (client, _, _) = try makeClient()
        let start = try await client.signIn(SignInParameters(username: "ada@example.com"))
        guard case .passwordRequired(let state) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        PasswordController(state: state).submit(password: "Analytical-Engine-1843")
        try await requireEventually("the sign-in") { try await client.currentAccount() != nil }
    }

    @MainActor
    @Test func theSecondFactorDelegateSignsIn() async throws {
        let (client, tenant) = try makeStrongAuthClient()
        let start = try await client.signIn(
            SignInParameters(username: "alan@example.com", password: "Enigma-Bombe-1940"))
        guard case .awaitingMFA(let state, let methods) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        let controller = SecondFactorController(state: state)
        controller.send(to: try #require(methods.first))
        try await requireUntil("the code") { tenant.lastCode(sentTo: "+447700900123") != nil }
        try await requireEventually("the sign-in") {
            controller.submit(code: tenant.lastCode(sentTo: "+447700900123") ?? "")
            return try await client.currentAccount() != nil
        }
    }

    @MainActor
    @Test func theRegistrationDelegateSignsIn() async throws {
        let (client, tenant) = try makeStrongAuthClient()
        let start = try await client.signIn(
            SignInParameters(username: "joan@example.com", password: "Code-Breaker-1941"))
        guard case .strongAuthRegistrationRequired(let state, _) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        let controller = RegistrationController(state: state)
        controller.register(contact: "joan.second@example.com")
        try await requireUntil("the code") { tenant.lastCode(sentTo: "joan.second@example.com") != nil }
        try await requireEventually("the sign-in") {
            controller.submit(code: tenant.lastCode(sentTo: "joan.second@example.com") ?? "")
            return try await client.currentAccount() != nil
        }
    }

    @MainActor
    @Test func aMissingDelegateMethodKeepsTheOutcome() async throws {
        let (client, _, _) = try makeClient()
        let console = Console()
        try await Console.$current.withValue(console) {
            client.signIn(parameters: SignInParameters(username: "ada@example.com"), delegate: MinimalStartController())
            try await console.expectNext("the error callback", containing: "This screen has no password step yet")
        }
    }

    @Test func declaresTheCapabilities() throws {
        // snippet: sign-in-capabilities
        let configuration = try NativeAuthConfiguration(
            clientId: "00000000-0000-0000-0000-000000000000",
            tenantSubdomain: "contoso",
            capabilities: [.mfaRequired, .registrationRequired])
        // snippet: end
        #expect(configuration.capabilities == [.mfaRequired, .registrationRequired])
    }
}

// snippet: sign-in-code-screen
@MainActor
final class CodeScreen<State: CodeRequiredState> {
    var state: State
    init(state: State) { self.state = state }

    var prompt: String { "Enter the \(state.codeLength.map(String.init) ?? "") character code sent to \(state.sentTo)" }

    func submit(_ code: String) async -> State.CodeResult? {
        do {
            return try await state.submitCode(code)
        } catch {
            // error.isStateStillUsable: let the user try again on the same screen.
            return nil
        }
    }

    func resend() async {
        if let fresh = try? await state.resendCode() { state = fresh }
    }
}
// snippet: end

@Suite(.hangLimit)
struct CodeScreenSampleTests {
    @Test @MainActor func oneScreenServesTheSignInCode() async throws {
        let tenant = EmulatedTenant(
            clientId: "00000000-0000-0000-0000-000000000000", random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "grace@example.com", password: nil))
        let configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        guard
            case .codeRequired(let state, _, _, _) = try await client.signIn(
                SignInParameters(username: "grace@example.com"))
        else { throw UnexpectedOutcome(description: "no code step") }
        let screen = CodeScreen(state: state)
        #expect(screen.prompt.contains(state.sentTo))
        #expect(await screen.submit("") == nil)  // an empty code: the same screen, nothing sent
        let code = try #require(tenant.lastCode(sentTo: "grace@example.com"))
        guard case .completed(let account) = await screen.submit(code) else {
            throw UnexpectedOutcome(description: "not signed in")
        }
        #expect(account.account.username == "grace@example.com")
    }
}
