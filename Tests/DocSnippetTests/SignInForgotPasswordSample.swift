// The "Forgot your password?" sample of Docs/SignIn.md, and the test that runs it against an
// emulated tenant over V1 and V2, with the console scripted and the clock moved whenever the reset
// waits between polls.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: sign-in-forgot-password
func forgotPassword(_ state: SignInPasswordRequiredState) async throws -> UserAccountResult? {
    // "Forgot your password?" on the password screen: a reset for the user of this sign-in.
    guard case .codeRequired(let codeState, let sentTo, _, _) = try await state.resetPassword() else {
        return nil  // an outcome added by a later version of the SDK
    }
    print("We sent a code to \(sentTo).")
    guard let passwordState = try await verifyCode(codeState),
        let signInState = try await chooseNewPassword(passwordState)
    else { return nil }  // the user gave up
    return try await finish(signInState.signIn(scopes: ["api://contoso/orders.read"]))
}
// snippet: end

@Suite(.hangLimit)
struct SignInForgotPasswordSampleTests {
    @Test(arguments: [NativeAuthProtocol.v1, .v2])
    func aWrongPasswordThenForgotPassword(_ version: NativeAuthProtocol) async throws {
        let (v1, tenant, clock) = try makeClient()
        var configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        configuration.clock = clock
        configuration.protocolVersion = version
        let client =
            version == .v1
            ? v1
            : NativeAuthClient(
                configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        guard case .passwordRequired(let state) = try await client.signIn(SignInParameters(username: "ada@example.com"))
        else { throw UnexpectedOutcome(description: "no password state") }
        let wrong = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword("Difference-Engine-1822")
        }
        #expect(wrong.isInvalidPassword)
        let time = advanceWhileSleeping(clock)
        defer { time.cancel() }
        let console = Console()
        console.type { tenant.lastCode(sentTo: "ada@example.com") }
        console.type("Countess-of-Lovelace-1815")

        let account = try await Console.$current.withValue(console) { try await forgotPassword(state) }

        #expect(account?.account.username == "ada@example.com")
        #expect(console.printed("We sent a code to"))
        #expect(tenant.user(named: "ada@example.com")?.password == "Countess-of-Lovelace-1815")
    }
}
