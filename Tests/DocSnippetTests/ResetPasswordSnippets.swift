// The samples of Docs/ResetPassword.md, and the tests that run them against an emulated tenant,
// with the console scripted and the clock moved whenever a reset waits between polls.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The guide's input helper, the same as README.md's `ask` (which the samples below call); kept
/// in a namespace so that the two do not clash.
enum ResetPasswordGuideHelper {
    // snippet: reset-password-ask
    // import NativeAuth

    func ask(_ prompt: String) -> String {
        print(prompt, terminator: " ")
        return readLine() ?? ""
    }
    // snippet: end
}

// snippet: reset-password-forgot
func forgotPassword(client: NativeAuthClient, email: String) async throws -> UserAccountResult? {
    let start: ResetPasswordStartResult
    do {
        start = try await client.resetPassword(ResetPasswordParameters(username: email))
    } catch {
        guard error.isUserDoesNotHavePassword else { throw error }
        print("This account signs in with an email code; it has no password to reset.")
        return nil
    }
    guard case .codeRequired(let codeState, let sentTo, _, _) = start else {
        return nil  // an outcome added by a later version of the SDK
    }
    print("We sent a code to \(sentTo).")
    guard let passwordState = try await verifyCode(codeState),
        let signInState = try await chooseNewPassword(passwordState)
    else { return nil }  // the user gave up
    return try await finish(signInState.signIn(scopes: ["api://contoso/orders.read"]))
}
// snippet: end

// snippet: reset-password-verify-code
func verifyCode(_ state: ResetPasswordCodeRequiredState) async throws -> ResetPasswordRequiredState? {
    var state = state
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        let input = ask("Code (or 'resend'):")
        if input == "resend" {
            state = try await state.resendCode()  // continue with the new state
            continue
        }
        do {
            return try await state.submitCode(input)
        } catch {
            guard error.isInvalidCode else { throw error }
            print("That code is not right.")
        }
    }
    print("Too many attempts. Start again.")
    return nil
}
// snippet: end

// snippet: reset-password-choose-new
func chooseNewPassword(_ state: ResetPasswordRequiredState) async throws -> SignInAfterResetPasswordState? {
    var password = ask("New password:")
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        do {
            print("Saving your new password…")
            return try await state.submitPassword(password)
        } catch {
            if error.isInvalidPassword {
                print(advice(for: error.passwordPolicyViolation))  // advice(for:) from the Sign-up guide
                password = ask("New password:")
            } else if error.isPasswordResetPending, !error.isCancelled {
                print("The server is still changing your password; waiting a little longer…")
                // The same state: it keeps waiting for that reset and does not send the password.
            } else if error.isStateStillUsable, ask("That did not work. Try again? (y/n)") == "y" {
                // The same state and password: it submits again or resumes waiting, as needed.
            } else {
                throw error
            }
        }
    }
    print("Too many attempts. Start again.")
    return nil
}
// snippet: end

// snippet: reset-password-cancellable
func saveCancellably(_ state: ResetPasswordRequiredState, password: String) async {
    let saving = Task { try await state.submitPassword(password) }
    // … the user taps Cancel while the server is still working:
    saving.cancel()
    do {
        _ = try await saving.value
    } catch let error as PasswordRequiredError where error.isCancelled {
        // The state is still usable: a later submitPassword resumes waiting if the server had
        // already started the reset, and submits the password if it had not.
    } catch {
        print(error)
    }
}
// snippet: end

// snippet: reset-password-after-reset
func afterReset(_ state: SignInAfterResetPasswordState) async throws -> SignInResult? {
    guard state.isSignInAvailable else {
        return nil  // the password was changed: ask the user to sign in with it
    }
    return try await state.signIn(scopes: ["api://contoso/orders.read"])
}
// snippet: end

