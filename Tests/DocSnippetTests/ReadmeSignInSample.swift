// snippet: readme-sign-in
import NativeAuth

/// Reads a line from the terminal; an app shows a screen instead.
func ask(_ prompt: String) -> String {
    print(prompt, terminator: " ")
    return readLine() ?? ""
}

func signIn() async throws {
    let configuration = try NativeAuthConfiguration(
        clientId: "00000000-0000-0000-0000-000000000000", tenantSubdomain: "contoso")
    let client = NativeAuthClient(configuration: configuration)

    let username = ask("Email:")
    let account: UserAccountResult
    switch try await client.signIn(SignInParameters(username: username, scopes: ["api://contoso/orders.read"])) {
    case .codeRequired(let state, let sentTo, _, _):
        // Email code path: the server sent a one-time code.
        let code = ask("Enter the code sent to \(sentTo):")
        guard case .completed(let result) = try await state.submitCode(code) else {
            return  // a second factor or a method registration: see Docs/SignIn.md
        }
        account = result
    case .passwordRequired(let state):
        // Password path: the server wants the password.
        guard case .completed(let result) = try await state.submitPassword(ask("Password:")) else {
            return
        }
        account = result
    case .completed(let result):
        // Only when a password was passed in SignInParameters and accepted at once.
        account = result
    case .awaitingMFA, .strongAuthRegistrationRequired, .authMethodSelectionRequired:
        return  // see Docs/SignIn.md
    @unknown default:
        return  // an outcome added by a later version of the SDK
    }
    print("Signed in as \(account.account.username)")
}
// snippet: end

// `signIn()` above is compiled, not run: it builds a client for the real tenant `contoso`, with
// the network transport. ReadmeSnippetTests runs `ask`.
