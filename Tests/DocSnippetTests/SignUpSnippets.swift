// The samples of Docs/SignUp.md (but one: SignUpCollectAttributesSample.swift), and the tests
// that run them against an emulated tenant, with the console scripted.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// The guide's input helper, the same as README.md's `ask` (which the samples below call); kept
/// in a namespace so that the two do not clash.
enum SignUpGuideHelper {
    // snippet: sign-up-ask
    // import NativeAuth

    func ask(_ prompt: String) -> String {
        print(prompt, terminator: " ")
        return readLine() ?? ""
    }
    // snippet: end
}

// snippet: sign-up-start
func startSignUp(client: NativeAuthClient) async throws -> UserAccountResult? {
    var attributes = UserAttributes()
    attributes.displayName = ask("Your name:")
    let password = ask("Choose a password (or leave empty):")
    let parameters = SignUpParameters(
        username: ask("Email:"), password: password.isEmpty ? nil : password, attributes: attributes)

    switch try await client.signUp(parameters) {
    case .codeRequired(let state, let sentTo, _, let codeLength):
        print("We sent a \(codeLength.map { "\($0)-digit " } ?? "")code to \(sentTo).")
        guard let verified = try await verifyEmail(state), let signInState = try await continueSignUp(verified)
        else { return nil }
        return try await signInNewUser(signInState)
    case .attributesInvalid(let names):
        print("Please check: \(names.joined(separator: ", ")).")
        return nil
    case .passwordRequired(let state):
        // A server that wants the password before it sends the code (given none above).
        guard let signInState = try await continueSignUp(.passwordRequired(state)) else { return nil }
        return try await signInNewUser(signInState)
    @unknown default:
        return nil
    }
}
// snippet: end

// snippet: sign-up-invalid-attributes
func startWithAttributes(client: NativeAuthClient, email: String, attributes: UserAttributes) async
    -> SignUpStartResult?
{
    do {
        return try await client.signUp(SignUpParameters(username: email, attributes: attributes))
    } catch {
        if error.isInvalidAttributes {
            print("Cannot send \(error.invalidAttributes.joined(separator: ", ")): \(error.errorDescription ?? "")")
        }
        return nil
    }
}
// snippet: end

// snippet: sign-up-verify-email
func verifyEmail(_ state: SignUpCodeRequiredState) async throws -> SignUpResult? {
    var state = state
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        let input = ask("Code (or 'resend'):")
        if input == "resend" {
            state = try await state.resendCode()  // continue with the new state
            continue
        }
        do {
            return try await state.submitCode(input)
        } catch {
            guard error.isInvalidCode else { throw error }
            print("That code is not right.")
        }
    }
    print("Too many attempts. Start again.")
    return nil
}
// snippet: end

// snippet: sign-up-continue
func continueSignUp(_ result: SignUpResult) async throws -> SignInAfterSignUpState? {
    var result = result
    let maxSteps = 5  // a password and the attributes, with room for a second round of attributes
    for _ in 1...maxSteps {
        switch result {
        case .passwordRequired(let state):
            guard let next = try await choosePassword(state) else { return nil }
            result = next
        case .attributesRequired(let required, let state):
            guard let next = try await collectAttributes(required, on: state) else { return nil }
            result = next
        case .completed(let signInState):
            return signInState
        case .codeRequired(let state, _, _, _):
            // The code, after a password the server asked for before it.
            guard let next = try await verifyEmail(state) else { return nil }
            result = next
        @unknown default:
            return nil
        }
    }
    return nil  // the server kept asking for more: stop rather than ask forever
}
// snippet: end

// snippet: sign-up-choose-password
func choosePassword(_ state: SignUpPasswordRequiredState) async throws -> SignUpResult? {
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        do {
            return try await state.submitPassword(ask("Choose a password:"))
        } catch {
            guard error.isInvalidPassword else { throw error }
            print(advice(for: error.passwordPolicyViolation))
        }
    }
    print("Too many refused passwords. Start again.")
    return nil
}
// snippet: end

