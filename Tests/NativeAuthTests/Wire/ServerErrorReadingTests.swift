import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// How answers are read, rule by rule, as Microsoft's clients read the same answers: the first
/// error code only, codes under their own `error`, a wrong password only on 50126, 90100 only
/// about the username, no empty forms, bounded bodies and text, no control characters in tokens.
@Suite("Wire: server errors read as the real server means them", .hangLimit)
struct ServerErrorReadingTests {
    let transport = ScriptedTransport()

    func client() -> NativeAuthClient {
        NativeAuthClient(
            configuration: testConfiguration(), transport: transport, credentialStore: InMemoryCredentialStore())
    }

    /// Sign-in with the password up front, answered at `/token` with `answer`.
    func passwordUpFront(_ answer: ScriptedTransport.Answer) async -> SignInStartError? {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", answer)
        do {
            _ = try await client().signIn(SignInParameters(username: "ada@example.com", password: "pw"))
            return nil
        } catch {
            return error
        }
    }

    // MARK: 1. The first error code only, under its own error

    @Test func aCodeSecondInTheListIsNoOutcome() async throws {
        let error = try #require(await passwordUpFront(.error("invalid_grant", codes: [9_999, 50126])))
        #expect(!error.isInvalidCredentials)
        #expect(error.errorCodes == [9_999, 50126])
        let notFound = try #require(await passwordUpFront(.error("invalid_grant", codes: [50126, 50034])))
        #expect(notFound.isInvalidCredentials)
        #expect(!notFound.isUserNotFound)
    }

    /// MSAL's own tests send 9223372036854775807 as an error code: not a representable integer,
    /// still the first code (an unknown one). The code after it is never read as the first.
    @Test(arguments: ["9223372036854775807", "\"9223372036854775807\"", "1.5", "null", "\"x\"", "{}"])
    func anUnrepresentableFirstCodeIsUnknownNotSkipped(first: String) async throws {
        let body = "{\"error\":\"invalid_grant\",\"error_codes\":[\(first),50126]}"
        let error = try #require(await passwordUpFront(.json(400, body)))
        #expect(!error.isInvalidCredentials, "\(first)")
        #expect(error.errorCodes.last == 50126, "the representable codes stay visible")
        let notFound = "{\"error\":\"invalid_grant\",\"error_codes\":[\(first),50034]}"
        #expect(try #require(await passwordUpFront(.json(400, notFound))).isUserNotFound == false)
    }

    @Test func aCodeUnderAnotherErrorIsNoOutcome() async throws {
        transport.then("initiate", .error("invalid_request", codes: [50034]))
        do {
            _ = try await client().signIn(SignInParameters(username: "ada@example.com"))
            Issue.record("expected an error")
        } catch {
            #expect(!error.isUserNotFound)
            #expect(error.serverError == "invalid_request")
        }
        transport.then("resetpassword/v1.0/start", .error("invalid_grant", codes: [500222]))
        do {
            _ = try await client().resetPassword(ResetPasswordParameters(username: "ada@example.com"))
            Issue.record("expected an error")
        } catch {
            #expect(!error.isUserDoesNotHavePassword)
        }
    }

    // MARK: 2. A wrong password is only 50126

    static let passwordCodes: [(Int, String)] = [
        (50053, "locked"), (50057, "disabled"), (50055, "expired"), (50142, "change"), (50133, "change"),
        (50132, "change"), (50076, "stronger"), (50079, "stronger"),
    ]

    @Test(arguments: passwordCodes)
    func passwordStepCodesUpFront(code: Int, meaning: String) async throws {
        let error = try #require(await passwordUpFront(.error("invalid_grant", codes: [code])))
        #expect(!error.isInvalidCredentials)
        #expect(error.isAccountLocked == (meaning == "locked"))
        #expect(error.isAccountDisabled == (meaning == "disabled"))
        #expect(error.isPasswordExpired == (meaning == "expired"))
        #expect(error.isPasswordChangeRequired == (meaning == "change"))
        #expect(error.isStrongAuthenticationRequired == (meaning == "stronger"))
        #expect(!error.isStateStillUsable)
        let text = (error.errorDescription ?? "").lowercased()
        #expect(!text.contains("password is wrong") && !text.contains("again"), "\(text)")
    }

