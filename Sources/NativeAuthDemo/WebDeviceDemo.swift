import Foundation
import NativeAuth

/// `nativeauth web --device`: the device code sign-in (RFC 8628) against any provider that offers
/// it. Prints the user code and the address to open on another device, then waits.
enum WebDeviceDemo {
    static func run(issuer: URL, clientId: String, scopes: [String], storage: Options.Storage) async {
        Terminal.say("Device code sign-in demo (OAuth 2.0 device authorization grant)")
        // The device flow sends no redirect URI; the client is made with a loopback one.
        guard let redirectURI = URL(string: "http://127.0.0.1/callback") else { return }
        do {
            let client = try WebAuthClient(
                issuer: issuer, clientId: clientId, redirectURI: redirectURI,
                credentialStore: DemoMain.credentialStore(storage))
            let account: UserAccountResult
            if let restored = try await client.currentAccount() {
                Terminal.say("Welcome back, \(restored.account.username) (restored from the store, no request).")
                account = restored
            } else {
                let state = try await client.startDeviceSignIn(
                    WebDeviceSignInParameters(scopes: ["offline_access"] + scopes))
                Terminal.say("On your phone or computer, open \(state.verificationURI.absoluteString)")
                Terminal.say("and enter the code:  \(state.userCode)")
                if let complete = state.verificationURIComplete {
                    Terminal.say("(or open \(complete.absoluteString), which has the code in it)")
                }
                let minutes = max(1, Int((state.expiresOn.timeIntervalSinceNow / 60).rounded()))
                Terminal.say("Waiting for you to sign in there (the code works for about \(minutes) min) …")
                account = try await state.waitForCompletion()
                Terminal.say(
                    "Signed in as \(account.account.username); the ID token's signature and claims were verified.")
            }
            Terminal.say("Subject: \(account.account.claims.subject ?? "?")")
            let token = try await account.getAccessToken()
            Terminal.say("An access token is ready, valid until \(token.expiresOn) (the token itself is not shown).")
        } catch let error as WebSignInError {
            if error.isUnsupported {
                Terminal.sayError("This provider does not offer device code sign-in: \(error.description)")
            } else if error.isExpired {
                Terminal.sayError("The code expired before anyone signed in with it. Run the demo again.")
            } else {
                Terminal.sayError("Device code sign-in failed: \(error.description)")
            }
        } catch {
            Terminal.sayError("Device code sign-in failed: \(error)")
        }
    }
}