// snippet: reset-password-delegate
@MainActor
final class ResetPasswordController: ResetPasswordStartDelegate, ResetPasswordVerifyCodeDelegate,
    ResetPasswordResendCodeDelegate, ResetPasswordRequiredDelegate, SignInAfterResetPasswordDelegate
{
    private let client: NativeAuthClient
    private var codeState: ResetPasswordCodeRequiredState?
    private var passwordState: ResetPasswordRequiredState?

    init(client: NativeAuthClient) {
        self.client = client
    }

    func start(email: String) {
        client.resetPassword(parameters: ResetPasswordParameters(username: email), delegate: self)
    }

    func submit(code: String) { codeState?.submitCode(code: code, delegate: self) }
    func resendCode() { codeState?.resendCode(delegate: self) }
    func submit(newPassword: String) { passwordState?.submitPassword(password: newPassword, delegate: self) }

    // ResetPasswordStartDelegate

    func onResetPasswordCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        print("Enter the code sent to \(sentTo).")
    }

    func onResetPasswordStartError(error: ResetPasswordStartError) {
        if error.isUserDoesNotHavePassword {
            print("This account signs in with an email code; it has no password to reset.")
        } else {
            print("The reset could not start: \(error.errorDescription ?? "")")
        }
    }

    // ResetPasswordResendCodeDelegate

    func onResetPasswordResendCodeRequired(
        newState: ResetPasswordCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
    }

    func onResetPasswordResendCodeError(error: ResendCodeError, newState: ResetPasswordCodeRequiredState?) {
        codeState = newState
    }

    // ResetPasswordVerifyCodeDelegate

    func onPasswordRequired(newState: ResetPasswordRequiredState) {
        codeState = nil
        passwordState = newState
    }

    func onResetPasswordVerifyCodeError(error: VerifyCodeError, newState: ResetPasswordCodeRequiredState?) {
        codeState = newState
        print(error.isInvalidCode ? "That code is not right. Try again." : "The reset failed.")
    }

    // ResetPasswordRequiredDelegate

    func onResetPasswordCompleted(newState: SignInAfterResetPasswordState) {
        passwordState = nil
        newState.signIn(scopes: ["api://contoso/orders.read"], delegate: self)
    }

    func onResetPasswordRequiredError(error: PasswordRequiredError, newState: ResetPasswordRequiredState?) {
        passwordState = newState  // submitting again on it resumes the wait or resubmits, as needed
        if error.isInvalidPassword {
            print(advice(for: error.passwordPolicyViolation))
        } else if error.isPasswordResetPending {
            print("The server is still changing your password. Tap Save to keep waiting.")
        } else if newState != nil {
            print("Your password could not be saved yet. Try again.")
        } else {
            print("The reset failed; please start again.")
        }
    }

    // SignInAfterResetPasswordDelegate (and SignInResultDelegate, which it refines)

    func onSignInCompleted(result: UserAccountResult) {
        print("Signed in as \(result.account.username).")
    }

    func onSignInAfterResetPasswordError(error: SignInAfterResetPasswordError) {
        print("Your password was changed; please sign in.")
    }
}
// snippet: end

@Suite(.hangLimit)
struct ResetPasswordGuideSampleTests {
    // snippet: reset-password-tests
    /// Advances `clock` by a second each time a task sleeps on it, until cancelled.
    func keepTimeMoving(_ clock: ManualClock) -> Task<Void, Never> {
        Task {
            while (try? await clock.waitForSleepers()) != nil { clock.advance(by: 1) }
        }
    }

    @Test func resetsAPassword() async throws {
        let (client, tenant, clock) = try makeClient()  // from Getting started

        let start = try await client.resetPassword(ResetPasswordParameters(username: "ada@example.com"))
        guard case .codeRequired(let codeState, _, _, _) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }
        let code = try #require(tenant.lastCode(sentTo: "ada@example.com"))
        let passwordState = try await codeState.submitCode(code)

        let mover = keepTimeMoving(clock)
        defer { mover.cancel() }