    @Test(arguments: passwordCodes)
    func passwordStepCodesOnTheState(code: Int, meaning: String) async throws {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        guard case .passwordRequired(let state) = try await client().signIn(SignInParameters(username: "a@b.c"))
        else { throw TestFailure("expected password") }
        transport.then("token", .error("invalid_grant", codes: [code]))
        do {
            _ = try await state.submitPassword("pw")
            Issue.record("expected an error")
        } catch {
            #expect(!error.isInvalidPassword)
            #expect(error.isAccountLocked == (meaning == "locked"))
            #expect(error.isAccountDisabled == (meaning == "disabled"))
            #expect(error.isPasswordExpired == (meaning == "expired"))
            #expect(error.isPasswordChangeRequired == (meaning == "change"))
            #expect(error.isStrongAuthenticationRequired == (meaning == "stronger"))
            // A locked account is not retryable: the state is spent and sends nothing more.
            #expect(!error.isStateStillUsable)
        }
        let sent = transport.requests.count
        await #expect(throws: PasswordRequiredError.self) { _ = try await state.submitPassword("pw") }
        #expect(transport.requests.count == sent)
    }

    @Test func wrongPasswordIs50126AndKeepsTheState() async throws {
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        guard case .passwordRequired(let state) = try await client().signIn(SignInParameters(username: "a@b.c"))
        else { throw TestFailure("expected password") }
        transport.then("token", .error("invalid_grant", codes: [50126]))
        do {
            _ = try await state.submitPassword("pw")
        } catch {
            #expect(error.isInvalidPassword)
            #expect(error.isStateStillUsable)
        }
        // An unknown first code is a general error that keeps the raw fields, never a wrong password.
        transport.then("token", .error("invalid_grant", codes: [123_456]))
        do {
            _ = try await state.submitPassword("pw")
        } catch {
            #expect(!error.isInvalidPassword)
            #expect(error.errorCodes == [123_456])
            #expect(error.serverError == "invalid_grant")
        }
    }

    // MARK: 3. 90100 is "invalid username" only about the username

    static let usernameDescription = "username parameter is empty or not valid."
    static let clientIdDescription = "client_id parameter is empty or not valid."

    @Test func code90100AboutTheUsernameOrTheClientId() async throws {
        transport.then("initiate", .error("invalid_request", codes: [90100], description: Self.usernameDescription))
        transport.then("initiate", .error("invalid_request", codes: [90100], description: Self.clientIdDescription))
        transport.then("initiate", .error("invalid_request", codes: [90100], description: "scope is not valid."))
        var errors: [SignInStartError] = []
        for _ in 0..<3 {
            do {
                _ = try await client().signIn(SignInParameters(username: "ada@example.com"))
            } catch {
                errors.append(error)
            }
        }
        try #require(errors.count == 3)
        #expect(errors[0].isInvalidUsername && !errors[0].isConfigurationError)
        #expect(errors[1].isConfigurationError && !errors[1].isInvalidUsername)
        #expect(!errors[2].isConfigurationError && !errors[2].isInvalidUsername)
    }

    @Test func code90100InSignUpAndReset() async throws {
        transport.then(
            "signup/v1.0/start", .error("invalid_request", codes: [90100], description: Self.usernameDescription))
        transport.then(
            "signup/v1.0/start", .error("invalid_request", codes: [90100], description: Self.clientIdDescription))
        for expectUsername in [true, false] {
            do {
                _ = try await client().signUp(SignUpParameters(username: "ada@example.com"))
            } catch {
                #expect(error.isInvalidUsername == expectUsername)
                #expect(error.isConfigurationError == !expectUsername)
            }
        }
        transport.then(
            "resetpassword/v1.0/start", .error("invalid_request", codes: [90100], description: Self.usernameDescription)
        )
        transport.then(
            "resetpassword/v1.0/start", .error("invalid_request", codes: [90100], description: Self.clientIdDescription)
        )
        for expectUsername in [true, false] {
            do {
                _ = try await client().resetPassword(ResetPasswordParameters(username: "ada@example.com"))
            } catch {
                #expect(error.isInvalidUsername == expectUsername)
                #expect(error.isConfigurationError == !expectUsername)
            }
        }
    }

    // MARK: 4. Empty lists are not forms