// snippet: sign-up-password-advice
func advice(for violation: PasswordPolicyViolation?) -> String {
    switch violation {
    case .tooShort: "Use at least 8 characters."
    case .tooLong: "Use at most 256 characters."
    case .tooWeak: "Mix at least three of: lowercase letters, uppercase letters, digits, symbols."
    case .recentlyUsed: "You used this password recently. Choose another one."
    case .banned: "This password is too easy to guess. Choose another one."
    case .invalid: "This password holds characters that are not allowed."
    case .other, nil: "This password cannot be used. Choose another one."
    }
}
// snippet: end

// snippet: sign-up-sign-in-new-user
func signInNewUser(_ state: SignInAfterSignUpState) async throws -> UserAccountResult? {
    let result = try await state.signIn(scopes: ["api://contoso/orders.read"])
    return try await finish(result)  // finish(_:) from the Sign-in guide
}
// snippet: end

// snippet: sign-up-delegate
@MainActor
final class SignUpController: SignUpStartDelegate, SignUpVerifyCodeDelegate, SignUpResendCodeDelegate,
    SignUpPasswordRequiredDelegate, SignUpAttributesRequiredDelegate, SignInAfterSignUpDelegate
{
    private let client: NativeAuthClient
    private var codeState: SignUpCodeRequiredState?
    private var passwordState: SignUpPasswordRequiredState?
    private var attributesState: SignUpAttributesRequiredState?

    init(client: NativeAuthClient) {
        self.client = client
    }

    func start(email: String, displayName: String) {
        var attributes = UserAttributes()
        attributes.displayName = displayName
        client.signUp(parameters: SignUpParameters(username: email, attributes: attributes), delegate: self)
    }

    func submit(code: String) { codeState?.submitCode(code: code, delegate: self) }
    func resendCode() { codeState?.resendCode(delegate: self) }
    func submit(password: String) { passwordState?.submitPassword(password: password, delegate: self) }
    func submit(attributes: UserAttributes) {
        attributesState?.submitAttributes(attributes: attributes, delegate: self)
    }

    // SignUpStartDelegate

    func onSignUpCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
        print("Enter the code sent to \(sentTo).")
    }

    func onSignUpAttributesInvalid(attributeNames: [String]) {
        print("Please check: \(attributeNames.joined(separator: ", ")).")
    }

    func onSignUpStartError(error: SignUpStartError) {
        if error.isUserAlreadyExists {
            print("This address already has an account. Sign in instead.")
        } else if error.isInvalidPassword {
            print(advice(for: error.passwordPolicyViolation))
        } else {
            print("Sign-up could not start: \(error.errorDescription ?? "")")
        }
    }

    // SignUpResendCodeDelegate

    func onSignUpResendCodeCodeRequired(
        newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: ChannelType, codeLength: Int?
    ) {
        codeState = newState
    }

    func onSignUpResendCodeError(error: ResendCodeError, newState: SignUpCodeRequiredState?) {
        codeState = newState
    }

    // SignUpResultDelegate: the outcomes of the code, password and attribute steps

    func onSignUpPasswordRequired(newState: SignUpPasswordRequiredState) {
        codeState = nil
        passwordState = newState
    }

    func onSignUpAttributesRequired(attributes: [RequiredAttribute], newState: SignUpAttributesRequiredState) {
        codeState = nil
        passwordState = nil
        attributesState = newState
        print("Please fill in: \(attributes.map(\.name).joined(separator: ", ")).")
    }

    func onSignUpCompleted(newState: SignInAfterSignUpState) {
        codeState = nil
        passwordState = nil
        attributesState = nil
        newState.signIn(scopes: ["api://contoso/orders.read"], delegate: self)
    }

    // The error of each step: newState is the state to try again on, or nil

    func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?) {
        codeState = newState
        print(error.isInvalidCode ? "That code is not right. Try again." : "Sign-up failed.")
    }

    func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?) {
        passwordState = newState
        print(error.isInvalidPassword ? advice(for: error.passwordPolicyViolation) : "Sign-up failed.")
    }

    func onSignUpAttributesRequiredError(error: AttributesRequiredError, newState: SignUpAttributesRequiredState?) {
        attributesState = newState
        if error.isInvalidAttributes {
            print("Please check: \(error.invalidAttributes.joined(separator: ", ")).")
        }
    }

    // SignInAfterSignUpDelegate (and SignInResultDelegate, which it refines)

    func onSignInCompleted(result: UserAccountResult) {
        print("Welcome, \(result.account.claims.name ?? result.account.username).")
    }

    func onSignInAfterSignUpError(error: SignInAfterSignUpError) {
        print("Your account is ready; please sign in.")
    }
}
// snippet: end

