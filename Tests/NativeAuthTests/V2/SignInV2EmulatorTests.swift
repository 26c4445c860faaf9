import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Sign-in over native authentication V2 (`protocolVersion = .v2`) on the emulator, behind the same
/// typed states as V1.
@Suite("Sign-in over V2 end to end on the emulator", .hangLimit)
struct SignInV2EmulatorTests {
    static let redirect = URL(string: "msauth.com.example.app://auth")!
    static let browserUser = "bo@example.com"

    let harness = EmulatorHarness(
        users: EmulatorHarness.defaultUsers + [
            EmulatedUser(
                username: SignInV2EmulatorTests.browserUser, password: EmulatorHarness.password,
                attributes: ["displayName": "Bo Browser"], requiresBrowser: true)
        ])

    /// A V2 client on the harness' tenant, clock, logger and store, sending through `transport`.
    func client(transport: (any HTTPTransport)? = nil) -> NativeAuthClient {
        V2Clients.client(harness, transport: transport)
    }

    var paths: [String] { harness.tenant.receivedRequests.map { "\($0.method) \($0.url.path)" } }

    func codeState(_ client: NativeAuthClient, username: String = "grace@example.com") async throws
        -> SignInCodeRequiredState
    {
        guard case .codeRequired(let state, _, _, _) = try await client.signIn(SignInParameters(username: username))
        else { throw TestFailure("expected codeRequired") }
        return state
    }

    @Test func emailCodeSignInWithAWrongCodeFirstOnTheSameState() async throws {
        let client = client()
        let start = try await client.signIn(SignInParameters(username: "grace@example.com"))
        guard case .codeRequired(let state, let sentTo, let channel, let codeLength) = start else {
            throw TestFailure("expected codeRequired")
        }
        #expect(channel == .email)
        #expect(codeLength == 8)
        #expect(sentTo.contains("***"))
        #expect(state.sentTo == sentTo)
        let wrong = try await #require(throws: VerifyCodeError.self) { try await state.submitCode("00000000") }
        #expect(wrong.isInvalidCode)
        let empty = try await #require(throws: VerifyCodeError.self) { try await state.submitCode("  ") }
        #expect(empty.isInvalidCode)
        let result = try await state.submitCode(harness.code(for: "grace@example.com"))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        #expect(account.account.username == "grace@example.com")
        #expect(account.account.claims.preferredUsername == "grace@example.com")
        #expect(account.account.claims.tenantId == harness.tenant.tenantId)
        let token = try await account.getAccessToken()
        #expect(token.expiresOn == harness.clock.now().addingTimeInterval(3600))
        // Spent after success: refuses and sends nothing.
        let sent = harness.tenant.receivedRequests.count
        let spent = try await #require(throws: VerifyCodeError.self) { try await state.submitCode("12345678") }
        #expect(spent.isStateAlreadyUsed)
        #expect(harness.tenant.receivedRequests.count == sent)
    }

