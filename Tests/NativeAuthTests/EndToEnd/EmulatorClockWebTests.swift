import Foundation
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A web client an app points at an in-process emulated tenant on a `ManualClock` (which starts
/// at 2027-01-15 08:00 UTC), with the configuration's clock left as it is: the client reads the
/// tenant's time from its transport, so a sign-in with PAR and DPoP works on the first try. A
/// client whose clock is far from its provider's is told so in the error.
@Suite("A web client on an in-process emulator keeps the tenant's time", .hangLimit)
struct EmulatorClockWebTests {
    static let redirect = URL(string: "msauth.com.example.app://auth")!
    let harness = EmulatorHarness()

    var tenant: EmulatedTenant { harness.tenant }
    var browser: EmulatedBrowser { EmulatedBrowser(tenant: tenant, password: EmulatorHarness.password) }

    /// A client with the default clock, through `transport`.
    func client(_ transport: any HTTPTransport) throws -> WebAuthClient {
        tenant.configure {
            $0.pushedAuthorizationRequests = .required
            $0.dpop = .required
        }
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.dpop = DPoPConfiguration(keyProvider: FixtureKeyProvider())
        return try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: Self.redirect, transport: transport,
            credentialStore: InMemoryCredentialStore(), configuration: configuration)
    }

    @Test func aSignInWithPARAndDPoPOnTheTenantsClockNeedsNoClockSetting() async throws {
        #expect(abs(tenant.clock.now().timeIntervalSinceNow) > 86_400, "the tenant's time is not today's")
        let client = try client(tenant)
        let account = try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com"), using: browser)
        #expect(account.account.username == "ada@example.com")
        // The cached token expires on the tenant's clock: an hour of it later, a refresh.
        let first = try await account.getAccessToken()
        #expect(first.expiresOn.timeIntervalSince(tenant.clock.now()) > 3_000)
        harness.clock.advance(by: 3_600)
        #expect(try await account.getAccessToken().accessToken != first.accessToken)
    }

    /// The tenant behind a transport that does not say it keeps the tenant's time.
    struct PlainTransport: HTTPTransport {
        let tenant: EmulatedTenant
        func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await tenant.send(request) }
    }

    @Test func aClockFarFromTheProvidersSaysSoInTheError() async throws {
        let client = try client(PlainTransport(tenant: tenant))
        let error = try await #require(throws: WebSignInError.self) {
            try await client.signIn(
                WebSignInParameters(scopes: ["offline_access"], loginHint: "ada@example.com"), using: browser)
        }
        // The tenant refuses the first proof (its iat is years off), the SDK does not believe a Date
        // header that far off, and the error says how far.
        #expect(error.isProofOfPossessionFailed || error.isInvalidIDToken, "\(error)")
        let text = error.errorDescription ?? ""
        #expect(text.contains("The provider's clock (its Date header) is about"), "\(text)")
        #expect(text.contains("days ahead of this client's") || text.contains("days behind this client's"), "\(text)")
    }

    @Test func theNoteNamesTheDifferenceInTheLargestFittingUnit() {
        #expect(WebProvider.clockNote(3 * 86_400).contains("about 3 days ahead of"))
        #expect(WebProvider.clockNote(-5 * 3_600).contains("about 5 hours behind"))
        #expect(WebProvider.clockNote(600).contains("about 10 minutes ahead of"))
    }

    @Test func aClockTheAppSetsIsKept() async throws {
        var configuration = WebAuthConfiguration()
        let appClock = ManualClock(now: Date(timeIntervalSince1970: 1_900_000_000))
        configuration.clock = appClock
        let resolved = ServerTimeClock.resolve(configuration.clock, transport: tenant)
        #expect(resolved.now() == appClock.now())
        #expect(ServerTimeClock.resolve(SystemClock(), transport: tenant).now() == tenant.clock.now())
        #expect(ServerTimeClock.resolve(SystemClock(), transport: PlainTransport(tenant: tenant)) is SystemClock)
    }
}