        // The current password is refused; the state stays usable.
        let error = try await #require(throws: PasswordRequiredError.self) {
            try await passwordState.submitPassword("Analytical-Engine-1843")
        }
        #expect(error.passwordPolicyViolation == .recentlyUsed)

        let signInState = try await passwordState.submitPassword("Countess-of-Lovelace-1815")
        #expect(tenant.user(named: "ada@example.com")?.password == "Countess-of-Lovelace-1815")

        let signedIn = try await signInState.signIn()
        guard case .completed = signedIn else {
            throw UnexpectedOutcome(description: "\(signedIn)")
        }
    }

    @Test func aFailedResetCanBeSubmittedAgain() async throws {
        let (client, tenant, clock) = try makeClient()
        tenant.configure { $0.resetJobOutcome = .fail }
        let start = try await client.resetPassword(ResetPasswordParameters(username: "ada@example.com"))
        guard case .codeRequired(let codeState, _, _, _) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }
        let code = try #require(tenant.lastCode(sentTo: "ada@example.com"))
        let passwordState = try await codeState.submitCode(code)
        let mover = keepTimeMoving(clock)
        defer { mover.cancel() }

        let error = try await #require(throws: PasswordRequiredError.self) {
            try await passwordState.submitPassword("Countess-of-Lovelace-1815")
        }
        #expect(error.isPasswordResetFailed)

        tenant.configure { $0.resetJobOutcome = .succeed }
        _ = try await passwordState.submitPassword("Countess-of-Lovelace-1815")
    }
    // snippet: end

    // snippet: reset-password-tests-pending
    @Test func aLongResetIsStillPending() async throws {
        let (client, tenant, clock) = try makeClient()
        tenant.configure { $0.resetPollsBeforeCompletion = 8 }
        let start = try await client.resetPassword(ResetPasswordParameters(username: "ada@example.com"))
        guard case .codeRequired(let codeState, _, _, _) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }
        let code = try #require(tenant.lastCode(sentTo: "ada@example.com"))
        let passwordState = try await codeState.submitCode(code)
        let mover = keepTimeMoving(clock)
        defer { mover.cancel() }

        let error = try await #require(throws: PasswordRequiredError.self) {
            try await passwordState.submitPassword("Countess-of-Lovelace-1815")
        }
        #expect(error.isPasswordResetPending)
        #expect(!error.isPasswordResetFailed)

        _ = try await passwordState.submitPassword("Countess-of-Lovelace-1815")  // keeps waiting
        let submits = tenant.receivedRequests.filter { $0.url.path.hasSuffix("resetpassword/v1.0/submit") }
        #expect(submits.count == 1)
    }
    // snippet: end
}

