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
    ///   - credentialStore: where the signed-in account is kept;
    ///     ``defaultCredentialStore(applicationName:)`` by default: the keychain on Apple platforms,
    ///     files under the user's data directory on Linux.
    public init(
        configuration: NativeAuthConfiguration, transport: any HTTPTransport = URLSessionTransport(),
        credentialStore: any CredentialStore = NativeAuthClient.defaultCredentialStore()
    ) {
        self.configuration = configuration
        core = ClientCore(configuration: configuration, transport: transport, credentialStore: credentialStore)
    }

    /// The platform's default credential store: the keychain on Apple platforms
    /// (`KeychainCredentialStore`), and on Linux a ``FileCredentialStore`` in
    /// `$XDG_DATA_HOME/<applicationName>/credentials` (or `~/.local/share/…`).
    ///
    /// - Parameter applicationName: names the directory on Linux; the process name when `nil`.
    public static func defaultCredentialStore(applicationName: String? = nil) -> any CredentialStore {
        PlatformCredentialStore.make(applicationName: applicationName)
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
