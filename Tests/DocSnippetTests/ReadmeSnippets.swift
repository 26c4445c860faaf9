// The samples of README.md that need no imports of their own; the tests below run them (and
// those of ReadmeSignInSample.swift and ReadmeSignInDelegateSample.swift) against an emulated
// tenant, with the console scripted.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: readme-submit-until-accepted
func submitUntilAccepted(_ state: SignInCodeRequiredState) async throws -> SignInResult? {
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        do {
            return try await state.submitCode(ask("Code:"))
        } catch {
            guard error.isInvalidCode else { throw error }
            print("That code is not right.")
        }
    }
    print("Too many wrong codes. Start again.")
    return nil
}
// snippet: end

// snippet: readme-sign-up
func signUp(client: NativeAuthClient, email: String) async throws -> UserAccountResult? {
    var attributes = UserAttributes()
    attributes.displayName = ask("Your name:")
    attributes["extension_0123456789abcdef0123456789abcdef_newsletter"] = true  // a custom attribute

    // A password could be given here too; without one, the server asks for it when it wants it.
    var step: SignUpResult
    switch try await client.signUp(SignUpParameters(username: email, attributes: attributes)) {
    case .codeRequired(let codeState, let sentTo, _, _):
        step = try await codeState.submitCode(ask("Enter the code sent to \(sentTo):"))
    case .passwordRequired(let state):  // a server that wants the password before the code
        step = try await state.submitPassword(ask("Choose a password:"))
    default:
        return nil  // .attributesInvalid: the server refused some values; see Docs/SignUp.md
    }
    let maxSteps = 5  // a password and the attributes, with room for a second round of attributes
    for _ in 1...maxSteps {
        switch step {
        case .codeRequired(let codeState, let sentTo, _, _):  // after a password asked for first
            step = try await codeState.submitCode(ask("Enter the code sent to \(sentTo):"))
        case .passwordRequired(let state):
            step = try await state.submitPassword(ask("Choose a password:"))
        case .attributesRequired(let required, let state):
            var more = UserAttributes()
            for attribute in required { more[attribute.name] = .string(ask("\(attribute.name):")) }
            step = try await state.submitAttributes(more)
        case .completed(let signInState):
            // The user exists now. Sign them in without asking for anything again.
            guard case .completed(let account) = try await signInState.signIn(scopes: ["api://contoso/orders.read"])
            else { return nil }  // a second factor or a method registration: see Docs/SignIn.md
            return account
        @unknown default:
            return nil
        }
    }
    return nil  // the server kept asking for more: stop rather than ask forever
}
// snippet: end

// The formatter leaves this alone: the sample keeps its line breaks.
// swift-format-ignore
// snippet: readme-reset-password
func resetPassword(client: NativeAuthClient, email: String) async throws -> UserAccountResult? {
    guard case .codeRequired(let codeState, let sentTo, _, _) =
        try await client.resetPassword(ResetPasswordParameters(username: email))
    else { return nil }
    let passwordState = try await codeState.submitCode(ask("Enter the code sent to \(sentTo):"))
    // Waits while the server changes the password: at most six polls at the server's interval.
    let signInState = try await passwordState.submitPassword(ask("New password:"))
    guard case .completed(let account) = try await signInState.signIn() else { return nil }
    return account
}
// snippet: end

// snippet: readme-call-api
func callAPI(client: NativeAuthClient) async throws {
    guard let account = try await client.currentAccount() else {
        return  // nobody is signed in
    }
    do {
        let token = try await account.getAccessToken(scopes: ["api://contoso/orders.read"])
        print("Bearer token valid until \(token.expiresOn)")
    } catch {
        guard error.isRefreshTokenExpired else { throw error }
        print("The session ended; sign in again.")  // the SDK has signed the account out
    }
}

func signOut(account: UserAccountResult) async {
    let result = await account.signOut()
    print("Removed from the credential store: \(result.removedFromStore)")
}
// snippet: end

// snippet: readme-follow-session
func followSession(client: NativeAuthClient) async {
    for await event in client.sessionEvents() {
        switch event {
        case .signedIn(let account):
            print("Signed in as \(account.username)")
        case .signedOut(_, .sessionExpired):
            print("The session ended on the server; sign in again.")
        case .signedOut(_, .requested), .tokenRefreshed:
            break
        @unknown default:
            break
        }
    }
}
// snippet: end

// snippet: readme-send
func orders(account: UserAccountResult, url: URL) async throws -> HTTPResponse {
    // Sets "Authorization: Bearer …"; on a 401 with error="invalid_token", refreshes and retries once.
    try await account.send(HTTPRequest(method: "GET", url: url), scopes: ["api://contoso/orders.read"])
}
// snippet: end

