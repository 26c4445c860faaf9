import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Password reset over native authentication V2 (`protocolVersion = .v2`) on the emulator, behind
/// the same typed states as V1.
@Suite("Password reset over V2 end to end on the emulator", .hangLimit)
struct ResetPasswordV2EmulatorTests {
    static let newPassword = "N3w-Secure-Pass!"
    static let browserUser = "bo@example.com"
    static let authority = "/contoso.onmicrosoft.com"

    let harness = EmulatorHarness(
        users: EmulatorHarness.defaultUsers + [
            EmulatedUser(
                username: ResetPasswordV2EmulatorTests.browserUser, password: EmulatorHarness.password,
                requiresBrowser: true)
        ])
    /// The client's clock: a poll's sleep returns at once and is recorded.
    let clock = TestClock()

    /// A V2 client on the harness' tenant, logger and store, sending through `transport`.
    func client(transport: (any HTTPTransport)? = nil) -> NativeAuthClient {
        V2Clients.client(harness, transport: transport, clock: clock)
    }

    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    func codeState(_ client: NativeAuthClient, username: String = "ada@example.com") async throws
        -> ResetPasswordCodeRequiredState
    {
        guard
            case .codeRequired(let state, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: username))
        else { throw TestFailure("expected codeRequired") }
        return state
    }

    func passwordState(_ client: NativeAuthClient) async throws -> ResetPasswordRequiredState {
        try await codeState(client).submitCode(harness.code(for: "ada@example.com"))
    }

    @Test func resetWithPollingThenSignIn() async throws {
        let client = client()
        let start = try await client.resetPassword(ResetPasswordParameters(username: "ada@example.com"))
        guard case .codeRequired(let codeState, let sentTo, let channel, let codeLength) = start else {
            throw TestFailure("expected codeRequired")
        }
        #expect(channel == .email && codeLength == 8 && sentTo.contains("***"))
        let passwordState = try await codeState.submitCode(harness.code(for: "ada@example.com"))
        let signInState = try await passwordState.submitPassword(Self.newPassword)
        #expect(signInState.isSignInAvailable)
        #expect(harness.tenant.user(named: "ada@example.com")?.password == Self.newPassword)
        // Three polls, each after the answer's pollInterval (1,000 ms) on the client's clock.
        #expect(clock.sleeps == [1, 1, 1])
        guard case .completed(let account) = try await signInState.signIn(scopes: ["api://demo/read"]) else {
            throw TestFailure("expected completed")
        }
        #expect(account.account.username == "ada@example.com")
        #expect(account.account.claims.name == "Ada Lovelace")
        #expect(try await account.getAccessToken().scopes.contains("api://demo/read"))

        let email = try #require(paths.first { $0.hasSuffix("/challenge") }).split(separator: "/").dropLast().last ?? ""
        let method = "\(Self.authority)/api/v2.0/auth/methods/email/\(email)"
        let update = try #require(paths.first { $0.hasPrefix("PUT ") }).dropFirst(4)
        #expect(update.hasPrefix("\(Self.authority)/api/v2.0/auth/methods/password/"))
        #expect(
            paths == [
                "POST \(Self.authority)/oauth2/v2.0/authorize-challenge",
                "POST \(Self.authority)/api/v2.0/resetpassword/start",
                "POST \(method)/challenge", "POST \(method)/verify", "PUT \(update)",
                "POST \(update)/pollUpdate", "POST \(update)/pollUpdate", "POST \(update)/pollUpdate",
                "POST \(Self.authority)/oauth2/v2.0/authorize-challenge", "POST \(Self.authority)/oauth2/v2.0/token",
            ])
        let put = try #require(harness.tenant.receivedRequests.first { $0.method == "PUT" })
        #expect(put.header("Content-Type") == "application/json")

        // Every state is spent: each refuses at once and sends nothing.
        let sent = harness.tenant.receivedRequests.count
        let spentCode = try await #require(throws: VerifyCodeError.self) { try await codeState.submitCode("12345678") }
        #expect(spentCode.isStateAlreadyUsed)
        let spentPassword = try await #require(throws: PasswordRequiredError.self) {
            try await passwordState.submitPassword(Self.newPassword)
        }
        #expect(spentPassword.isStateAlreadyUsed)
        let spentSignIn = try await #require(throws: SignInAfterResetPasswordError.self) {
            try await signInState.signIn()
        }
        #expect(spentSignIn.isStateAlreadyUsed)
        #expect(harness.tenant.receivedRequests.count == sent)

        // The new password signs in (over V1 here), the old one no longer does.
        let v1 = harness.makeClient()
        guard
            case .completed = try await v1.signIn(
                SignInParameters(username: "ada@example.com", password: Self.newPassword))
        else { throw TestFailure("expected completed") }
        let old = try await #require(throws: SignInStartError.self) {
            try await v1.signIn(SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        }
        #expect(old.isInvalidCredentials)
    }

    @Test func aWrongCodeThenTheRightOneOnTheSameState() async throws {
        let state = try await codeState(client())
        let wrong = try await #require(throws: VerifyCodeError.self) { try await state.submitCode("00000000") }
        #expect(wrong.isInvalidCode && wrong.isStateStillUsable)
        let empty = try await #require(throws: VerifyCodeError.self) { try await state.submitCode(" ") }
        #expect(empty.isInvalidCode)
        _ = try await state.submitCode(harness.code(for: "ada@example.com"))
    }

    @Test func aWeakPasswordThenAGoodOneOnTheSameState() async throws {
        let state = try await passwordState(client())
        let weak = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword("alllowercase")
        }
        #expect(weak.isInvalidPassword && weak.passwordPolicyViolation == .tooWeak && weak.isStateStillUsable)
        let short = try await #require(throws: PasswordRequiredError.self) { try await state.submitPassword("a") }
        #expect(short.passwordPolicyViolation == .tooShort)
        let reused = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword(EmulatorHarness.password)
        }
        #expect(reused.passwordPolicyViolation == .recentlyUsed)
        let empty = try await #require(throws: PasswordRequiredError.self) { try await state.submitPassword("") }
        #expect(empty.isInvalidPassword)
        guard case .completed = try await state.submitPassword(Self.newPassword).signIn() else {
            throw TestFailure("expected completed")
        }
        #expect(paths.filter { $0.hasPrefix("PUT ") }.count == 4)
    }

    @Test func anUnknownUserIsUserNotFound() async throws {
        let error = try await #require(throws: ResetPasswordStartError.self) {
            try await client().resetPassword(ResetPasswordParameters(username: "nobody@example.com"))
        }
        #expect(error.isUserNotFound)
        #expect(error.errorCodes.contains(50034))
    }

    @Test func aUserWithoutAPasswordHasNoneToReset() async throws {
        let error = try await #require(throws: ResetPasswordStartError.self) {
            try await client().resetPassword(ResetPasswordParameters(username: "grace@example.com"))
        }
        #expect(error.isUserDoesNotHavePassword)
    }

    @Test func aBrowserOnlyUserIsBrowserRequired() async throws {
        let error = try await #require(throws: ResetPasswordStartError.self) {
            try await client().resetPassword(ResetPasswordParameters(username: Self.browserUser))
        }
        #expect(error.isBrowserRequired)
        #expect(harness.tenant.outbox.isEmpty)
        let browser = EmulatedBrowser(tenant: harness.tenant, password: EmulatorHarness.password)
        let account = try await error.continueInBrowser(
            redirectURI: URL(string: "msauth.com.example.app://auth")!, using: browser)
        #expect(account.account.username == Self.browserUser)
    }

    @Test func resendSendsANewCodeAndSpendsTheOldState() async throws {
        let state = try await codeState(client())
        let fresh = try await state.resendCode()
        #expect(fresh.codeLength == 8 && fresh.channelTargetType == .email)
        let spent = try await #require(throws: VerifyCodeError.self) { try await state.submitCode("12345678") }
        #expect(spent.isStateAlreadyUsed)
        _ = try await fresh.submitCode(harness.code(for: "ada@example.com"))
        #expect(harness.tenant.outbox.filter { $0.to == "ada@example.com" }.count == 2)
        #expect(paths.filter { $0.hasSuffix("/challenge") }.count == 2)
    }

    @Test func aPollThatOutlastsTheAttemptsIsPendingAndTheNextCallWaitsOn() async throws {
        harness.tenant.configure { $0.resetPollsBeforeCompletion = 6 }
        let state = try await passwordState(client())
        let pending = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword(Self.newPassword)
        }
        #expect(pending.isPasswordResetPending && pending.isStateStillUsable)
        #expect(paths.filter { $0.hasSuffix("/pollUpdate") }.count == 5)
        // The next call polls on with the last poll's token; the password is not sent again.
        guard case .completed = try await state.submitPassword("ignored-This-Time-1").signIn() else {
            throw TestFailure("expected completed")
        }
        #expect(paths.filter { $0.hasPrefix("PUT ") }.count == 1)
        #expect(paths.filter { $0.hasSuffix("/pollUpdate") }.count == 7)
        #expect(harness.tenant.user(named: "ada@example.com")?.password == Self.newPassword)
    }

    /// A poll answered with a server error the SDK does not know (here a 500) leaves the state
    /// usable and the reset pending: the next call polls on with the last poll's token. (Found by
    /// the V2 property run: the state said it was usable, but the next call sent the new password
    /// again to the `update` link with the poll's token, and was refused as an expired flow.)
    @Test func aServerErrorWhilePollingLeavesTheWaitPendingAndTheNextCallPollsOn() async throws {
        harness.tenant.configure { $0.resetPollsBeforeCompletion = 1 }
        let state = try await passwordState(client())
        harness.tenant.force(.error("server_error", status: 500), on: .v2PasswordPollUpdate)
        let failed = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword(Self.newPassword)
        }
        #expect(failed.isStateStillUsable && failed.isPasswordResetPending && !failed.isFlowExpired)
        guard case .completed = try await state.submitPassword("ignored-This-Time-1").signIn() else {
            throw TestFailure("expected completed")
        }
        #expect(paths.filter { $0.hasPrefix("PUT ") }.count == 1, "the new password is sent once")
        #expect(harness.tenant.user(named: "ada@example.com")?.password == Self.newPassword)
    }

    @Test func aSecondSubmitWhileTheFirstRunsIsBusy() async throws {
        let gate = GatedTransport(harness.tenant)
        let state = try await passwordState(client(transport: gate))
        gate.close()
        let first = Task { try await state.submitPassword(Self.newPassword) }
        await gate.waitUntilHeld(1)
        let busy = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword(Self.newPassword)
        }
        #expect(busy.isStateBusy)
        gate.open()
        _ = try await first.value
    }

    @Test(arguments: [UpdateLink.missing, .otherHost, .insecure])
    func anUpdateLinkThatCannotBeFollowedIsRefusedBeforeThePasswordIsSent(_ link: UpdateLink) async throws {
        let state = try await codeState(client(transport: link.transport(harness.tenant)))
        let error = try await #require(throws: VerifyCodeError.self) {
            try await state.submitCode(harness.code(for: "ada@example.com"))
        }
        #expect(error.isUnexpectedResponse)
        #expect(!paths.contains { $0.hasPrefix("PUT ") })
        #expect(!"\(error)".contains("evil.example"))
    }

    @Test func descriptionsShowNoTokenNorLink() async throws {
        let codeState = try await codeState(client())
        let passwordState = try await codeState.submitCode(harness.code(for: "ada@example.com"))
        let weak = try await #require(throws: PasswordRequiredError.self) {
            try await passwordState.submitPassword("alllowercase")
        }
        var text = "\(codeState) \(passwordState) \(weak) \(String(reflecting: weak))"
        for state in [codeState as Any, passwordState] {
            text += String(describing: Mirror(reflecting: state).children.map(\.value))
        }
        #expect(!text.contains("/api/") && !text.contains("password/"))
        var secrets = harness.secretsSeen(extra: ["alllowercase"])
        for request in harness.tenant.receivedRequests {
            guard let body = request.body, let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
            else { continue }
            for key in ["continuationToken", "otp", "newPassword"] {
                (object[key] as? String).map { _ = secrets.insert($0) }
            }
        }
        for secret in secrets {
            #expect(!text.contains(secret))
            for record in harness.logger.records { #expect(!"\(record)".contains(secret)) }
        }
    }

    @Test func theV1ResetStillWorks() async throws {
        let client = harness.makeClient()
        #expect(client.configuration.protocolVersion == .v1)
        guard
            case .codeRequired(let state, _, _, _) = try await client.resetPassword(
                ResetPasswordParameters(username: "ada@example.com"))
        else { throw TestFailure("expected codeRequired") }
        let password = try await state.submitCode(harness.code(for: "ada@example.com"))
        let mover = advanceWhileSleeping(harness.clock)
        defer { mover.cancel() }
        guard case .completed = try await password.submitPassword(Self.newPassword).signIn() else {
            throw TestFailure("expected completed")
        }
        #expect(paths.first == "POST \(Self.authority)/resetpassword/v1.0/start")
        #expect(!paths.contains { $0.contains("authorize-challenge") || $0.contains("/api/v2.0/") })
    }
}

/// How a hostile answer changes the `update` link of a verify answer.
enum UpdateLink: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case missing, otherHost, insecure
    var testDescription: String { rawValue }

    /// A transport in front of `tenant` that rewrites the `update` link of the code's `verify` answer.
    func transport(_ tenant: EmulatedTenant) -> RewritingTransport {
        RewritingTransport(tenant, after: "/verify") { object in
            guard var links = object["_links"] as? [String: Any],
                let href = (links["update"] as? [String: Any])?["href"] as? String
            else { return }
            switch self {
            case .missing: links["update"] = nil
            case .otherHost: links["update"] = ["href": "https://evil.example" + href]
            case .insecure: links["update"] = ["href": "http://\(tenant.authority.host ?? "")" + href]
            }
            object["_links"] = links
        }
    }
}
