// The samples of Docs/SignUp.md's "Sign up or sign in, in one call" (linked from Docs/SignIn.md),
// and the tests that run them against an emulated tenant, with the console scripted.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: sign-up-or-sign-in
func signUpOrSignIn(client: NativeAuthClient) async throws -> UserAccountResult? {
    var attributes = UserAttributes()
    attributes.displayName = ask("Your name (for a new account):")
    let parameters = SignUpOrSignInParameters(username: ask("Email:"), attributes: attributes)

    switch try await client.signUpOrSignIn(parameters) {
    case .codeRequired(let state, let sentTo, _, _):
        print(
            state.isNewUser
                ? "To create your account, enter the code sent to \(sentTo)." : "Enter the code sent to \(sentTo).")
        return try await enterCode(state)
    case .passwordRequired(let state):
        return try await enterPassword(state)  // a known user who signs in with a password
    case .attributesInvalid(let names):
        print("Please check: \(names.joined(separator: ", ")).")
        return nil
    case .newUserPasswordRequired(let next):
        // A new user, and the server wants the password before the code: the sign-up screens.
        guard let created = try await continueSignUp(.passwordRequired(next)) else { return nil }
        return try await signInNewUser(created)
    @unknown default:
        return nil
    }
}

func enterCode(_ state: SignUpOrSignInCodeRequiredState) async throws -> UserAccountResult? {
    for _ in 1...3 {
        do {
            return try await finish(state.submitCode(ask("Code:")))
        } catch let error as VerifyCodeError where error.isInvalidCode {
            print("That code is not right. Try again.")
        }
    }
    print("Too many wrong codes. Start again.")
    return nil
}

func finish(_ result: SignUpOrSignInResult) async throws -> UserAccountResult? {
    switch result {
    case .completed(let account, let accountCreated):
        print(accountCreated ? "Your account is ready." : "Welcome back.")
        return account
    case .newUserPasswordRequired(let next):
        // The tenant wants a password too: the sign-up screens take over.
        guard let created = try await continueSignUp(.passwordRequired(next)) else { return nil }
        return try await signInNewUser(created)
    case .newUserAttributesRequired(let attributes, let next):
        guard let created = try await continueSignUp(.attributesRequired(attributes, next)) else { return nil }
        return try await signInNewUser(created)
    case .awaitingMFA, .strongAuthRegistrationRequired:
        return nil  // see "Multi-factor authentication" in SignIn.md
    @unknown default:
        return nil
    }
}
// snippet: end

// snippet: sign-up-or-sign-in-delegate
@MainActor
final class WelcomeScreen: SignUpOrSignInStartDelegate, SignUpOrSignInVerifyCodeDelegate {
    private let client: NativeAuthClient
    private var codeState: SignUpOrSignInCodeRequiredState?
    private(set) var message = ""

    init(client: NativeAuthClient) {
        self.client = client
    }

    func start(email: String, name: String) {
        var attributes = UserAttributes()
        attributes.displayName = name
        client.signUpOrSignIn(
            parameters: SignUpOrSignInParameters(username: email, attributes: attributes), delegate: self)
    }

    func submit(code: String) {
        codeState?.submitCode(code: code, delegate: self)
    }

    // SignUpOrSignInStartDelegate

    func onSignUpOrSignInCodeRequired(
        newState: SignUpOrSignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        message =
            newState.isNewUser
            ? "Create your account: enter the code sent to \(sentTo)." : "Enter the code sent to \(sentTo)."
    }

    func onSignUpOrSignInStartError(error: SignUpOrSignInStartError) {
        if error.isSignUpUnavailable {
            message = "No account uses this address, and new accounts cannot be made here."
        } else if error.isBrowserRequired {
            message = "This account signs in with the browser."
        } else {
            message = "Could not start: \(error.errorDescription ?? "")"
        }
    }

    // SignUpOrSignInVerifyCodeDelegate

    func onSignUpOrSignInCompleted(result: UserAccountResult, accountCreated: Bool) {
        codeState = nil
        message = accountCreated ? "Your account is ready." : "Welcome back."
    }

    func onSignUpOrSignInVerifyCodeError(error: VerifyCodeError, newState: SignUpOrSignInCodeRequiredState?) {
        codeState = newState  // nil when the flow must start again
        message = error.isInvalidCode ? "That code is not right. Try again." : "Please start again."
    }
}
// snippet: end

@Suite(.hangLimit)
struct SignUpOrSignInSnippetTests {
    @Test func aNewUserMakesAnAccountWithTheCodeAndAPassword() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console(input: ["Charles Babbage", "charles@example.com", "00000000"])
        console.type { tenant.lastCode(sentTo: "charles@example.com") }
        console.type("Difference-Engine-1822")

        let account = try await Console.$current.withValue(console) { try await signUpOrSignIn(client: client) }

        #expect(account?.account.username == "charles@example.com")
        #expect(console.printed("To create your account, enter the code sent to"))
        #expect(console.printed("That code is not right. Try again."))
        #expect(tenant.user(named: "charles@example.com")?.attributes["displayName"] == "Charles Babbage")
    }

    @Test func aKnownUserSignsInWithTheCodeOrThePassword() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console(input: ["", "grace@example.com"])
        console.type { tenant.lastCode(sentTo: "grace@example.com") }
        let grace = try await Console.$current.withValue(console) { try await signUpOrSignIn(client: client) }
        #expect(grace?.account.username == "grace@example.com")
        #expect(console.printed("Welcome back."))

        let passwordConsole = Console(input: ["", "ada@example.com", "Analytical-Engine-1843"])
        let ada = try await Console.$current.withValue(passwordConsole) { try await signUpOrSignIn(client: client) }
        #expect(ada?.account.username == "ada@example.com")
    }

    @Test func threeWrongCodesEndTheLoop() async throws {
        let (client, _, _) = try makeClient()
        let console = Console(input: ["", "grace@example.com", "00000000", "00000000", "00000000"])
        let account = try await Console.$current.withValue(console) { try await signUpOrSignIn(client: client) }
        #expect(account == nil)
        #expect(console.printed("Too many wrong codes. Start again."))
    }

    @MainActor
    @Test func theDelegateScreenWelcomesANewUser() async throws {
        let (client, tenant, _) = try makeClient()
        let screen = WelcomeScreen(client: client)
        screen.start(email: "grace@example.com", name: "Grace")
        try await requireUntil("the code screen") { screen.message.hasPrefix("Enter the code") }
        screen.submit(code: try #require(tenant.lastCode(sentTo: "grace@example.com")))
        try await requireUntil("signed in") { screen.message == "Welcome back." }

        tenant.configure { $0.signUpEnabled = false }
        screen.start(email: "nobody@example.com", name: "Nobody")
        try await requireUntil("the refusal") { screen.message.hasPrefix("No account uses this address") }
    }
}
