import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The person's confirmation through every door to a refresh: the web client, the session model
/// and the delegate form all ask, and all report a refusal as the async form does.
@Suite("Account: the person's confirmation in every client", .hangLimit)
struct UserPresenceClientsTests {
    let clock = TestClock()
    let checker = ScriptedPresenceChecker()

    func webClient(_ provider: ScriptedOpenIDProvider, policy: UserPresencePolicy) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.clock = clock
        configuration.userPresence = UserPresenceRequirement(policy: policy, reason: "Unlock", checker: checker)
        return try WebAuthClient(
            issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
            redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
    }

    @Test func theWebClientAsksBeforeARefreshAndKeepsTheAccountOnARefusal() async throws {
        let provider = ScriptedOpenIDProvider(tokenAnswer: ScriptedOpenIDProvider.signingIn())
        let client = try webClient(provider, policy: .session(timeout: 300))
        let account = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
        #expect(try await account.getAccessToken().accessToken == "web-access-1")
        #expect(checker.calls == 0, "a sign-in and a cached token ask nothing")
        let exchanges = provider.count("/token")
        checker.then(.refused(.cancelled))
        let error = await #expect(throws: RetrieveAccessTokenError.self) {
            try await account.getAccessToken(forceRefresh: true)
        }
        #expect(error?.isUserPresenceCancelled == true)
        #expect(provider.count("/token") == exchanges, "nothing is sent")
        #expect(try await client.currentAccount() != nil)
        _ = try await account.getAccessToken(forceRefresh: true)
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(checker.calls == 2)
        #expect(provider.count("/token") == exchanges + 2)
        client.resetUserPresence()
        _ = try await account.getAccessToken(forceRefresh: true)
        #expect(checker.calls == 3)
    }

    @Test @MainActor
    func theSessionModelReportsARefusalAndKeepsTheAccount() async throws {
        let transport = ScriptedTransport()
        var configuration = testConfiguration()
        configuration.clock = clock
        configuration.userPresence = UserPresenceRequirement(policy: .always, reason: "Unlock", checker: checker)
        let client = NativeAuthClient(
            configuration: configuration, transport: transport, credentialStore: InMemoryCredentialStore())
        _ = try await transport.signIn(client)
        let session = AuthSession(client: client)
        await session.restore()
        checker.then(.refused(.notEnrolled))
        let error = await #expect(throws: RetrieveAccessTokenError.self) {
            try await session.accessToken(forceRefresh: true)
        }
        #expect(error?.isUserPresenceNotEnrolled == true)
        #expect(session.isSignedIn)
        transport.then("token", .tokens(access: "access-2", refresh: "refresh-2"))
        #expect(try await session.accessToken(forceRefresh: true).accessToken == "access-2")
    }

    @MainActor
    final class Recorder: CredentialsDelegate {
        let done = Latch<RetrieveAccessTokenError?>()
        func onAccessTokenRetrieveCompleted(result: TokenResult) { done.fulfill(nil) }
        func onAccessTokenRetrieveError(error: RetrieveAccessTokenError) { done.fulfill(error) }
    }

    @Test @MainActor
    func theDelegateFormReportsARefusal() async throws {
        let transport = ScriptedTransport()
        var configuration = testConfiguration()
        configuration.clock = clock
        configuration.userPresence = UserPresenceRequirement(policy: .always, reason: "Unlock", checker: checker)
        let client = NativeAuthClient(
            configuration: configuration, transport: transport, credentialStore: InMemoryCredentialStore())
        let account = try await transport.signIn(client)
        checker.then(.refused(.failed))
        let recorder = Recorder()
        account.getAccessToken(forceRefresh: true, delegate: recorder)
        let error = try await recorder.done.require("the delegate's answer")
        #expect(error?.isUserPresenceFailed == true)
    }
}
