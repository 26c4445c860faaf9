import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// An app in another process than the tenant (a UI test, a simulator) turns on what the
/// in-process emulator's settings turn on, through the server's control API: pushed
/// authorization requests and DPoP, then a web sign-in over HTTP that uses both.
@Suite("The emulator server's settings over its control API", .hangLimit)
struct ServedSettingsTests {
    static let redirect = URL(string: "msauth.com.example.app://auth")!

    /// `PATCH` (or `GET`) of `{control}/settings`; the status and the JSON object answered.
    static func settings(
        _ server: EmulatorServer, _ transport: any HTTPTransport, patch body: String? = nil
    ) async throws -> (status: Int, object: [String: Any]) {
        let url = server.controlURL.appendingPathComponent("settings")
        let request = HTTPRequest(
            method: body == nil ? "GET" : "PATCH", url: url, headers: ["Content-Type": "application/json"],
            body: body.map { Data($0.utf8) })
        let response = try await transport.send(request)
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:]
        return (response.statusCode, object)
    }

    @Test func patchingTheSettingsTurnsOnPARAndDPoPForAWebSignInOverHTTP() async throws {
        let harness = EmulatorHarness()
        let server = try EmulatorServer(tenant: harness.tenant)
        server.start()
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)
        let outcome: Result<Void, any Error>
        do {
            let changed = try await Self.settings(
                server, transport, patch: #"{"pushedAuthorizationRequests":"required","dpop":"required"}"#)
            #expect(changed.status == 200)
            #expect(changed.object["pushedAuthorizationRequests"] as? String == "required")
            #expect(changed.object["dpop"] as? String == "required")
            #expect(changed.object["codeLength"] as? Int == 8, "the answer lists every setting")

            // A refused change names the setting, and changes nothing, not even its valid members.
            let refused = try await Self.settings(
                server, transport, patch: #"{"dpopNonces":true,"dpop":"always"}"#)
            #expect(refused.status == 400)
            #expect((refused.object["message"] as? String)?.contains("dpop") == true, "\(refused.object)")
            #expect(harness.tenant.settings.dpopNonces == false)
            let read = try await Self.settings(server, transport)
            #expect(read.object["dpop"] as? String == "required" && read.object["dpopNonces"] as? Bool == false)

            var configuration = WebAuthConfiguration()
            configuration.requestTimeout = TestBounds.requestDeadline
            configuration.clock = harness.clock  // over HTTP, no transport gives the tenant's time
            configuration.dpop = DPoPConfiguration(keyProvider: FixtureKeyProvider())
            let client = try WebAuthClient(
                issuer: try #require(URL(string: server.authority.absoluteString + "/v2.0")),
                clientId: harness.tenant.clientId, redirectURI: Self.redirect, transport: transport,
                credentialStore: InMemoryCredentialStore(), configuration: configuration)
            let account = try await client.signIn(
                WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com"),
                using: EmulatorServerBrowser(password: EmulatorHarness.password, transport: transport))
            #expect(account.account.username == "ada@example.com")
            let paths = harness.tenant.receivedRequests.map(\.url.path)
            #expect(paths.contains { $0.hasSuffix("/oauth2/v2.0/par") })
            let token = try #require(harness.tenant.receivedRequests.last { $0.url.path.hasSuffix("/token") })
            #expect(token.header("DPoP") != nil, "the token request carried a proof")
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await server.stop()
        try outcome.get()
    }

    @Test func everySettingGETListsCanBePATCHedBackUnchanged() async throws {
        let harness = EmulatorHarness()
        harness.tenant.configure {
            $0.requiredSignUpAttributes = [EmulatedRequiredAttribute(name: "country", regex: "^[A-Z]{2}$")]
            $0.bannedPasswords = ["password1"]
            $0.redirectURIs = ["app:/cb"]
        }
        let before = harness.tenant.settings
        let server = try EmulatorServer(tenant: harness.tenant)
        server.start()
        let transport = URLSessionTransport(timeout: TestBounds.requestDeadline)
        let outcome: Result<Void, any Error>
        do {
            let read = try await Self.settings(server, transport)
            let text = String(decoding: try JSONSerialization.data(withJSONObject: read.object), as: UTF8.self)
            let written = try await Self.settings(server, transport, patch: text)
            #expect(written.status == 200, "\(written.object)")
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        await server.stop()
        try outcome.get()
        #expect(harness.tenant.settings == before)
    }
}
