import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// What a V2 server written apart from this SDK answered, and the SDK read wrong: each answer
/// shape taught to the emulator, and the SDK driven through its public API over loopback HTTP
/// (Docs/NativeAuthV2.md, "Using V2").
@Suite("V2 as the server means it, over HTTP", .hangLimit)
struct ServerDrivenV2Tests {
    /// A response rewritten on its way to the SDK: a server that answers as the emulator does but
    /// for the bytes `rewrite` changes.
    final class RewritingTransport: HTTPTransport {
        let inner: any HTTPTransport
        let rewrite: @Sendable (String) -> String

        init(_ inner: any HTTPTransport, rewrite: @escaping @Sendable (String) -> String) {
            self.inner = inner
            self.rewrite = rewrite
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let response = try await inner.send(request)
            let body = Data(rewrite(String(decoding: response.body, as: UTF8.self)).utf8)
            return HTTPResponse(statusCode: response.statusCode, headers: response.headers, body: body)
        }
    }

    /// Runs `body` with a V2 client of `harness`' tenant served over loopback HTTP, then stops the
    /// server, whatever `body` threw.
    func overHTTP<T: Sendable>(
        _ harness: EmulatorHarness, rewrite: (@Sendable (String) -> String)? = nil,
        _ body: (NativeAuthClient) async throws -> T
    ) async throws -> T {
        let server = try EmulatorServer(tenant: harness.tenant)
        server.start()
        var configuration = try NativeAuthConfiguration(clientId: harness.tenant.clientId, authority: server.authority)
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.logger = harness.logger
        configuration.protocolVersion = .v2
        let transport: any HTTPTransport = URLSessionTransport(timeout: TestBounds.requestDeadline)
        let client = NativeAuthClient(
            configuration: configuration,
            transport: rewrite.map { RewritingTransport(transport, rewrite: $0) } ?? transport,
            credentialStore: InMemoryCredentialStore())
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body(client))
        } catch {
            outcome = .failure(error)
        }
        await server.stop()
        return try outcome.get()
    }

    var lin: String { "lin@example.com" }

    func paths(_ harness: EmulatorHarness) -> [String] { harness.tenant.receivedRequests.map(\.url.path) }

    // 1. A password asked for before the code: the sign-up password state, then the code.
    @Test func aPasswordAskedForBeforeTheCodeIsThePasswordStateThenTheCode() async throws {
        let harness = EmulatorHarness()
        harness.tenant.configure { $0.nativeAuthV2SignUpPasswordBeforeCode = true }
        let username = try await overHTTP(harness) { client in
            guard case .passwordRequired(let password) = try await client.signUp(SignUpParameters(username: lin)) else {
                throw TestFailure("expected the password state from the start")
            }
            #expect(harness.tenant.outbox.isEmpty, "no code before the password")
            guard
                case .codeRequired(let code, _, .email, _) = try await password.submitPassword(EmulatorHarness.password)
            else { throw TestFailure("expected the code after the password") }
            guard case .completed(let created) = try await code.submitCode(harness.code(for: lin)) else {
                throw TestFailure("expected the user created")
            }
            guard case .completed(let account) = try await created.signIn() else {
                throw TestFailure("expected signed in")
            }
            return account.account.username
        }
        #expect(username == lin)
        // The password went with the second submitAttributes, alone.
        let submits = harness.tenant.receivedRequests.filter { $0.url.path.hasSuffix("/signup/submitattributes") }
        #expect(submits.count == 2)
        let lastBody = String(decoding: submits.last?.body ?? Data(), as: UTF8.self)
        #expect(lastBody.contains("\"password\""))
    }

    // The same server through sign-up-or-sign-in: a new user gets the sign-up password state,
    // where the one code screen of sign-up-or-sign-in cannot come first.
    @Test func signUpOrSignInGivesANewUserThePasswordStateWhenItComesFirst() async throws {
        let harness = EmulatorHarness()
        harness.tenant.configure { $0.nativeAuthV2SignUpPasswordBeforeCode = true }
        let username = try await overHTTP(harness) { client in
            let start = try await client.signUpOrSignIn(SignUpOrSignInParameters(username: lin))
            guard case .newUserPasswordRequired(let password) = start else {
                throw TestFailure("expected the new user's password state, got \(start)")
            }
            #expect(harness.tenant.outbox.isEmpty, "no code before the password")
            guard case .codeRequired(let code, _, _, _) = try await password.submitPassword(EmulatorHarness.password)
            else { throw TestFailure("expected the code after the password") }
            guard case .completed(let created) = try await code.submitCode(harness.code(for: lin)) else {
                throw TestFailure("expected the user created")
            }
            guard case .completed(let account) = try await created.signIn() else {
                throw TestFailure("expected signed in")
            }
            return account.account.username
        }
        #expect(username == lin)
    }

    // The same server, with the password given up front: the code at once, as over V1.
    @Test func aPasswordGivenUpFrontGoesStraightToTheCode() async throws {
        let harness = EmulatorHarness()
        harness.tenant.configure { $0.nativeAuthV2SignUpPasswordBeforeCode = true }
        try await overHTTP(harness) { client in
            let start = try await client.signUp(SignUpParameters(username: lin, password: EmulatorHarness.password))
            guard case .codeRequired = start else { throw TestFailure("expected the code") }
        }
    }

    // 3. An attribute submitted already and asked for again ends the flow, typed.
    @Test func anAttributeAskedForAgainEndsTheSignUp() async throws {
        let harness = EmulatorHarness()
        harness.tenant.configure { $0.nativeAuthV2SignUpAsksAgain = true }
        let thrown = try await overHTTP(harness) { client -> SignUpStartError? in
            do throws(SignUpStartError) {
                _ = try await client.signUp(SignUpParameters(username: lin, password: EmulatorHarness.password))
                return nil
            } catch { return error }
        }
        let failure = try #require(thrown)
        #expect(failure.isUnexpectedResponse)
        #expect(!failure.isAttributesRequired, "not a list of attributes to collect")
        #expect(failure.description.contains("email"))
        #expect(paths(harness).filter { $0.hasSuffix("/signup/submitattributes") }.count == 1, "nothing more is sent")
        #expect(harness.tenant.outbox.isEmpty)
    }

    // 2. A challenge without its factor: a typed error, and nothing is sent for it.
    @Test func aChallengeWithoutItsFactorEndsTheSignInBeforeAnythingIsSentForIt() async throws {
        let harness = EmulatorHarness()
        harness.tenant.configure { $0.nativeAuthV2ChallengeWithoutFactor = true }
        let thrown = try await overHTTP(harness) { client -> SignInStartError? in
            do throws(SignInStartError) {
                _ = try await client.signIn(SignInParameters(username: "grace@example.com"))
                return nil
            } catch { return error }
        }
        let failure = try #require(thrown)
        #expect(failure.isUnexpectedResponse)
        #expect(harness.tenant.outbox.isEmpty, "no code was sent on a guess")
        #expect(paths(harness).count == 2, "authorize-challenge and signin/start only: \(paths(harness))")
    }

    // 2. A factor the SDK does not know: the same, for a first factor (a user with a code) and for
    // a second factor (after the password), the other factor's answers left as they are.
    @Test(arguments: [("grace@example.com", "singleFactor"), ("alan@example.com", "multiFactor")])
    func anUnknownFactorEndsTheSignInBeforeAnythingIsSentForIt(username: String, factor: String) async throws {
        let harness = EmulatorHarness()
        let thrown = try await overHTTP(
            harness, rewrite: { $0.replacingOccurrences(of: "\"\(factor)\"", with: "\"\(factor)OfSomeKind\"") }
        ) { client -> SignInStartError? in
            do throws(SignInStartError) {
                _ = try await client.signIn(SignInParameters(username: username, password: EmulatorHarness.password))
                return nil
            } catch { return error }
        }
        let failure = try #require(thrown)
        #expect(failure.isUnexpectedResponse)
        #expect(failure.description.contains("OfSomeKind"), "the error names the factor it could not read")
        #expect(harness.tenant.outbox.isEmpty, "no code was sent on a guess")
        if factor == "singleFactor" {
            #expect(paths(harness).count == 2, "authorize-challenge and signin/start only: \(paths(harness))")
        } else {
            // The password was verified; the second factor's answer was the last one read.
            #expect(paths(harness).last?.hasSuffix("/verify") == true, "\(paths(harness))")
            #expect(!paths(harness).contains { $0.contains("/alan-email/") }, "no second-factor method followed")
        }
    }

    // 6. The code of a resume answer under the draft's key.
    @Test func theResumeAnswersCodeUnderTheDraftsKeyIsRead() async throws {
        let harness = EmulatorHarness()
        harness.tenant.configure { $0.nativeAuthV2DraftCodeName = true }
        let username = try await overHTTP(harness) { client in
            let start = try await client.signIn(
                SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
            guard case .completed(let account) = start else { throw TestFailure("expected signed in") }
            return account.account.username
        }
        #expect(username == "ada@example.com")
    }

    // 6. Under a loopback http authority, an href's path is followed as it is.
    @Test func aLoopbackAuthorityFollowsTheHrefsPathUnchanged() async throws {
        let harness = EmulatorHarness()
        _ = try await overHTTP(harness) { client in
            try await client.signIn(SignInParameters(username: "ada@example.com", password: EmulatorHarness.password))
        }
        let links = paths(harness).filter { $0.contains("/api/v2.0/") }
        #expect(!links.isEmpty)
        #expect(
            links.allSatisfy { $0.hasPrefix("/\(harness.tenant.tenantId)/api/v2.0/") },
            "the hrefs' own tenant segment, not the authority's path: \(links)")
    }
}
