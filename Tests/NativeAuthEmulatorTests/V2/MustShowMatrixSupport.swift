import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// Where a journey of the must-show matrix runs: the harness tenant called in process, or the same
/// tenant behind the emulator's HTTP server on 127.0.0.1, reached over real loopback HTTP.
enum MatrixWire: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inProcess = "in process"
    case http = "over HTTP"

    var testDescription: String { rawValue }
}

/// A transport that counts the requests the SDK sends through it.
final class CountingTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let sent = LockedValue(0)

    init(_ inner: any HTTPTransport) { self.inner = inner }

    var count: Int { sent.current }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sent.withLock { $0 += 1 }
        return try await inner.send(request)
    }
}

/// One journey's tenant (the harness' users and a browser-only one), on its wire, with the
/// transport that counts what the SDK sends and the clients and browser of that wire.
struct MatrixBed {
    static let browserUser = "bo@contoso.com"
    static let browserPassword = "Browser-Only-1"
    static let redirectURI = URL(string: "http://127.0.0.1:8765/callback")!

    let wire: MatrixWire
    let harness: Harness
    let server: EmulatorServer?
    let counter: CountingTransport
    /// The tenant's requests before the journey.
    let start: Int

    init(_ wire: MatrixWire, configure: (inout EmulatorSettings) -> Void = { _ in }) throws {
        self.wire = wire
        switch wire {
        case .inProcess:
            harness = Harness(configure: configure)
            server = nil
            counter = CountingTransport(harness.tenant)
        case .http:
            let served = try ServedTenant(configure: configure)
            harness = served.harness
            server = served.server
            counter = CountingTransport(served.transport)
        }
        harness.tenant.addUser(
            EmulatedUser(username: Self.browserUser, password: Self.browserPassword, requiresBrowser: true))
        start = harness.tenant.receivedRequests.count
    }

    var tenant: EmulatedTenant { harness.tenant }

    /// Every request the tenant received during the journey: the SDK's and the browser's.
    var received: Int { tenant.receivedRequests.count - start }

    /// The last code the tenant sent to `address`.
    func code(_ address: String) throws -> String { try #require(tenant.lastCode(sentTo: address)) }

    /// A Native Auth V2 client; `clock` is the harness' unless given (a reset's polls want one
    /// whose sleeps return at once).
    func nativeClient(clock: (any NativeAuthClock)? = nil) throws -> NativeAuthClient {
        var configuration = try NativeAuthConfiguration(
            clientId: tenant.clientId, authority: server?.authority ?? tenant.authority,
            capabilities: [.mfaRequired, .registrationRequired])
        configuration.clock = clock ?? harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        configuration.protocolVersion = .v2
        return NativeAuthClient(
            configuration: configuration, transport: counter, credentialStore: InMemoryCredentialStore())
    }

    /// A web client of the tenant's OpenID provider, for the draft's journeys.
    func webClient() throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.clock = harness.clock
        configuration.requestTimeout = TestBounds.requestDeadline
        let issuer = try server.map { try #require(URL(string: $0.authority.absoluteString + "/v2.0")) }
        return try WebAuthClient(
            issuer: issuer ?? tenant.issuer, clientId: tenant.clientId, redirectURI: Self.redirectURI,
            transport: counter, credentialStore: InMemoryCredentialStore(), configuration: configuration)
    }

    /// The headless browser of the wire, signing the browser-only user in; its requests are not
    /// the SDK's and are not counted as such.
    var browser: any ExternalUserAgent {
        switch server {
        case nil: EmulatedBrowser(tenant: tenant, password: Self.browserPassword)
        case .some: EmulatorServerBrowser(password: Self.browserPassword, transport: counter.inner)
        }
    }

    func stop() async { await server?.stop() }
}

/// The round-trip tables of the docs that the matrix checks: the rows after `marker`, as
/// journey → (in process, over HTTP).
enum MatrixDocs {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // V2
        .deletingLastPathComponent()  // NativeAuthEmulatorTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()
    static let marker = "<!-- round trips: checked by MustShowMatrixTests -->"

    static func table(in page: String) throws -> [String: (inProcess: Int, http: Int)] {
        let text = try String(contentsOf: repository.appendingPathComponent(page), encoding: .utf8)
        let after = try #require(text.range(of: marker).map { text[$0.upperBound...] }, "\(page) has no marker")
        var rows: [String: (Int, Int)] = [:]
        var started = false
        for line in after.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty, !started { continue }
            guard trimmed.hasPrefix("|") else { break }
            started = true
            let cells = trimmed.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 3, let inProcess = Int(cells[1]), let http = Int(cells[2]) else { continue }
            rows[cells[0]] = (inProcess, http)
        }
        return rows
    }
}
