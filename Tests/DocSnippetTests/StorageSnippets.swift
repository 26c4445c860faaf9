// The samples of Docs/Storage.md (but one: StorageOwnStoreSample.swift), and the tests that run
// them. Stores in the home directory are made, never written.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// A cipher for tests: XOR with a one-byte key, a marker byte in front, and a switch that makes
/// the key unavailable.
struct TestCipher: Cipher {
    var keyAvailable = true

    func seal(_ plaintext: Data) async throws -> Data {
        guard keyAvailable else { throw CipherError.keyUnavailable }
        return Data([0xA5]) + Data(plaintext.map { $0 ^ 0x5A })
    }

    func open(_ sealed: Data) async throws -> Data {
        guard keyAvailable else { throw CipherError.keyUnavailable }
        guard sealed.first == 0xA5 else { throw CipherError.authenticationFailed }
        return Data(sealed.dropFirst().map { $0 ^ 0x5A })
    }
}

@Suite(.hangLimit)
struct StorageSnippetTests {
    @Test func createsClientsOnTheDefaultStores() throws {
        let configuration = try makeConfiguration()
        do {
            // snippet: storage-default-store
            let client = NativeAuthClient(configuration: configuration)  // the platform's default store
            // snippet: end
            #expect(client.configuration.clientId == configuration.clientId)
        }
        do {
            // snippet: storage-default-store-named
            let client = NativeAuthClient(
                configuration: configuration,
                credentialStore: NativeAuthClient.defaultCredentialStore(applicationName: "MyApp"))
            // snippet: end
            #expect(client.configuration.clientId == configuration.clientId)
        }
        do {
            // snippet: storage-file
            let store = FileCredentialStore(directory: FileCredentialStore.defaultDirectory(applicationName: "MyApp"))
            let client = NativeAuthClient(configuration: configuration, credentialStore: store)
            // snippet: end
            #expect(client.configuration.clientId == configuration.clientId)
        }
        // The formatter leaves this alone: the sample does not indent inside #if.
        // swift-format-ignore
        do {
            // snippet: storage-keychain
            #if canImport(Security)
            let store = KeychainCredentialStore(
                service: "com.contoso.orders.auth",
                accessGroup: "ABCDE12345.com.contoso.shared",  // shared with the app's extensions
                accessibility: .afterFirstUnlockThisDeviceOnly)
            let client = NativeAuthClient(configuration: configuration, credentialStore: store)
            #endif
            // snippet: end
            #if canImport(Security)
                #expect(client.configuration.clientId == configuration.clientId)
            #endif
        }
        do {
            let appCipher = TestCipher()
            // snippet: storage-own-store-client
            let store = EncryptingCredentialStore(
                base: FileCredentialStore(directory: FileCredentialStore.defaultDirectory(applicationName: "MyApp")),
                cipher: appCipher)
            let client = NativeAuthClient(configuration: configuration, credentialStore: store)
            // snippet: end
            #expect(client.configuration.clientId == configuration.clientId)
        }
    }

    @Test func keepsTheAccountInMemory() async throws {
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
        let configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        // snippet: storage-in-memory
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        // snippet: end
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        #expect(try await client.currentAccount() != nil)
    }

    @Test func theEncryptingStoreSealsReadsAndForgets() async throws {
        let base = InMemoryCredentialStore()
        let store = EncryptingCredentialStore(base: base, cipher: TestCipher())
        try await store.setData(Data("record".utf8), forKey: "account")
        #expect(try await base.data(forKey: "account") != Data("record".utf8))
        #expect(try await store.data(forKey: "account") == Data("record".utf8))

        // Sealed with another key: read as nothing stored.
        try await base.setData(Data("not sealed".utf8), forKey: "account")
        #expect(try await store.data(forKey: "account") == nil)

        // The key is not available yet: the error reaches the SDK.
        let locked = EncryptingCredentialStore(base: base, cipher: TestCipher(keyAvailable: false))
        await #expect(throws: CipherError.self) { try await locked.data(forKey: "account") }

        try await store.removeData(forKey: "account")
        #expect(try await base.data(forKey: "account") == nil)
    }

    @Test func aClientKeepsItsAccountInTheEncryptingStore() async throws {
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: "Analytical-Engine-1843"))
        let configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        let store = EncryptingCredentialStore(base: InMemoryCredentialStore(), cipher: TestCipher())
        let client = NativeAuthClient(configuration: configuration, transport: tenant, credentialStore: store)
        _ = try await client.signIn(SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))

        let restarted = NativeAuthClient(configuration: configuration, transport: tenant, credentialStore: store)
        #expect(try await restarted.currentAccount()?.account.username == "ada@example.com")
    }
}