    @Test func roundTripsOfACodeSignIn() async throws {
        let state = try await codeState(client())
        _ = try await state.submitCode(harness.code(for: "grace@example.com"))
        let authority = "/contoso.onmicrosoft.com"
        // authorize-challenge, signin/start, challenge, verify, authorize-challenge (resume), token.
        let methods = "\(authority)/api/v2.0/auth/methods/email/\(try methodId())"
        #expect(
            paths == [
                "POST \(authority)/oauth2/v2.0/authorize-challenge", "POST \(authority)/api/v2.0/signin/start",
                "POST \(methods)/challenge", "POST \(methods)/verify",
                "POST \(authority)/oauth2/v2.0/authorize-challenge", "POST \(authority)/oauth2/v2.0/token",
            ])
        // The code exchange asks for the V1 default scopes.
        let token = try #require(harness.tenant.receivedRequests.last)
        let body = String(decoding: token.body ?? Data(), as: UTF8.self)
        #expect(body.contains("grant_type=authorization_code"))
        #expect(body.contains("client_info=true"))
        #expect(
            body.contains("scope=openid%20profile%20offline_access")
                || body.contains("scope=openid+profile+offline_access"))
    }

    /// The method id of the email challenge the tenant answered, from the path it was sent to.
    func methodId() throws -> String {
        let challenge = try #require(paths.first { $0.hasSuffix("/challenge") })
        return String(challenge.split(separator: "/").dropLast().last ?? "")
    }

    @Test func passwordAskedThenWrongThenRight() async throws {
        let client = client()
        guard case .passwordRequired(let state) = try await client.signIn(SignInParameters(username: "ada@example.com"))
        else { throw TestFailure("expected passwordRequired") }
        let wrong = try await #require(throws: PasswordRequiredError.self) {
            try await state.submitPassword("nope-nope")
        }
        #expect(wrong.isInvalidPassword)
        guard case .completed(let account) = try await state.submitPassword(EmulatorHarness.password) else {
            throw TestFailure("expected completed")
        }
        #expect(account.account.claims.name == "Ada Lovelace")
        #expect(!"\(state)".contains("http"))
    }

    @Test func passwordGivenUpFront() async throws {
        let result = try await client().signIn(
            SignInParameters(
                username: "ada@example.com", password: EmulatorHarness.password, scopes: ["api://demo/read"]))
        guard case .completed(let account) = result else { throw TestFailure("expected completed") }
        let token = try await account.getAccessToken()
        #expect(token.scopes.contains("api://demo/read"))
        #expect(paths.count == 5)
    }

    @Test func aWrongPasswordUpFrontIsInvalidCredentials() async throws {
        let error = try await #require(throws: SignInStartError.self) {
            try await client().signIn(SignInParameters(username: "ada@example.com", password: "nope-nope"))
        }
        #expect(error.isInvalidCredentials)
    }

    @Test func resendSendsANewCodeAndSpendsTheOldState() async throws {
        let state = try await codeState(client())
        let fresh = try await state.resendCode()
        #expect(fresh.codeLength == 8)
        let spent = try await #require(throws: VerifyCodeError.self) { try await state.submitCode("12345678") }
        #expect(spent.isStateAlreadyUsed)
        guard case .completed = try await fresh.submitCode(harness.code(for: "grace@example.com")) else {
            throw TestFailure("expected completed")
        }
        // The tenant's `resend` link is the method's challenge path: two challenges, one per code.
        #expect(paths.filter { $0.hasSuffix("/challenge") }.count == 2)
        #expect(harness.tenant.outbox.filter { $0.to == "grace@example.com" }.count == 2)
    }

    @Test func anUnknownUserIsUserNotFound() async throws {
        let error = try await #require(throws: SignInStartError.self) {
            try await client().signIn(SignInParameters(username: "nobody@example.com"))
        }
        #expect(error.isUserNotFound)
        #expect(error.errorCodes.contains(50034))
    }

    @Test func aBrowserOnlyUserContinuesInTheBrowser() async throws {
        let error = try await #require(throws: SignInStartError.self) {
            try await client().signIn(SignInParameters(username: Self.browserUser))
        }
        #expect(error.isBrowserRequired)
        let browser = EmulatedBrowser(tenant: harness.tenant, password: EmulatorHarness.password)
        let account = try await error.continueInBrowser(redirectURI: Self.redirect, using: browser)
        #expect(account.account.username == Self.browserUser)
        #expect(account.account.claims.string("name") == "Bo Browser")
    }

    @Test func aSecondSubmitWhileTheFirstRunsIsBusy() async throws {
        let gate = GatedTransport(harness.tenant)
        let state = try await codeState(client(transport: gate))
        let code = try harness.code(for: "grace@example.com")
        gate.close()
        let first = Task { try await state.submitCode(code) }
        await gate.waitUntilHeld(1)
        let busy = try await #require(throws: VerifyCodeError.self) { try await state.submitCode(code) }
        #expect(busy.isStateBusy)
        #expect(gate.heldCount == 1)
        gate.open()
        guard case .completed = try await first.value else { throw TestFailure("expected completed") }
    }

    @Test func theStoredAccountIsRestoredByANewClient() async throws {
        let state = try await codeState(client())
        _ = try await state.submitCode(harness.code(for: "grace@example.com"))
        let restored = try await client().currentAccount()
        #expect(restored?.account.username == "grace@example.com")
        let v1 = try await harness.makeClient().currentAccount()
        #expect(v1?.account.username == "grace@example.com")
    }

    @Test func descriptionsShowNoTokenNorLink() async throws {
        let state = try await codeState(client())
        let text = "\(state)" + String(describing: Mirror(reflecting: state).children.map(\.value))
        #expect(!text.contains("/api/"))
        #expect(!text.contains(try harness.code(for: "grace@example.com")))
        for secret in harness.secretsSeen() { #expect(!text.contains(secret)) }
        for record in harness.logger.records {
            for secret in harness.secretsSeen() { #expect(!"\(record)".contains(secret)) }
        }
    }

    @Test func theDefaultIsStillV1() async throws {
        #expect(harness.client.configuration.protocolVersion == .v1)
        _ = try await harness.client.signIn(SignInParameters(username: "grace@example.com"))
        #expect(paths.first == "POST /contoso.onmicrosoft.com/oauth2/v2.0/initiate")
        #expect(!paths.contains { $0.contains("authorize-challenge") })
    }
}