    @Test func emptyAttributeListsAreUnexpected() async throws {
        transport.then(
            "signup/v1.0/start",
            .error("invalid_grant", suberror: "attribute_validation_failed", extra: "\"invalid_attributes\":[]"))
        do {
            _ = try await client().signUp(SignUpParameters(username: "ada@example.com"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isUnexpectedResponse)
            #expect(error.isStateStillUsable)
        }
        transport.then("signup/v1.0/start", .token("ct1"))
        transport.then("signup/v1.0/challenge", .oob("ct2"))
        guard case .codeRequired(let state, _, _, _) = try await client().signUp(SignUpParameters(username: "a@b.c"))
        else { throw TestFailure("expected code") }
        transport.then(
            "signup/v1.0/continue",
            .error("attributes_required", codes: [55106], token: "ct3", extra: "\"required_attributes\":[]"))
        do {
            _ = try await state.submitCode("1")
            Issue.record("expected an error")
        } catch {
            #expect(error.isUnexpectedResponse)
            // Nothing moved: the same code may be sent again.
            #expect(error.isStateStillUsable)
        }
    }

    // MARK: 12. Bounded answers

    @Test func bodiesOverOneMebibyteAreRefusedUnread() async throws {
        let huge = "{\"continuation_token\":\"" + String(repeating: "a", count: 1 << 20) + "\"}"
        transport.then("initiate", .json(200, huge))
        do {
            _ = try await client().signIn(SignInParameters(username: "ada@example.com"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isUnexpectedResponse)
            #expect(error.description.contains("larger than"))
        }
    }

    @Test func serverTextIsCapped() async throws {
        let long = String(repeating: "x", count: 20_000)
        transport.then("initiate", .error("invalid_request_" + long, codes: [1], description: long))
        do {
            _ = try await client().signIn(SignInParameters(username: "ada@example.com"))
            Issue.record("expected an error")
        } catch {
            #expect((error.serverError ?? "").count <= 401)
            #expect((error.serverErrorDescription ?? "").count <= 401)
            #expect(error.debugDescription.count < 2_000)
        }
        transport.then("initiate", .redirect(String(repeating: "r", count: 10_000)))
        do {
            _ = try await client().signIn(SignInParameters(username: "ada@example.com"))
        } catch {
            #expect(error.isBrowserRequired)
            #expect((error.redirectReason ?? "").count <= 401)
        }
    }

    // MARK: 13. Tokens that could inject headers

    @Test(arguments: ["access\r\nX-Injected: 1", "access\ttab", "access\u{7F}"])
    func controlCharactersInTokensAreRefused(access: String) async throws {
        let escaped = access.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\u{7F}", with: "\\u007f")
        let body =
            "{\"token_type\":\"Bearer\",\"scope\":\"openid\",\"expires_in\":3600,\"access_token\":\"\(escaped)\",\"id_token\":\"\(TestTokens.idToken())\"}"
        let store = InMemoryCredentialStore()
        let client = NativeAuthClient(configuration: testConfiguration(), transport: transport, credentialStore: store)
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", .json(200, body))
        do {
            _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "pw"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isUnexpectedResponse)
        }
        #expect(try await client.currentAccount() == nil)
    }

    // MARK: 14. Absurd settings and lifetimes

    @Test func absurdSettingsAreRefused() {
        var configuration = testConfiguration()
        configuration.requestTimeout = nil  // the SDK's default, which absurd values must keep
        for value in [TimeInterval.nan, .infinity, -1, 1e12] {
            configuration.tokenRefreshMargin = value
            configuration.maximumRetryWait = value
            configuration.requestTimeout = value
        }
        #expect(configuration.tokenRefreshMargin == 300)
        #expect(configuration.maximumRetryWait == 10)
        #expect(configuration.requestTimeout == nil)
        configuration.tokenRefreshMargin = 60
        configuration.requestTimeout = 5
        #expect(configuration.tokenRefreshMargin == 60)
        #expect(configuration.requestTimeout == 5)
    }

    @Test func lifetimesBeyondAYearAreClamped() async throws {
        let client = client()
        transport.then("initiate", .token("ct1"))
        transport.then("challenge", .password("ct2"))
        transport.then("token", .tokens(expiresIn: 10 * 365 * 86_400))
        guard case .completed(let account) = try await client.signIn(SignInParameters(username: "a@b.c", password: "p"))
        else { throw TestFailure("expected completed") }
        let token = try await account.getAccessToken()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(token.expiresOn.timeIntervalSince(now) <= 365 * 86_400 + 1)
    }
}
