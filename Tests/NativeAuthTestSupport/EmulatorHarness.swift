public import Foundation
public import NativeAuth
public import NativeAuthEmulator

/// A client on an emulated tenant with a manual clock, a seeded random source and a logger that
/// records everything.
public struct EmulatorHarness: Sendable {
    public static let password = "Corr3ct-Horse!"

    public let clock = ManualClock()
    public let tenant: EmulatedTenant
    public let logger = InMemoryLogger(minimumLevel: .trace)
    public let store = InMemoryCredentialStore()
    public let client: NativeAuthClient

    public init(
        seed: UInt64 = 1, capabilities: Set<Capability> = [.mfaRequired, .registrationRequired],
        challengeTypes: Set<ChallengeType> = [.oob, .password], users: [EmulatedUser] = EmulatorHarness.defaultUsers
    ) {
        tenant = EmulatedTenant(clock: clock, random: SeededRandomSource(seed: seed))
        users.forEach(tenant.addUser)
        client = Self.client(
            tenant: tenant, clock: clock, logger: logger, store: store, capabilities: capabilities,
            challengeTypes: challengeTypes)
    }

    public func makeClient(
        capabilities: Set<Capability> = [.mfaRequired, .registrationRequired],
        challengeTypes: Set<ChallengeType> = [.oob, .password]
    ) -> NativeAuthClient {
        Self.client(
            tenant: tenant, clock: clock, logger: logger, store: store, capabilities: capabilities,
            challengeTypes: challengeTypes)
    }

    public static func client(
        tenant: EmulatedTenant, clock: ManualClock, logger: InMemoryLogger, store: InMemoryCredentialStore,
        capabilities: Set<Capability>, challengeTypes: Set<ChallengeType>
    ) -> NativeAuthClient {
        var configuration = try? NativeAuthConfiguration(
            clientId: tenant.clientId, authority: tenant.authority, challengeTypes: challengeTypes,
            capabilities: capabilities)
        configuration?.logger = logger
        configuration?.clock = clock
        configuration?.requestTimeout = TestBounds.requestDeadline
        guard let configuration else { preconditionFailure("emulator configuration") }
        return NativeAuthClient(configuration: configuration, transport: tenant, credentialStore: store)
    }

    /// The redirect URI of the tenant's web clients in the tests.
    public static let webRedirect = URL(string: "msauth.com.example.app://auth")!

    /// A web client of the tenant in process, on the longest request deadline, keeping its
    /// credentials in ``store``; `configure` sets the rest of its configuration.
    public func webClient(
        transport: (any HTTPTransport)? = nil, _ configure: (inout WebAuthConfiguration) -> Void = { _ in }
    ) throws -> WebAuthClient {
        var configuration = WebAuthConfiguration()
        configuration.requestTimeout = TestBounds.requestDeadline
        configure(&configuration)
        return try WebAuthClient(
            issuer: tenant.issuer, clientId: tenant.clientId, redirectURI: Self.webRedirect,
            transport: transport ?? tenant, credentialStore: store, configuration: configuration)
    }

    /// A web sign-in of `username` through the emulated browser, with a refresh token.
    public func webSignIn(_ client: WebAuthClient, username: String = "ada@example.com") async throws
        -> UserAccountResult
    {
        try await client.signIn(
            WebSignInParameters(scopes: ["offline_access"], loginHint: username),
            using: EmulatedBrowser(tenant: tenant, password: Self.password))
    }

    public static let defaultUsers: [EmulatedUser] = [
        EmulatedUser(username: "ada@example.com", password: password, attributes: ["displayName": "Ada Lovelace"]),
        EmulatedUser(username: "grace@example.com"),
        EmulatedUser(
            username: "alan@example.com", password: password,
            mfaMethods: [EmulatedAuthMethod(id: "alan-email", channel: "email", address: "alan.backup@example.com")]),
        EmulatedUser(username: "joan@example.com", password: password, requiresMethodRegistration: true),
    ]

    public func code(for address: String) throws -> String {
        guard let code = tenant.lastCode(sentTo: address) else { throw TestFailure("no code sent to \(address)") }
        return code
    }

    /// Every secret the run used: codes sent, passwords, tokens and continuation tokens seen on the wire.
    public func secretsSeen(extra: [String] = []) -> Set<String> {
        var secrets = Set(tenant.outbox.map(\.code) + [Self.password] + extra)
        let keys = [
            "continuation_token", "access_token", "refresh_token", "id_token", "password", "new_password", "oob",
        ]
        for request in tenant.receivedRequests {
            for field in formFields(request) {
                let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2, keys.contains(parts[0]), parts[1].count >= 4 { secrets.insert(parts[1]) }
            }
        }
        return secrets
    }
}