/// A password-reset state for ada@example.com, after the code.
private func passwordState(
    client: NativeAuthClient, tenant: EmulatedTenant
) async throws -> ResetPasswordRequiredState {
    let start = try await client.resetPassword(ResetPasswordParameters(username: "ada@example.com"))
    guard case .codeRequired(let codeState, _, _, _) = start else {
        throw UnexpectedSampleOutcome(description: "\(start)")
    }
    return try await codeState.submitCode(try #require(tenant.lastCode(sentTo: "ada@example.com")))
}

@Suite(.hangLimit)
struct ResetPasswordSnippetTests {
    @Test func resetsAndSignsIn() async throws {
        let (client, tenant, clock) = try makeClient()
        let time = advanceWhileSleeping(clock)
        defer { time.cancel() }
        let console = Console(input: ["00000000", "resend"])
        console.type { tenant.lastCode(sentTo: "ada@example.com") }
        console.type("Analytical-Engine-1843", "Countess-of-Lovelace-1815")

        let account = try await Console.$current.withValue(console) {
            try await forgotPassword(client: client, email: "ada@example.com")
        }

        #expect(account?.account.username == "ada@example.com")
        #expect(console.printed("That code is not right."))
        #expect(console.printed("You used this password recently. Choose another one."))
        #expect(tenant.user(named: "ada@example.com")?.password == "Countess-of-Lovelace-1815")
    }

    @Test func givesUpAfterTooManyWrongCodes() async throws {
        let (client, _, _) = try makeClient()
        // A wrong code, then the end of input: every later answer is empty. The sample stops.
        let console = Console(input: ["00000000"])

        let account = try await Console.$current.withValue(console) {
            try await forgotPassword(client: client, email: "ada@example.com")
        }

        #expect(account == nil)
        #expect(console.printed("Too many attempts. Start again."))
    }

    @Test func givesUpAfterTooManyRefusedPasswords() async throws {
        let (client, tenant, clock) = try makeClient()
        let time = advanceWhileSleeping(clock)
        defer { time.cancel() }
        let console = Console()
        console.type { tenant.lastCode(sentTo: "ada@example.com") }
        console.type("short", "short", "short")

        let account = try await Console.$current.withValue(console) {
            try await forgotPassword(client: client, email: "ada@example.com")
        }

        #expect(account == nil)
        #expect(console.printed("Too many attempts. Start again."))
        #expect(tenant.user(named: "ada@example.com")?.password == "Analytical-Engine-1843")
    }

    @Test func aPasswordlessUserHasNothingToReset() async throws {
        let (client, _, _) = try makeClient()
        let console = Console()

        let account = try await Console.$current.withValue(console) {
            try await forgotPassword(client: client, email: "grace@example.com")
        }

        #expect(account == nil)
        #expect(console.printed("it has no password to reset"))
    }

    @Test func aCancelledSaveLeavesTheStateUsable() async throws {
        let (client, tenant, clock) = try makeClient()
        let state = try await passwordState(client: client, tenant: tenant)
        let time = advanceWhileSleeping(clock)
        defer { time.cancel() }
        let console = Console()

        await Console.$current.withValue(console) {
            await saveCancellably(state, password: "Countess-of-Lovelace-1815")
        }

        #expect(console.output.isEmpty)
        let signInState = try await state.submitPassword("Countess-of-Lovelace-1815")
        let result = try await afterReset(signInState)
        guard case .completed(let account) = result else {
            throw UnexpectedSampleOutcome(description: "\(String(describing: result))")
        }
        #expect(account.account.username == "ada@example.com")
    }

    @MainActor
    @Test func theDelegateResetsAndSignsIn() async throws {
        let (client, tenant, clock) = try makeClient()
        let time = advanceWhileSleeping(clock)
        defer { time.cancel() }
        let console = Console()
        try await Console.$current.withValue(console) {
            let controller = ResetPasswordController(client: client)
            controller.start(email: "ada@example.com")
            try await console.expectNext("the code prompt", containing: "Enter the code sent to")
            controller.submit(code: try #require(tenant.lastCode(sentTo: "ada@example.com")))
            // The password state reaches the controller when the code's answer does.
            try await requireEventually("the sign-in") {
                controller.submit(newPassword: "Countess-of-Lovelace-1815")
                return console.printed("Signed in as ada@example.com.")
            }
        }
    }

    @MainActor
    @Test func theDelegateResendsTheCode() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console()
        try await Console.$current.withValue(console) {
            let controller = ResetPasswordController(client: client)
            controller.start(email: "ada@example.com")
            try await console.expectNext("the code prompt", containing: "Enter the code sent to")
            controller.resendCode()
            try await requireUntil("the second code") { tenant.outbox.count == 2 }
        }
    }

    @MainActor
    @Test func theDelegateReportsAPasswordlessUser() async throws {
        let (client, _, _) = try makeClient()
        let console = Console()
        try await Console.$current.withValue(console) {
            ResetPasswordController(client: client).start(email: "grace@example.com")
            try await console.expectNext("the start error", containing: "it has no password to reset")
        }
    }
}
