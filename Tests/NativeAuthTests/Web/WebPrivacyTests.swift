import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthSupport
@testable import NativeAuth

@Suite("Web sign-in: no verifier, code, state, nonce or token in logs, errors or descriptions", .hangLimit)
struct WebPrivacyTests {
    let clock = TestClock()
    let store = InMemoryCredentialStore()
    let logger = InMemoryLogger(minimumLevel: .trace)

    func client(_ provider: ScriptedOpenIDProvider) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock
        configuration.logger = logger
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider, credentialStore: store,
            configuration: configuration)
    }

    /// Everything a value can be rendered as.
    static func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var texts = [String(describing: value), String(reflecting: value), dumped]
        if let error = value as? any LocalizedError { texts.append(error.errorDescription ?? "") }
        return texts
    }

    @Test func aWholeSessionAtTraceLevel() async throws {
        let idTokens = Locked<[String]>([])
        let provider = ScriptedOpenIDProvider { exchange in
            let token = WebTestSigner.token(claims: ScriptedOpenIDProvider.claims(nonce: exchange.nonce))
            idTokens.withLock { $0.append(token) }
            return ScriptedOpenIDProvider.answer(
                idToken: token, refresh: "web-refresh-secret", access: "web-access-secret")
        }
        let client = try client(provider)
        var texts: [String] = []
        let agent = InstantAgent(provider: provider)
        let account = try await client.signIn(WebSignInParameters(scopes: ["offline_access"]), using: agent)
        texts += Self.renderings(account) + Self.renderings(account.account)
        texts += Self.renderings(try await account.getAccessToken(forceRefresh: true))
        // A callback with another state, and one the user cancelled.
        for agent in [
            InstantAgent(provider: provider, state: "forged-state"), InstantAgent(provider: provider, cancel: true),
        ] {
            do {
                _ = try await client.signIn(WebSignInParameters(), using: agent)
                Issue.record("expected a refusal")
            } catch {
                texts += Self.renderings(error)
            }
        }
        // A refused code.
        provider.tokenAnswer.withLock {
            $0 = { _ in
                HTTPResponse(
                    statusCode: 400, headers: ["Content-Type": "application/json"],
                    body: Data(#"{"error":"invalid_grant"}"#.utf8))
            }
        }
        do {
            _ = try await client.signIn(WebSignInParameters(), using: agent)
            Issue.record("expected a refusal")
        } catch {
            texts += Self.renderings(error)
        }
        await account.signOut()
        texts += logger.records.map(\.description)

        let verifiers = provider.forms(to: "/token").compactMap { form in
            form.split(separator: "&").first { $0.hasPrefix("code_verifier=") }.map { String($0.dropFirst(14)) }
        }
        #expect(verifiers.count == 2)
        let secrets =
            ["the-code", "web-refresh-secret", "web-access-secret"] + verifiers + agent.values("state")
            + agent.values("nonce") + agent.values("code_challenge") + idTokens.current
        #expect(secrets.count >= 10)
        #expect(logger.records.count >= 6, "the session was logged")
        for secret in secrets where !secret.isEmpty {
            let leaks = texts.filter { $0.contains(secret) }.map { String($0.prefix(120)) }
            #expect(leaks.isEmpty, "a secret of \(secret.count) characters was rendered in \(leaks)")
        }
    }

    @Test func requestCallbackAndPKCEDescribeNoSecret() async throws {
        let metadata = ProviderMetadata(
            issuer: "https://idp.example.com", authorizationEndpoint: URL(string: "https://idp.example.com/a")!,
            tokenEndpoint: URL(string: "https://idp.example.com/t")!)
        let request = try AuthorizationRequest(
            metadata: metadata, clientId: "c", redirectURI: URL(string: "com.example.app:/cb")!,
            parameters: WebSignInParameters())
        let callback = try request.callback(
            from: URL(string: "com.example.app:/cb?code=code-secret-42&state=\(FormBody.escape(request.state.reveal))")!
        )
        let all = (Self.renderings(request) + Self.renderings(callback) + Self.renderings(request.pkce))
            .joined(separator: "\n")
        for secret in [
            "code-secret-42", request.state.reveal, request.nonce.reveal, request.pkce.verifier.reveal,
        ] {
            #expect(!all.contains(secret), "a secret of \(secret.count) characters was rendered")
        }
    }
}

/// Records the one outcome of a delegate-form web sign-in.
@MainActor
final class WebSignInRecorder: WebSignInDelegate {
    let latch = Latch<Result<UserAccountResult, WebSignInError>>()
    var offMainThread = false

    nonisolated init() {}

    func onWebSignInCompleted(result: UserAccountResult) {
        if !MainQueueCheck.isOnMainQueue { offMainThread = true }
        latch.fulfill(.success(result))
    }
    func onWebSignInError(error: WebSignInError) {
        if !MainQueueCheck.isOnMainQueue { offMainThread = true }
        latch.fulfill(.failure(error))
    }
}

@Suite("Web sign-in: delegate form", .hangLimit)
struct WebSignInDelegateTests {
    @Test func completesAndFailsOnTheMainActor() async throws {
        let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = TestClock()
        let client = try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
        let done = WebSignInRecorder()
        client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider), delegate: done)
        let account = try await done.latch.require("the delegate's completion").get()
        #expect(account.account.username == "ada@example.com")
        let cancelled = WebSignInRecorder()
        client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider, cancel: true), delegate: cancelled)
        let outcome = try await cancelled.latch.require("the delegate's error")
        guard case .failure(let error) = outcome else {
            Issue.record("expected an error")
            return
        }
        #expect(error.isCancelled)
        let offMain = await MainActor.run { done.offMainThread || cancelled.offMainThread }
        #expect(!offMain, "every delegate call came on the main actor")
    }
}
