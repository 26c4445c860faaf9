// The samples of Docs/Emulator.md, and the tests that run them.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@Suite(.hangLimit)
struct EmulatorSnippetTests {
    @Test func signsInOnTheTenantInProcess() async throws {
        // snippet: emulator-in-process
        let clock = ManualClock()
        let tenant = EmulatedTenant(clock: clock, random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
        var configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        configuration.clock = clock
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        // snippet: end

        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed = start else {
            throw UnexpectedSampleOutcome(description: "\(start)")
        }
    }

    @Test func servesTheTenantOverHTTP() async throws {
        let console = Console()
        // The formatter leaves this alone: the sample's comments stay aligned.
        // swift-format-ignore
        try await Console.$current.withValue(console) {
            // snippet: emulator-server
            let tenant = EmulatedTenant(clock: ManualClock())
            tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
            let server = try EmulatorServer(tenant: tenant)  // binds 127.0.0.1 on a free port
            server.start()
            print(server.authority)   // http://127.0.0.1:PORT/contoso.onmicrosoft.com
            print(server.controlURL)  // http://127.0.0.1:PORT/emulator/v1
            // …
            await server.stop()
            // snippet: end
        }
        #expect(console.output.count == 2)
        #expect(console.output.allSatisfy { $0.hasPrefix("http://127.0.0.1:") })
        #expect(console.printed("/emulator/v1"))
    }

    @Test func turnsOnDPoP() async throws {
        // The formatter leaves this alone: the sample's comments stay aligned.
        // swift-format-ignore
        do {
            // snippet: emulator-dpop
            let tenant = EmulatedTenant(clock: ManualClock())
            tenant.configure {
                $0.dpop = .required        // or .offered; .off is the default
                $0.dpopNonces = true       // demand a server nonce in every proof
                $0.dpopNonceLifetime = 300 // a new nonce every 5 minutes of the tenant's clock
                $0.dpopProofLifetime = 60  // iat at most 60 s from the tenant's time, either way
            }
            // snippet: end
            let discovery = try await tenant.send(
                HTTPRequest(method: "GET", url: tenant.url(for: .openIDConfiguration)))
            #expect(String(decoding: discovery.body, as: UTF8.self).contains("dpop_signing_alg_values_supported"))
        }
    }

    @Test func configuresAnAppForTheServedTenant() throws {
        // snippet: emulator-simulator-configuration
        let configuration = try NativeAuthConfiguration(
            clientId: "emulator-client-id",
            authority: URL(string: "http://127.0.0.1:8080/demo.onmicrosoft.com")!)
        // snippet: end
        #expect(configuration.authority.absoluteString == "http://127.0.0.1:8080/demo.onmicrosoft.com")
    }
}
