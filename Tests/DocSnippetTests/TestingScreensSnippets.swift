// The samples of Docs/TestingScreens.md: two screen models for the same sign-in screens, one
// driven by async calls and one by delegate callbacks, and their tests on an emulated tenant.

import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: testing-screens-screen
/// What the sign-in screens show. Equatable, so that a test can say which screen comes next.
enum SignInScreen: Equatable, Sendable {
    case email(message: String?)
    case code(sentTo: String, message: String?)
    case password(message: String?)
    case signedIn(username: String)
}
// snippet: end

// snippet: testing-screens-async-model
@MainActor
final class AsyncSignInModel {
    private(set) var screen = SignInScreen.email(message: nil)
    private let client: NativeAuthClient
    private var codeState: SignInCodeRequiredState?
    private var passwordState: SignInPasswordRequiredState?
    private var wrongAnswers = 0
    private let maxWrongAnswers = 3

    init(client: NativeAuthClient) {
        self.client = client
    }

    func start(email: String) async {
        wrongAnswers = 0
        do {
            switch try await client.signIn(SignInParameters(username: email)) {
            case .codeRequired(let state, let sentTo, _, _):
                codeState = state
                screen = .code(sentTo: sentTo, message: nil)
            case .passwordRequired(let state):
                passwordState = state
                screen = .password(message: nil)
            case .completed(let account):
                screen = .signedIn(username: account.account.username)
            default:
                startAgain("This account needs a step this app does not offer yet.")
            }
        } catch {
            startAgain(error.isUserNotFound ? "No account uses this address." : "Sign-in could not start.")
        }
    }

    func submit(code: String) async {
        guard let state = codeState else { return }
        do {
            show(try await state.submitCode(code))
        } catch {
            if error.isInvalidCode {
                wrongAnswer(again: .code(sentTo: state.sentTo, message: "That code is not right."))
            } else if error.isStateStillUsable {
                screen = .code(sentTo: state.sentTo, message: "That did not work. Try again.")
            } else {
                startAgain("Sign-in failed. Start again.")
            }
        }
    }

    func resendCode() async {
        guard let state = codeState else { return }
        do {
            let fresh = try await state.resendCode()  // the old state and its code are spent
            codeState = fresh
            screen = .code(sentTo: fresh.sentTo, message: "We sent a new code.")
        } catch {
            startAgain("No new code could be sent. Start again.")
        }
    }

    func submit(password: String) async {
        guard let state = passwordState else { return }
        do {
            show(try await state.submitPassword(password))
        } catch {
            if error.isInvalidPassword {
                wrongAnswer(again: .password(message: "Wrong password."))
            } else if error.isStateStillUsable {
                screen = .password(message: "That did not work. Try again.")
            } else {
                startAgain("Sign-in failed. Start again.")
            }
        }
    }

    private func show(_ result: SignInResult) {
        guard case .completed(let account) = result else {
            return startAgain("This account needs a step this app does not offer yet.")
        }
        codeState = nil
        passwordState = nil
        screen = .signedIn(username: account.account.username)
    }

    private func wrongAnswer(again next: SignInScreen) {
        wrongAnswers += 1
        if wrongAnswers < maxWrongAnswers {
            screen = next
        } else {
            startAgain("Too many wrong answers. Start again.")
        }
    }

    private func startAgain(_ message: String) {
        codeState = nil
        passwordState = nil
        screen = .email(message: message)
    }
}
// snippet: end

