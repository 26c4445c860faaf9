import Foundation

/// The entry point of the SDK: starts sign-in (and the other flows) and restores the signed-in account.
///
/// ```swift
/// let client = NativeAuthClient(configuration: try NativeAuthConfiguration(clientId: id, tenantSubdomain: "contoso"))
/// switch try await client.signIn(SignInParameters(username: "ada@contoso.com")) {
/// case .codeRequired(let state, let sentTo, _, _): …
/// …
/// }
/// ```
public final class NativeAuthClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: NativeAuthConfiguration
    let core: ClientCore

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - configuration: the app and its tenant.
    ///   - transport: where requests go; ``URLSessionTransport`` by default. Pass an emulated tenant
    ///     (`NativeAuthEmulator`) to run with no network.
    ///   - credentialStore: where the signed-in account is kept; in memory by default.
    public init(
        configuration: NativeAuthConfiguration, transport: any HTTPTransport = URLSessionTransport(),
        credentialStore: any CredentialStore = InMemoryCredentialStore()
    ) {
        self.configuration = configuration
        core = ClientCore(configuration: configuration, transport: transport, credentialStore: credentialStore)
    }

    /// The signed-in account from the credential store, or `nil` when nobody is signed in.
    ///
    /// - Throws: ``CredentialStoreError`` when the store cannot be read; that is not a sign-out,
    ///   and the stored credentials are left as they are.
    public func currentAccount() async throws(CredentialStoreError) -> UserAccountResult? {
        guard let record = try await core.accounts.current() else { return nil }
        return UserAccountResult(record: record, manager: core.accounts)
    }
}
