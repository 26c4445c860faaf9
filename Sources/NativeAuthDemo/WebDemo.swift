import Foundation
import NativeAuth

/// `nativeauth web`: OpenID Connect in the browser against any provider, with the loopback agent.
enum WebDemo {
    static func run(issuer: URL, clientId: String, scopes: [String], port: UInt16?, storage: Options.Storage) async {
        Terminal.say("Web sign-in demo (OpenID Connect, authorization code with PKCE)")
        let agent = LoopbackUserAgent(port: port) { url in
            do {
                try await LoopbackUserAgent.openInSystemBrowser(url)
                Terminal.say("Your browser shows the provider's sign-in page.")
            } catch {
                Terminal.say("Open this address in a browser to sign in:\n\(url.absoluteString)")
            }
        }
        do {
            let redirectURI = try agent.prepare()
            Terminal.say("Issuer: \(issuer.absoluteString)   client id: \(clientId)   redirect URI: \(redirectURI)")
            let client = try WebAuthClient(
                issuer: issuer, clientId: clientId, redirectURI: redirectURI,
                credentialStore: DemoMain.credentialStore(storage))
            let account: UserAccountResult
            if let restored = try await client.currentAccount() {
                Terminal.say("Welcome back, \(restored.account.username) (restored from the store, no request).")
                account = restored
            } else {
                account = try await client.signIn(
                    WebSignInParameters(scopes: ["offline_access"] + scopes), using: agent)
                Terminal.say(
                    "Signed in as \(account.account.username); the ID token's signature and claims were verified.")
            }
            Terminal.say("Subject: \(account.account.claims.subject ?? "?")")
            let token = try await account.getAccessToken()
            Terminal.say("An access token is ready, valid until \(token.expiresOn) (the token itself is not shown).")
        } catch let error as WebSignInError {
            Terminal.sayError("Web sign-in failed: \(error.description)")
        } catch {
            Terminal.sayError("Web sign-in failed: \(error)")
        }
    }
}
