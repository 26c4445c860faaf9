// snippet: readme-sign-in-delegate
import NativeAuth

@MainActor
final class SignInController: SignInStartDelegate, SignInVerifyCodeDelegate {
    private let client: NativeAuthClient
    private var codeState: SignInCodeRequiredState?

    init(client: NativeAuthClient) {
        self.client = client
    }

    func start(email: String) {
        client.signIn(parameters: SignInParameters(username: email), delegate: self)
    }

    func submit(code: String) {
        codeState?.submitCode(code: code, delegate: self)
    }

    // SignInStartDelegate

    func onSignInCodeRequired(
        newState: SignInCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        print("Enter the code sent to \(sentTo)")
    }

    func onSignInStartError(error: SignInStartError) {
        if error.isUserNotFound {
            print("No account uses this email address.")
        } else if error.isBrowserRequired {
            print("This account needs the browser-based sign-in.")
        } else {
            print("Sign-in could not start: \(error.errorDescription ?? "")")
        }
    }

    // SignInVerifyCodeDelegate (and SignInResultDelegate, which both protocols refine)

    func onSignInCompleted(result: UserAccountResult) {
        codeState = nil
        print("Signed in as \(result.account.username)")
    }

    func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?) {
        codeState = newState  // non-nil while the state is not spent, as after a wrong code
        print(error.isInvalidCode ? "That code is not right. Try again." : "Sign-in failed.")
    }
}
// snippet: end

// Run by ReadmeSnippetTests.theDelegateSignsInWithACode.
