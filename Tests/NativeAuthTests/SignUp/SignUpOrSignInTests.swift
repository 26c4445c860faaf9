import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// `signUpOrSignIn` on the emulator: a new user, a known code user, a known password user, a
/// browser-only user and a tenant that does not sign users up, with the requests each sends.
@Suite("Sign up or sign in, in one call", .hangLimit)
struct SignUpOrSignInTests {
    static let newUser = "new.user@example.com"
    static let browserUser = "bo@example.com"
    static let redirect = URL(string: "msauth.com.example.app://auth")!

    let harness = EmulatorHarness(
        users: EmulatorHarness.defaultUsers + [
            EmulatedUser(
                username: SignUpOrSignInTests.browserUser, password: EmulatorHarness.password, requiresBrowser: true)
        ])

    /// A client that offers codes only, as an app with an email one-time-code user flow does.
    var codeClient: NativeAuthClient { harness.makeClient(challengeTypes: [.oob]) }

    /// The endpoint paths (`v2.0/initiate`, `v1.0/start`, …) received after `start`.
    func paths(after start: Int) -> [String] { RoundTripTests.paths(harness.tenant, after: start) }

    func codeState(
        _ parameters: SignUpOrSignInParameters, client: NativeAuthClient
    ) async throws -> SignUpOrSignInCodeRequiredState {
        guard
            case .codeRequired(let state, let sentTo, let channel, let length) = try await client.signUpOrSignIn(
                parameters)
        else { throw TestFailure("expected a code") }
        #expect(sentTo.contains("***"))
        #expect(channel == .email)
        #expect(length == 8)
        #expect(state.sentTo == sentTo)
        return state
    }

