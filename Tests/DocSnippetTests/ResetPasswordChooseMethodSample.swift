// The "Choosing where the code goes" sample of Docs/ResetPassword.md, and the test that runs it
// against an emulated tenant over V2 that offers the email and SMS methods for recovery.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

// snippet: reset-password-choose-method
func resetByChosenMethod(client: NativeAuthClient, email: String) async throws -> ResetPasswordCodeRequiredState? {
    var parameters = ResetPasswordParameters(username: email)
    parameters.selectsAuthMethod = true  // native authentication V2 only
    var start = try await client.resetPassword(parameters)
    if case .authMethodSelectionRequired(let state, let methods) = start {
        for (number, method) in methods.enumerated() {
            print("\(number + 1). \(method.channelTargetType == .sms ? "Text" : "Email") to \(method.loginHint)")
        }
        guard let choice = Int(ask("Where should the code go?")), methods.indices.contains(choice - 1) else {
            return nil
        }
        start = try await state.selectAuthMethod(methods[choice - 1])
    }
    guard case .codeRequired(let codeState, let sentTo, _, _) = start else {
        return nil  // an outcome added by a later version of the SDK
    }
    print("We sent a code to \(sentTo).")
    return codeState
}
// snippet: end

@Suite(.hangLimit)
struct ResetPasswordChooseMethodSampleTests {
    @Test func theUserChoosesTheTextMessage() async throws {
        let tenant = EmulatedTenant()
        tenant.configure { $0.nativeAuthV2RecoveryMethods = .emailAndSMS }
        tenant.addUser(
            EmulatedUser(
                username: "ida@example.com", password: "Old-Password-1",
                mfaMethods: [EmulatedAuthMethod(id: "ida-sms", channel: "sms", address: "+15550100")]))
        var configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        configuration.protocolVersion = .v2
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        let console = Console(input: ["2"])

        let state = try await Console.$current.withValue(console) {
            try await resetByChosenMethod(client: client, email: "ida@example.com")
        }

        #expect(state?.channelTargetType == .sms)
        #expect(console.printed("2. Text to"))
        #expect(tenant.lastCode(sentTo: "+15550100") != nil)
    }
}
