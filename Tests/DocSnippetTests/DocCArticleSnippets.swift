// The samples of the DocC articles (Sources/NativeAuth/NativeAuth.docc), and the tests that run
// them against the emulated tenant. The first is run with a real tenant's configuration: creating
// the client sends nothing. The browser article shows `web-continue-in-browser` of
// WebSignInSnippets.swift, run there.

import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The article's code sign-in, with `readCode()` standing for the screen where the user types the
/// code.
func articleCodeSignIn(client: NativeAuthClient, readCode: @escaping @Sendable () -> String) async throws {
    // snippet: docc-code-sign-in
    let start = try await client.signIn(SignInParameters(username: "ada@example.com"))
    if case .codeRequired(let state, let sentTo, _, _) = start {
        print("Enter the code sent to \(sentTo)")
        let result = try await state.submitCode(readCode())
        if case .completed(let account) = result {
            print("Signed in as \(account.account.username)")
        }
    }
    // snippet: end
}

/// The article's authorized request.
func articleOrdersRequest(account: UserAccountResult, ordersURL: URL) async throws -> URLRequest {
    // snippet: docc-orders-request
    var request = URLRequest(url: ordersURL)
    let token = try await account.getAccessToken(scopes: ["api://contoso/orders.read"])
    request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
    // snippet: end
    return request
}

/// The code the emulated tenant last sent to `address`, as a user would type it.
func typedCode(_ tenant: EmulatedTenant, _ address: String) -> String {
    tenant.lastCode(sentTo: address) ?? ""
}

@Suite(.hangLimit)
struct DocCArticleSampleTests {
    @Test func createsAClientForATenant() throws {
        // snippet: docc-client
        let configuration = try NativeAuthConfiguration(
            clientId: "00000000-0000-0000-0000-000000000000", tenantSubdomain: "contoso")
        let client = NativeAuthClient(configuration: configuration)
        // snippet: end
        #expect(client.configuration.authority.host() == "contoso.ciamlogin.com")
    }

    @Test func signsInWithACode() async throws {
        // Ada without a password: the tenant sends her a code.
        let tenant = EmulatedTenant(random: SeededRandomSource(seed: 1))
        tenant.addUser(EmulatedUser(username: "ada@example.com", password: nil))
        let configuration = try NativeAuthConfiguration(clientId: tenant.clientId, authority: tenant.authority)
        let client = NativeAuthClient(
            configuration: configuration, transport: tenant, credentialStore: InMemoryCredentialStore())
        let console = Console()
        let readCode: @Sendable () -> String = { typedCode(tenant, "ada@example.com") }
        try await Console.$current.withValue(console) {
            try await articleCodeSignIn(client: client, readCode: readCode)
        }
        #expect(console.printed("Enter the code sent to "))
        #expect(console.printed("Signed in as ada@example.com"))
    }

    @Test func authorizesARequest() async throws {
        let (client, _, _) = try makeClient()
        let start = try await client.signIn(
            SignInParameters(username: "ada@example.com", password: "Analytical-Engine-1843"))
        guard case .completed(let account) = start else { throw UnexpectedOutcome(description: "\(start)") }
        let ordersURL = try #require(URL(string: "https://api.contoso.com/orders"))
        let request = try await articleOrdersRequest(account: account, ordersURL: ordersURL)
        let header = request.value(forHTTPHeaderField: "Authorization") ?? ""
        #expect(header.hasPrefix("Bearer ") && header.count > 20)
    }
}