@Suite(.hangLimit)
struct ReadmeSnippetTests {
    @Test func aWrongCodeIsAskedForAgain() async throws {
        let (client, tenant, _) = try makeClient()
        let start = try await client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        let console = Console(input: ["00000000"])
        console.type { tenant.lastCode(sentTo: "grace@example.com") }

        let result = try await Console.$current.withValue(console) {
            try await submitUntilAccepted(state)
        }

        guard case .completed(let account) = result else {
            throw UnexpectedSampleOutcome(description: "\(String(describing: result))")
        }
        #expect(account.account.username == "grace@example.com")
        #expect(console.printed("That code is not right."))
    }

    @Test func wrongCodesEndInGivingUp() async throws {
        let (client, _, _) = try makeClient()
        let start = try await client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, _, _, _) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        // The same wrong code, then the end of input (empty answers), for ever: the sample stops.
        let console = Console(input: ["00000000", "00000000"])

        let result = try await Console.$current.withValue(console) {
            try await submitUntilAccepted(state)
        }

        #expect(result == nil)
        #expect(console.printed("Too many wrong codes. Start again."))
    }

    @MainActor
    @Test func theDelegateSignsInWithACode() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console()
        try await Console.$current.withValue(console) {
            let controller = SignInController(client: client)
            controller.start(email: "grace@example.com")
            // Each callback prints one line: the test waits for it, then reads it.
            try await console.expectNext("the code prompt", containing: "Enter the code sent to")
            controller.submit(code: "00000000")
            try await console.expectNext("the wrong-code message", containing: "That code is not right.")
            controller.submit(code: try #require(tenant.lastCode(sentTo: "grace@example.com")))
            try await console.expectNext("the sign-in", containing: "Signed in as grace@example.com")
        }
    }

    @MainActor
    @Test func theDelegateReportsAnUnknownUser() async throws {
        let (client, _, _) = try makeClient()
        let console = Console()
        try await Console.$current.withValue(console) {
            SignInController(client: client).start(email: "nobody@example.com")
            try await console.expectNext("the start error", containing: "No account uses this email address.")
        }
    }

    @Test func signsUpAndIn() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console(input: ["Katherine"])
        console.type { tenant.lastCode(sentTo: "katherine@example.com") }
        console.type("Orbital-Mechanics-1962")

        let account = try await Console.$current.withValue(console) {
            try await signUp(client: client, email: "katherine@example.com")
        }

        #expect(account?.account.username == "katherine@example.com")
        #expect(tenant.user(named: "katherine@example.com")?.password == "Orbital-Mechanics-1962")
    }

    @Test func resetsAPasswordAndSignsIn() async throws {
        let (client, tenant, clock) = try makeClient()
        let time = advanceWhileSleeping(clock)
        defer { time.cancel() }
        let console = Console()
        console.type { tenant.lastCode(sentTo: "ada@example.com") }
        console.type("Difference-Engine-1822")

        let account = try await Console.$current.withValue(console) {
            try await resetPassword(client: client, email: "ada@example.com")
        }

        #expect(account?.account.username == "ada@example.com")
        #expect(tenant.user(named: "ada@example.com")?.password == "Difference-Engine-1822")
    }

    @Test func callsTheAPIAndSignsOut() async throws {
        let (client, _, _) = try makeClient()
        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
        let console = Console()

        try await Console.$current.withValue(console) {
            try await callAPI(client: client)
            await signOut(account: account)
        }

        #expect(console.printed("Bearer token valid until"))
        #expect(console.printed("Removed from the credential store: true"))
        #expect(try await client.currentAccount() == nil)
    }

    @Test func followsTheSession() async throws {
        let (client, _, _) = try makeClient()
        let console = Console()
        let following = Task { await Console.$current.withValue(console) { await followSession(client: client) } }
        defer { following.cancel() }
        // The sample subscribes when its task starts: sign in again until an event reaches it.
        let deadline = ContinuousClock.now + TestBounds.wait
        while !console.printed("Signed in as ada@example.com"), ContinuousClock.now < deadline {
            _ = try await client.signIn(
                SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
            await Task.yield()
        }
        #expect(console.printed("Signed in as ada@example.com"))
    }

    @Test func sendsAnAuthorizedRequest() async throws {
        let (client, tenant, _) = try makeClient()
        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }

        let response: HTTPResponse = try await orders(account: account, url: tenant.url(for: .resource))

        #expect(response.statusCode == 200)
    }
}