    @Test func aNewUserIsSignedUpWithTheAttributesAndSignedInByTheCodeWithOneRequestMoreThanSignUp() async throws {
        let client = codeClient
        let start = harness.tenant.receivedRequests.count
        let state = try await codeState(
            SignUpOrSignInParameters(
                username: Self.newUser, attributes: ["displayName": "New User"], scopes: ["api://contoso/read"]),
            client: client)
        #expect(state.isNewUser)
        guard case .completed(let account, let created) = try await state.submitCode(harness.code(for: Self.newUser))
        else { throw TestFailure("expected signed in") }
        #expect(created)
        #expect(account.account.username == Self.newUser)
        #expect(harness.tenant.user(named: Self.newUser)?.attributes["displayName"] == "New User")
        #expect(try await client.currentAccount()?.account.username == Self.newUser)
        // A plain sign-up and its sign-in send the last five; the first is the sign-in that found no user.
        #expect(
            paths(after: start) == [
                "v2.0/initiate", "v1.0/start", "v1.0/challenge", "v1.0/continue", "v2.0/token",
            ])
        let token = try #require(harness.tenant.receivedRequests.last)
        #expect(formFields(token).contains { $0.hasPrefix("scope=") && $0.contains("contoso") })
    }

    @Test func aKnownUserSignsInWithTheCodeAndNoRequestMoreThanSignIn() async throws {
        let start = harness.tenant.receivedRequests.count
        let state = try await codeState(
            SignUpOrSignInParameters(username: "grace@example.com", attributes: ["displayName": "Unused"]),
            client: harness.client)
        #expect(!state.isNewUser)
        guard
            case .completed(let account, let created) = try await state.submitCode(
                harness.code(for: "grace@example.com"))
        else { throw TestFailure("expected signed in") }
        #expect(!created)
        #expect(account.account.username == "grace@example.com")
        #expect(paths(after: start) == ["v2.0/initiate", "v2.0/challenge", "v2.0/token"])
        #expect(harness.tenant.user(named: "grace@example.com")?.attributes["displayName"] == nil)
    }

    @Test func aKnownPasswordUserIsAskedForThePassword() async throws {
        let start = harness.tenant.receivedRequests.count
        guard
            case .passwordRequired(let state) = try await harness.client.signUpOrSignIn(
                SignUpOrSignInParameters(username: "ada@example.com"))
        else { throw TestFailure("expected the password") }
        guard case .completed(let account) = try await state.submitPassword(EmulatorHarness.password) else {
            throw TestFailure("expected signed in")
        }
        #expect(account.account.username == "ada@example.com")
        #expect(paths(after: start) == ["v2.0/initiate", "v2.0/challenge", "v2.0/token"])
    }

    @Test func aBrowserOnlyUserMustUseTheBrowserAndNoSignUpIsTried() async throws {
        let start = harness.tenant.receivedRequests.count
        let error = try await #require(throws: SignUpOrSignInStartError.self) {
            try await harness.client.signUpOrSignIn(
                SignUpOrSignInParameters(username: Self.browserUser, scopes: ["api://contoso/read"]))
        }
        #expect(error.isBrowserRequired)
        #expect(!error.isStateStillUsable)
        #expect(paths(after: start) == ["v2.0/initiate"])
        // The user continues in the browser, as after `signIn`.
        let account = try await error.continueInBrowser(
            redirectURI: Self.redirect,
            using: EmulatedBrowser(tenant: harness.tenant, password: EmulatorHarness.password))
        #expect(account.account.username == Self.browserUser)
    }

    @Test func aTenantThatDoesNotSignUsersUpSaysSoAndCreatesNothing() async throws {
        harness.tenant.configure { $0.signUpEnabled = false }
        let start = harness.tenant.receivedRequests.count
        let error = try await #require(throws: SignUpOrSignInStartError.self) {
            try await harness.client.signUpOrSignIn(SignUpOrSignInParameters(username: Self.newUser))
        }
        #expect(error.isSignUpUnavailable)
        #expect(!error.isConfigurationError)
        #expect(error.serverError == "unauthorized_client")
        #expect(!error.isStateStillUsable)
        #expect(paths(after: start) == ["v2.0/initiate", "v1.0/start"])
        #expect(harness.tenant.user(named: Self.newUser) == nil)
        #expect(try await harness.client.currentAccount() == nil)
        // Known users still sign in.
        let state = try await codeState(SignUpOrSignInParameters(username: "grace@example.com"), client: harness.client)
        guard case .completed(_, false) = try await state.submitCode(harness.code(for: "grace@example.com")) else {
            throw TestFailure("expected signed in")
        }
    }

    @Test(arguments: [
        ("user_already_exists", 1_003_037, "userAlreadyExists"),
        ("expired_token", 552_003, "flowExpired"),
        ("invalid_client", 700_016, "signUpUnavailable"),
        ("server_error", 0, "signUpUnavailable"),
    ])
    func aSignUpRefusalWithAMeaningKeepsItAndAnyOtherSaysSignUpIsUnavailable(
        error code: String, number: Int, question: String
    ) async throws {
        harness.tenant.force(.error(code, codes: [number]), on: .signUpStart)
        let error = try await #require(throws: SignUpOrSignInStartError.self) {
            try await harness.client.signUpOrSignIn(SignUpOrSignInParameters(username: Self.newUser))
        }
        let answers: [String: Bool] = [
            "userAlreadyExists": error.isUserAlreadyExists, "flowExpired": error.isFlowExpired,
            "signUpUnavailable": error.isSignUpUnavailable,
        ]
        #expect(answers.filter(\.value).map(\.key) == [question])
        #expect(error.serverError == code)
        #expect(!error.isConfigurationError)
        // A failure without an answer stays what it is.
        harness.tenant.force(.networkFailure, on: .signUpStart, times: 3)
        let network = try await #require(throws: SignUpOrSignInStartError.self) {
            try await harness.client.signUpOrSignIn(SignUpOrSignInParameters(username: Self.newUser))
        }
        #expect(network.isNetworkError)
    }

    @Test func refusedAttributesAndBadInputAreTypedAndSendNothingTheyNeedNot() async throws {
        harness.tenant.configure {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}")]
        }
        guard
            case .attributesInvalid(let names) = try await codeClient.signUpOrSignIn(
                SignUpOrSignInParameters(username: Self.newUser, attributes: ["postalCode": "ABC"]))
        else { throw TestFailure("expected refused attributes") }
        #expect(names == ["postalCode"])
        let start = harness.tenant.receivedRequests.count
        let empty = try await #require(throws: SignUpOrSignInStartError.self) {
            try await harness.client.signUpOrSignIn(SignUpOrSignInParameters(username: "  "))
        }
        #expect(empty.isInvalidUsername)
        let unsendable = try await #require(throws: SignUpOrSignInStartError.self) {
            try await harness.client.signUpOrSignIn(
                SignUpOrSignInParameters(username: "grace@example.com", attributes: ["": "x"]))
        }
        #expect(unsendable.isInvalidAttributes)
        #expect(unsendable.invalidAttributes == [""])
        let claims = try await #require(throws: SignUpOrSignInStartError.self) {
            try await harness.client.signUpOrSignIn(
                SignUpOrSignInParameters(username: "grace@example.com", claims: "["))
        }
        #expect(claims.details.kind == .invalidArgument)
        #expect(paths(after: start).isEmpty)
    }

    @Test func aWrongCodeLeavesEitherPathUsableAndResendKeepsThePath() async throws {
        for (username, client) in [(Self.newUser, codeClient), ("grace@example.com", harness.client)] {
            let state = try await codeState(SignUpOrSignInParameters(username: username), client: client)
            let wrong = try await #require(throws: VerifyCodeError.self) { try await state.submitCode("00000000") }
            #expect(wrong.isInvalidCode)
            #expect(wrong.isStateStillUsable)
            let fresh = try await state.resendCode()
            #expect(fresh.isNewUser == state.isNewUser)
            let spent = try await #require(throws: VerifyCodeError.self) {
                try await state.submitCode(harness.code(for: username))
            }
            #expect(spent.isStateAlreadyUsed)
            guard case .completed(_, let created) = try await fresh.submitCode(harness.code(for: username)) else {
                throw TestFailure("expected signed in")
            }
            #expect(created == (username == Self.newUser))
        }
    }

    @Test func aNewUserWhoseTenantWantsAPasswordContinuesWithTheSignUpStates() async throws {
        let state = try await codeState(SignUpOrSignInParameters(username: Self.newUser), client: harness.client)
        guard case .newUserPasswordRequired(let password) = try await state.submitCode(harness.code(for: Self.newUser))
        else { throw TestFailure("expected the new user's password") }
        guard case .completed(let after) = try await password.submitPassword(EmulatorHarness.password),
            case .completed(let account) = try await after.signIn()
        else { throw TestFailure("expected the account") }
        #expect(account.account.username == Self.newUser)
    }

    @Test func whenSigningInAfterTheAccountWasCreatedFailsStartingAgainSignsTheUserIn() async throws {
        let client = codeClient
        let state = try await codeState(SignUpOrSignInParameters(username: Self.newUser), client: client)
        harness.tenant.force(.networkFailure, on: .token)
        let error = try await #require(throws: VerifyCodeError.self) {
            try await state.submitCode(harness.code(for: Self.newUser))
        }
        #expect(error.isNetworkError)
        #expect(!error.isStateStillUsable, "the code was spent: the account exists")
        #expect(harness.tenant.user(named: Self.newUser) != nil)
        let again = try await codeState(SignUpOrSignInParameters(username: Self.newUser), client: client)
        #expect(!again.isNewUser)
        guard case .completed(_, false) = try await again.submitCode(harness.code(for: Self.newUser)) else {
            throw TestFailure("expected signed in")
        }
    }

    @Test func descriptionsHoldNoSecret() async throws {
        let parameters = SignUpOrSignInParameters(username: Self.newUser, attributes: ["displayName": "Secret Name"])
        #expect(!parameters.description.contains("Secret Name"))
        let state = try await codeState(parameters, client: codeClient)
        let code = try harness.code(for: Self.newUser)
        for text in [state.description, String(describing: state), String(reflecting: state)] {
            #expect(!text.contains(code))
            #expect(text.contains("isNewUser: true"))
            for secret in harness.secretsSeen() { #expect(!text.contains(secret)) }
        }
        var dumped = ""
        dump(state, to: &dumped)
        for secret in harness.secretsSeen() { #expect(!dumped.contains(secret)) }
    }
}
