// The samples of Docs/EmulatorServer.md, and the tests that run them.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite(.hangLimit)
struct EmulatorServerSnippetTests {
    @Test func aBrowserOnlyUserSignsInWithTheHeadlessBrowser() async throws {
        // snippet: emulator-server-browser
        let clock = ManualClock()
        let tenant = EmulatedTenant(clock: clock)
        tenant.addUser(EmulatedUser(username: "bo@example.com", password: "Browser-Only-1", requiresBrowser: true))
        let server = try EmulatorServer(tenant: tenant)
        server.start()
        var configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: server.authority)
        configuration.clock = clock
        let client = NativeAuthClient(
            configuration: configuration, transport: URLSessionTransport(), credentialStore: InMemoryCredentialStore())

        let error = try await #require(throws: SignInStartError.self) {
            try await client.signIn(SignInParameters(username: "bo@example.com"))
        }
        #expect(error.isBrowserRequired)
        let account = try await error.continueInBrowser(
            redirectURI: URL(string: "http://127.0.0.1:8765/callback")!,
            using: EmulatorServerBrowser(password: "Browser-Only-1"))
        #expect(account.account.username == "bo@example.com")
        await server.stop()
        // snippet: end
    }
}
