import Foundation
import NativeAuth
import NativeAuthEmulator
import NativeAuthTestSupport
import Testing

/// `WebAuthConfiguration.idTokenAlgorithms`: the emulated tenant signs its ID tokens with RS256,
/// which every client takes by default and a client held to the FAPI 2.0 set refuses, storing
/// nothing.
@Suite("The ID token algorithms a web client accepts", .hangLimit)
struct IDTokenAlgorithmPolicyTests {
    let harness = EmulatorHarness()

    func client(_ algorithms: Set<String>? = nil) throws -> WebAuthClient {
        try harness.webClient { configuration in
            if let algorithms { configuration.idTokenAlgorithms = algorithms }
        }
    }

    func signIn(_ client: WebAuthClient) async throws -> UserAccountResult { try await harness.webSignIn(client) }

    @Test func everyAlgorithmTheSDKVerifiesIsAcceptedByDefault() async throws {
        #expect(WebAuthConfiguration().idTokenAlgorithms == ["RS256", "PS256", "ES256", "EdDSA"])
        let account = try await signIn(try client())
        #expect(account.account.username == "ada@example.com")
    }

    @Test func aClientHeldToTheFAPISetRefusesAnRS256TokenAndStoresNothing() async throws {
        #expect(WebAuthConfiguration.fapiIDTokenAlgorithms == ["PS256", "ES256", "EdDSA"])
        let client = try client(WebAuthConfiguration.fapiIDTokenAlgorithms)
        let error = try await #require(throws: WebSignInError.self) { try await signIn(client) }
        #expect(error.isInvalidIDToken)
        #expect(error.failedIDTokenCheck == .algorithm)
        #expect(try await client.currentAccount() == nil)
        // RS256 named again: the same tenant signs in.
        #expect(try await signIn(try self.client(["RS256"])).account.username == "ada@example.com")
    }

    @Test func anEmptySetOrAnUnknownNameIsRefusedAndThePreviousSetKept() {
        var configuration = WebAuthConfiguration()
        configuration.idTokenAlgorithms = WebAuthConfiguration.fapiIDTokenAlgorithms
        configuration.idTokenAlgorithms = []
        #expect(configuration.idTokenAlgorithms == WebAuthConfiguration.fapiIDTokenAlgorithms)
        for refused: Set<String> in [["HS256"], ["none"], ["ES256", "ES384"], ["rs256"]] {
            configuration.idTokenAlgorithms = refused
            #expect(configuration.idTokenAlgorithms == WebAuthConfiguration.fapiIDTokenAlgorithms, "\(refused)")
        }
        configuration.idTokenAlgorithms = ["ES256"]
        #expect(configuration.idTokenAlgorithms == ["ES256"])
    }
}