// snippet: testing-screens-async-tests
@Suite(.timeLimit(.minutes(10)))
@MainActor
struct AsyncSignInModelTests {
    @Test func showsTheCodeScreenThenSignsIn() async throws {
        let (client, tenant, _) = try makeClient()  // from Getting started
        let model = AsyncSignInModel(client: client)

        await model.start(email: "grace@example.com")
        #expect(model.screen == .code(sentTo: "g***e@ex**e.com", message: nil))

        await model.submit(code: "00000000")  // not the code the tenant sent
        #expect(model.screen == .code(sentTo: "g***e@ex**e.com", message: "That code is not right."))

        await model.submit(code: try #require(tenant.lastCode(sentTo: "grace@example.com")))
        #expect(model.screen == .signedIn(username: "grace@example.com"))
    }

    @Test func showsThePasswordScreenForAUserWithAPassword() async throws {
        let (client, _, _) = try makeClient()
        let model = AsyncSignInModel(client: client)

        await model.start(email: "ada@example.com")
        #expect(model.screen == .password(message: nil))

        await model.submit(password: "Analytical-Engine-1843")
        #expect(model.screen == .signedIn(username: "ada@example.com"))
    }

    @Test func aResentCodeReplacesTheFirst() async throws {
        let (client, tenant, _) = try makeClient()
        let model = AsyncSignInModel(client: client)
        await model.start(email: "grace@example.com")
        let first = try #require(tenant.lastCode(sentTo: "grace@example.com"))

        await model.resendCode()
        #expect(tenant.outbox.map(\.to) == ["grace@example.com", "grace@example.com"])
        #expect(model.screen == .code(sentTo: "g***e@ex**e.com", message: "We sent a new code."))

        await model.submit(code: first)
        #expect(model.screen == .code(sentTo: "g***e@ex**e.com", message: "That code is not right."))
        await model.submit(code: try #require(tenant.lastCode(sentTo: "grace@example.com")))
        #expect(model.screen == .signedIn(username: "grace@example.com"))
    }

    @Test func startsAgainAfterThreeWrongCodes() async throws {
        let (client, _, _) = try makeClient()
        let model = AsyncSignInModel(client: client)
        await model.start(email: "grace@example.com")

        for _ in 1...3 {
            await model.submit(code: "00000000")
        }

        #expect(model.screen == .email(message: "Too many wrong answers. Start again."))
    }

    @Test func saysWhenNoAccountUsesTheAddress() async throws {
        let (client, _, _) = try makeClient()
        let model = AsyncSignInModel(client: client)

        await model.start(email: "nobody@example.com")

        #expect(model.screen == .email(message: "No account uses this address."))
    }
}
// snippet: end

// snippet: testing-screens-delegate-model
@MainActor
final class DelegateSignInModel: SignInStartDelegate, SignInVerifyCodeDelegate, SignInPasswordRequiredDelegate {
    private(set) var screen = SignInScreen.email(message: nil) {
        didSet { changes.yield(screen) }
    }
    /// Every screen shown from now on, in order: what a test awaits.
    let screens: AsyncStream<SignInScreen>
    private let changes: AsyncStream<SignInScreen>.Continuation
    private let client: NativeAuthClient
    private var codeState: SignInCodeRequiredState?
    private var passwordState: SignInPasswordRequiredState?
    private var wrongAnswers = 0
    private let maxWrongAnswers = 3

    init(client: NativeAuthClient) {
        self.client = client
        (screens, changes) = AsyncStream.makeStream()
    }

    func start(email: String) {
        wrongAnswers = 0
        client.signIn(parameters: SignInParameters(username: email), delegate: self)
    }

    func submit(code: String) {
        codeState?.submitCode(code: code, delegate: self)
    }

    func submit(password: String) {
        passwordState?.submitPassword(password: password, delegate: self)
    }

    // SignInStartDelegate

    func onSignInCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        screen = .code(sentTo: sentTo, message: nil)
    }

    func onSignInPasswordRequired(newState: SignInPasswordRequiredState) {
        passwordState = newState
        screen = .password(message: nil)
    }

    func onSignInStartError(error: SignInStartError) {
        startAgain(error.isUserNotFound ? "No account uses this address." : "Sign-in could not start.")
    }

    // SignInVerifyCodeDelegate and SignInPasswordRequiredDelegate

    func onSignInCompleted(result: UserAccountResult) {
        codeState = nil
        passwordState = nil
        screen = .signedIn(username: result.account.username)
    }

    func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?) {
        guard let newState else {  // nil: the state is spent
            return startAgain("Sign-in failed. Start again.")
        }
        codeState = newState
        if error.isInvalidCode {
            wrongAnswer(again: .code(sentTo: newState.sentTo, message: "That code is not right."))
        } else {
            screen = .code(sentTo: newState.sentTo, message: "That did not work. Try again.")
        }
    }

