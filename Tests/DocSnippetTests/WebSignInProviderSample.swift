// snippet: web-sign-in-with-provider
import Foundation
import NativeAuth

func signInWithProvider() async throws -> UserAccountResult {
    let agent = LoopbackUserAgent()
    let redirectURI = try agent.prepare()  // http://127.0.0.1:<free port>/callback
    let client = try WebAuthClient(
        issuer: URL(string: "https://login.example.com/realms/demo")!, clientId: "my-app",
        redirectURI: redirectURI)
    var parameters = WebSignInParameters(scopes: ["offline_access", "api.read"])
    parameters.loginHint = "ada@example.com"
    return try await client.signIn(parameters, using: agent)
}
// snippet: end

// Compiled only: it signs in at a real provider, in the system browser.
