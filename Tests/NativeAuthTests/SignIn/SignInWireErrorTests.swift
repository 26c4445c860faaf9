import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// Every error and quirk of the sign-in endpoints becomes the right typed error.
@Suite("Sign-in: server answers decode to the right outcome", .hangLimit)
struct SignInWireErrorTests {
    func client(_ transport: ScriptedTransport, capabilities: Set<Capability> = []) -> NativeAuthClient {
        NativeAuthClient(
            configuration: testConfiguration(capabilities: capabilities), transport: transport,
            credentialStore: InMemoryCredentialStore())
    }

    func startError(_ script: [(String, ScriptedTransport.Answer)], password: String? = nil) async -> SignInStartError?
    {
        let transport = ScriptedTransport(script)
        do {
            _ = try await client(transport).signIn(SignInParameters(username: "ada@example.com", password: password))
            return nil
        } catch {
            #expect(transport.remaining == 0)
            return error
        }
    }

    @Test func userNotFound() async throws {
        let error = try #require(await startError([("initiate", .error("user_not_found", codes: [50034]))]))
        #expect(error.isUserNotFound)
        #expect(error.serverError == "user_not_found")
        #expect(error.errorCodes == [50034])
        #expect(!error.isBrowserRequired)
    }

    @Test func invalidUsername() async throws {
        let error = try #require(
            await startError([
                (
                    "initiate",
                    .error("invalid_request", codes: [90100], description: "username parameter is empty or not valid.")
                )
            ]))
        #expect(error.isInvalidUsername)
    }

    @Test(arguments: [
        ("invalid_client", Optional("nativeauthapi_disabled"), [Int]()),
        ("unauthorized_client", nil, [700016]),
        ("invalid_request", nil, [550022]),
        ("invalid_client", nil, []),
    ])
    func configurationErrors(error: String, suberror: String?, codes: [Int]) async throws {
        let failure = try #require(await startError([("initiate", .error(error, suberror: suberror, codes: codes))]))
        #expect(failure.isConfigurationError)
        #expect(failure.serverError == error)
        #expect(failure.serverSuberror == suberror)
        #expect(!failure.isUserNotFound)
    }

    @Test(arguments: ["initiate", "challenge"])
    func redirectKeepsReason(at step: String) async throws {
        var script: [(String, ScriptedTransport.Answer)] = []
        if step == "challenge" { script.append(("initiate", .token("ct1"))) }
        script.append((step, .redirect("MFA needs a browser")))
        let error = try #require(await startError(script))
        #expect(error.isBrowserRequired)
        #expect(error.redirectReason == "MFA needs a browser")
    }

    @Test func redirectFromTokenEndpoint() async throws {
        let error = try #require(
            await startError(
                [("initiate", .token("ct1")), ("challenge", .password("ct2")), ("token", .redirect())],
                password: "pw"))
        #expect(error.isBrowserRequired)
    }

    @Test func invalidCredentialsAtStart() async throws {
        let error = try #require(
            await startError(
                [
                    ("initiate", .token("ct1")), ("challenge", .password("ct2")),
                    ("token", .error("invalid_grant", codes: [50126])),
                ], password: "wrong"))
        #expect(error.isInvalidCredentials)
    }

    @Test func expiredToken() async throws {
        let error = try #require(
            await startError([("initiate", .token("ct1")), ("challenge", .error("expired_token", codes: [552003]))]))
        #expect(error.isFlowExpired)
    }

    @Test(arguments: ["unsupported_challenge_type", "invalid_scope", "server_error", "some_future_error"])
    func generalErrorsKeepRawValues(error: String) async throws {
        let failure = try #require(
            await startError([("initiate", .error(error, suberror: "future_sub", codes: [12345]))]))
        #expect(failure.serverError == error)
        #expect(failure.serverSuberror == "future_sub")
        #expect(failure.errorCodes == [12345])
        #expect(failure.serverErrorDescription == "AADSTS12345: test.")
        #expect(!failure.isUserNotFound && !failure.isConfigurationError && !failure.isBrowserRequired)
    }

    @Test func descriptionOrCodeDisagree_trustErrorThenSuberrorThenCodes() async throws {
        // A description that says "user not found" while the error says invalid_grant + 50126.
        let transport = ScriptedTransport([
            ("initiate", .token("ct1")), ("challenge", .password("ct2")),
            (
                "token",
                .json(
                    400,
                    "{\"error\":\"invalid_grant\",\"error_description\":\"AADSTS50034: user not found\",\"error_codes\":[50126]}"
                )
            ),
        ])
        do {
            _ = try await client(transport).signIn(SignInParameters(username: "u", password: "p"))
            Issue.record("expected an error")
        } catch {
            #expect(error.isInvalidCredentials)
            #expect(!error.isUserNotFound)
        }
    }

    @Test(arguments: [
        (200, Optional("text/html"), "<html><body>Service unavailable</body></html>"),
        (200, "application/json", ""),
        (200, "application/json", "{\"continuation_token\":\"ab"),
        (200, "application/json", "[1,2]"),
        (200, "application/json", "{}"),
        (500, "application/json", "{\"error\":\"server_error\"}"),
        (503, "text/html", "<html>down</html>"),
        (302, nil, ""),
        (400, "text/plain", "Bad Request"),
        (400, "application/json", "{\"message\":\"no error field\"}"),
        (404, "application/json", ""),
        (100, nil, ""),
    ])
    func nonAPIAnswersAreTypedUnexpectedResponses(status: Int, contentType: String?, body: String) async throws {
        // A 503 means "not processed": the SDK retries it once, so the server answers twice.
        let answers = Array(
            repeating: ("initiate", ScriptedTransport.Answer.raw(status, contentType: contentType, body)),
            count: status == 503 ? 2 : 1)
        let error = try #require(await startError(answers))
        #expect(error.isUnexpectedResponse)
        #expect(error.details.httpStatusCode == status)
        #expect(error.details.contentType == contentType)
        #expect(error.description.contains("status \(status)"))
    }

    @Test func networkFailureIsTyped() async throws {
        let error = try #require(await startError([("initiate", .failure(.networkConnectionLost))]))
        #expect(error.isNetworkError)
        #expect((error.details.underlyingError as? URLError)?.code == .networkConnectionLost)
    }

    @Test func timeoutIsNetworkError() async throws {
        let error = try #require(await startError([("initiate", .failure(.timedOut))]))
        #expect(error.isNetworkError)
    }

    @Test func unknownChallengeTypeIsUnexpected() async throws {
        let error = try #require(
            await startError([
                ("initiate", .token("ct1")),
                ("challenge", .json(200, "{\"continuation_token\":\"c\",\"challenge_type\":\"telepathy\"}")),
            ]))
        #expect(error.isUnexpectedResponse)
    }

    @Test func quirksDecode() async throws {
        // Trailing-space key, no interval, no code_length, extra fields, numbers as strings.
        let transport = ScriptedTransport([
            ("initiate", .json(200, "{\"continuation_token\":\"ct1\",\"unknown\":{\"deep\":[1,2,3]}}")),
            (
                "challenge",
                .json(
                    200,
                    "{\"continuation_token\":\"ct2\",\"challenge_type\":\"oob\",\"binding_method\":\"prompt\",\"challenge_channel\":\"email\",\"challenge_target_label \":\"a***e@ex**e.com\",\"extra\":true}"
                )
            ),
        ])
        let result = try await client(transport).signIn(SignInParameters(username: "ada@example.com"))
        guard case .codeRequired(let state, let sentTo, let channel, let codeLength) = result else {
            Issue.record("expected codeRequired")
            return
        }
        #expect(sentTo == "a***e@ex**e.com")
        #expect(channel == .email)
        #expect(codeLength == nil)
        #expect(state.codeLength == nil)
    }

    @Test func errorCodesAsStringsAndSingleNumber() async throws {
        let error = try #require(
            await startError([
                ("initiate", .json(400, "{\"error\":\"user_not_found\",\"error_codes\":[\"50034\"]}"))
            ]))
        #expect(error.errorCodes == [50034])
        let single = try #require(
            await startError([
                (
                    "initiate",
                    .json(
                        400,
                        "{\"error\":\"invalid_request\",\"error_codes\":90100,\"error_description\":\"AADSTS90100: username parameter is empty or not valid.\"}"
                    )
                )
            ]))
        #expect(single.isInvalidUsername)
    }

    @Test func emptyUsernameSendsNothing() async throws {
        let transport = ScriptedTransport()
        await #expect(throws: SignInStartError.self) {
            _ = try await client(transport).signIn(SignInParameters(username: "  "))
        }
        do {
            _ = try await client(transport).signIn(SignInParameters(username: ""))
        } catch {
            #expect(error.isInvalidUsername)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func emptyPasswordSendsNothing() async throws {
        let transport = ScriptedTransport()
        do {
            _ = try await client(transport).signIn(SignInParameters(username: "u", password: ""))
            Issue.record("expected an error")
        } catch {
            #expect(error.isInvalidCredentials)
        }
        #expect(transport.requests.isEmpty)
    }
}