    func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?) {
        guard let newState else {
            return startAgain("Sign-in failed. Start again.")
        }
        passwordState = newState
        if error.isInvalidPassword {
            wrongAnswer(again: .password(message: "Wrong password."))
        } else {
            screen = .password(message: "That did not work. Try again.")
        }
    }

    private func wrongAnswer(again next: SignInScreen) {
        wrongAnswers += 1
        if wrongAnswers < maxWrongAnswers {
            screen = next
        } else {
            startAgain("Too many wrong answers. Start again.")
        }
    }

    private func startAgain(_ message: String) {
        codeState = nil
        passwordState = nil
        screen = .email(message: message)
    }
}
// snippet: end

// snippet: testing-screens-delegate-tests
@Suite(.timeLimit(.minutes(10)))
@MainActor
struct DelegateSignInModelTests {
    @Test func showsTheCodeScreenThenSignsIn() async throws {
        let (client, tenant, _) = try makeClient()  // from Getting started
        let model = DelegateSignInModel(client: client)
        var screens = model.screens.makeAsyncIterator()

        model.start(email: "grace@example.com")
        #expect(await screens.next() == .code(sentTo: "g***e@ex**e.com", message: nil))

        model.submit(code: "00000000")  // not the code the tenant sent
        #expect(await screens.next() == .code(sentTo: "g***e@ex**e.com", message: "That code is not right."))

        model.submit(code: try #require(tenant.lastCode(sentTo: "grace@example.com")))
        #expect(await screens.next() == .signedIn(username: "grace@example.com"))
    }

    @Test func showsThePasswordScreenForAUserWithAPassword() async throws {
        let (client, _, _) = try makeClient()
        let model = DelegateSignInModel(client: client)
        var screens = model.screens.makeAsyncIterator()

        model.start(email: "ada@example.com")
        #expect(await screens.next() == .password(message: nil))

        model.submit(password: "not-the-password")
        #expect(await screens.next() == .password(message: "Wrong password."))

        model.submit(password: "Analytical-Engine-1843")
        #expect(await screens.next() == .signedIn(username: "ada@example.com"))
    }

    @Test func startsAgainAfterThreeWrongCodes() async throws {
        let (client, _, _) = try makeClient()
        let model = DelegateSignInModel(client: client)
        var screens = model.screens.makeAsyncIterator()
        model.start(email: "grace@example.com")
        #expect(await screens.next() == .code(sentTo: "g***e@ex**e.com", message: nil))

        for _ in 1...2 {
            model.submit(code: "00000000")
            #expect(await screens.next() == .code(sentTo: "g***e@ex**e.com", message: "That code is not right."))
        }
        model.submit(code: "00000000")

        #expect(await screens.next() == .email(message: "Too many wrong answers. Start again."))
    }

    @Test func saysWhenNoAccountUsesTheAddress() async throws {
        let (client, _, _) = try makeClient()
        let model = DelegateSignInModel(client: client)
        var screens = model.screens.makeAsyncIterator()

        model.start(email: "nobody@example.com")

        #expect(await screens.next() == .email(message: "No account uses this address."))
    }
}
// snippet: end

// snippet: testing-screens-forced-answer
@Suite(.timeLimit(.minutes(10)))
@MainActor
struct SignInScreenFailureTests {
    @Test func aNetworkFailureKeepsTheCodeScreen() async throws {
        let (client, tenant, _) = try makeClient()
        let model = DelegateSignInModel(client: client)
        var screens = model.screens.makeAsyncIterator()
        model.start(email: "grace@example.com")
        #expect(await screens.next() == .code(sentTo: "g***e@ex**e.com", message: nil))
        let code = try #require(tenant.lastCode(sentTo: "grace@example.com"))

        tenant.force(.networkFailure, on: .token)  // the next token request gets no answer
        model.submit(code: code)
        #expect(await screens.next() == .code(sentTo: "g***e@ex**e.com", message: "That did not work. Try again."))

        model.submit(code: code)  // the state is still usable, and so is the code
        #expect(await screens.next() == .signedIn(username: "grace@example.com"))
    }

    @Test func aBrowserRequirementStartsAgain() async throws {
        let (client, tenant, _) = try makeClient()
        let model = AsyncSignInModel(client: client)
        tenant.force(.redirect(reason: "This user must sign in in the browser."), on: .challenge)

        await model.start(email: "grace@example.com")

        #expect(model.screen == .email(message: "Sign-in could not start."))
    }
}
// snippet: end