@Suite(.hangLimit)
struct SignUpGuideSampleTests {
    // snippet: sign-up-tests
    @Test func signsANewUserUp() async throws {
        let (client, tenant, _) = try makeClient()  // from Getting started
        tenant.configure {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}")]
        }

        let start = try await client.signUp(
            SignUpParameters(
                username: "charles@example.com", password: "Difference-Engine-1822",
                attributes: ["displayName": "Charles Babbage"]))
        guard case .codeRequired(let codeState, _, _, _) = start else {
            throw UnexpectedOutcome(description: "\(start)")
        }

        let code = try #require(tenant.lastCode(sentTo: "charles@example.com"))
        let afterCode = try await codeState.submitCode(code)
        guard case .attributesRequired(let required, let attributesState) = afterCode else {
            throw UnexpectedOutcome(description: "\(afterCode)")
        }
        #expect(required.map(\.name) == ["postalCode"])

        let error = try await #require(throws: AttributesRequiredError.self) {
            try await attributesState.submitAttributes(["postalCode": "N1"])
        }
        #expect(error.invalidAttributes == ["postalCode"])

        let done = try await attributesState.submitAttributes(["postalCode": "1822"])
        guard case .completed(let signInState) = done else {
            throw UnexpectedOutcome(description: "\(done)")
        }
        let signedIn = try await signInState.signIn()
        guard case .completed(let account) = signedIn else {
            throw UnexpectedOutcome(description: "\(signedIn)")
        }
        #expect(account.account.username == "charles@example.com")
        #expect(tenant.user(named: "charles@example.com")?.attributes["postalCode"] == "1822")
    }

    @Test func refusesAnExistingAddress() async throws {
        let (client, _, _) = try makeClient()
        let error = try await #require(throws: SignUpStartError.self) {
            try await client.signUp(SignUpParameters(username: "ada@example.com"))
        }
        #expect(error.isUserAlreadyExists)
    }
    // snippet: end
}

@Suite(.hangLimit)
struct SignUpSnippetTests {
    @Test func signsUpWithAPasswordUpFront() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console(input: ["Charles Babbage", "Difference-Engine-1822", "charles@example.com"])
        console.type { tenant.lastCode(sentTo: "charles@example.com") }

        let account = try await Console.$current.withValue(console) { try await startSignUp(client: client) }

