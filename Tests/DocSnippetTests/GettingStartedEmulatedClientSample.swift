// snippet: getting-started-emulated-client
import Foundation
import NativeAuth
import NativeAuthEmulator
import Testing

/// Fails a test with the outcome that came instead of the expected one.
struct UnexpectedOutcome: Error, CustomStringConvertible {
    let description: String
}

/// A client wired to a fresh emulated tenant, with time under the test's control.
func makeClient(
    capabilities: Set<Capability> = []
) throws -> (client: NativeAuthClient, tenant: EmulatedTenant, clock: ManualClock) {
    let clock = ManualClock()
    let tenant = EmulatedTenant(
        tenantSubdomain: "contoso", clientId: "emulator-client-id",
        clock: clock, random: SeededRandomSource(seed: 1))
    tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
    tenant.addUser(EmulatedUser(username: "grace@example.com", password: nil))  // passwordless
    var configuration = try NativeAuthConfiguration(
        clientId: tenant.clientId, authority: tenant.authority, capabilities: capabilities)
    configuration.clock = clock
    let client = NativeAuthClient(
        configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
    return (client, tenant, clock)
}
// snippet: end