        #expect(account?.account.username == "charles@example.com")
        #expect(console.printed("We sent a 8-digit code to"))
    }

    @Test func walksEveryStep() async throws {
        let (client, tenant, _) = try makeClient()
        tenant.configure {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}")]
        }
        let console = Console(input: ["Mary Somerville", "", "mary@example.com", "00000000", "resend"])
        console.type { tenant.lastCode(sentTo: "mary@example.com") }
        console.type("short", "Mechanism-Heavens-1831", "N1", "1831")

        let account = try await Console.$current.withValue(console) { try await startSignUp(client: client) }

        #expect(account?.account.username == "mary@example.com")
        #expect(console.printed("That code is not right."))
        #expect(console.printed("Use at least 8 characters."))
        #expect(console.printed("That does not look right; the server will check it."))
        #expect(console.printed("Please check: postalCode."))
        #expect(tenant.user(named: "mary@example.com")?.attributes["postalCode"] == "1831")
    }

    @Test func givesUpAfterTooManyWrongCodes() async throws {
        let (client, _, _) = try makeClient()
        // A wrong code, then the end of input: every later answer is empty. The sample stops.
        let console = Console(input: ["Mary Somerville", "", "mary@example.com", "00000000"])

        let account = try await Console.$current.withValue(console) { try await startSignUp(client: client) }

        #expect(account == nil)
        #expect(console.printed("Too many attempts. Start again."))
    }

    @Test func givesUpAfterTooManyRefusedPasswords() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console(input: ["Mary Somerville", "", "mary@example.com"])
        console.type { tenant.lastCode(sentTo: "mary@example.com") }
        console.type("short", "short", "short")

        let account = try await Console.$current.withValue(console) { try await startSignUp(client: client) }

        #expect(account == nil)
        #expect(console.printed("Too many refused passwords. Start again."))
    }

    @Test func givesUpAfterTooManyRefusedValues() async throws {
        let (client, tenant, _) = try makeClient()
        tenant.configure {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "postalCode", regex: "[0-9]{4}")]
        }
        let console = Console(input: ["Mary Somerville", "Mechanism-Heavens-1831", "mary@example.com"])
        console.type { tenant.lastCode(sentTo: "mary@example.com") }
        console.type("N1", "N1", "N1")

        let account = try await Console.$current.withValue(console) { try await startSignUp(client: client) }

        #expect(account == nil)
        #expect(console.printed("Too many refused values. Start again."))
    }

    @Test func reportsAnAttributeThatCannotBeSent() async throws {
        let (client, _, _) = try makeClient()
        let console = Console()
        let start = await Console.$current.withValue(console) {
            await startWithAttributes(client: client, email: "mary@example.com", attributes: ["postal code": "N1"])
        }
        #expect(start == nil)
        #expect(console.printed("Cannot send postal code:"))
    }

    @MainActor
    @Test func theDelegateSignsUpAndIn() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console()
        try await Console.$current.withValue(console) {
            let controller = SignUpController(client: client)
            controller.start(email: "mary@example.com", displayName: "Mary Somerville")
            try await console.expectNext("the code prompt", containing: "Enter the code sent to")
            controller.submit(code: try #require(tenant.lastCode(sentTo: "mary@example.com")))
            // The password state reaches the controller when the code's answer does.
            try await requireEventually("the sign-in") {
                controller.submit(password: "Mechanism-Heavens-1831")
                return console.printed("Welcome, Mary Somerville.")
            }
        }
    }

    @MainActor
    @Test func theDelegateResendsTheCode() async throws {
        let (client, tenant, _) = try makeClient()
        let console = Console()
        try await Console.$current.withValue(console) {
            let controller = SignUpController(client: client)
            controller.start(email: "mary@example.com", displayName: "Mary Somerville")
            try await console.expectNext("the code prompt", containing: "Enter the code sent to")
            controller.resendCode()
            try await requireUntil("the second code") { tenant.outbox.count == 2 }
        }
    }

    @MainActor
    @Test func theDelegateReportsAnExistingUser() async throws {
        let (client, _, _) = try makeClient()
        let console = Console()
        try await Console.$current.withValue(console) {
            SignUpController(client: client).start(email: "ada@example.com", displayName: "Ada")
            try await console.expectNext("the start error", containing: "This address already has an account.")
        }
    }

    @Test func writesAttributesAsLiterals() {
        // The formatter leaves this alone: the sample's comments stay aligned.
        // swift-format-ignore
        do {
            // snippet: sign-up-attribute-literals
            let attributes: UserAttributes = [
                "displayName": "Ada Lovelace",   // .string
                "city": "London",                // .string
                "extension_0123456789abcdef0123456789abcdef_loyaltyNumber": 1815,  // .int
                "extension_0123456789abcdef0123456789abcdef_newsletter": true,     // .bool
            ]
            // snippet: end

            #expect(attributes["city"] == .string("London"))
            #expect(attributes["extension_0123456789abcdef0123456789abcdef_loyaltyNumber"] == .int(1815))
        }
    }

    @Test func setsBuiltInAttributes() {
        // snippet: sign-up-built-in-attributes
        var attributes = UserAttributes()
        attributes.givenName = "Ada"
        attributes.surname = "Lovelace"
        attributes.country = "United Kingdom"
        attributes.jobTitle = nil  // removes it
        // snippet: end
        #expect(attributes.givenName == "Ada")
        #expect(attributes.jobTitle == nil)
    }

    @Test func setsCustomAttributes() {
        // snippet: sign-up-custom-attributes
        var attributes = UserAttributes()
        attributes["extension_0123456789abcdef0123456789abcdef_favouriteColour"] = "green"
        attributes["extension_0123456789abcdef0123456789abcdef_age"] = 36
        // snippet: end
        #expect(attributes["extension_0123456789abcdef0123456789abcdef_age"] == .int(36))
    }
}
