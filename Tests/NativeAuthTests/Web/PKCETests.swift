import Foundation
import Testing

@testable import NativeAuth

@Suite("PKCE, state and nonce")
struct PKCETests {
    @Test func rfc7636AppendixBVector() throws {
        let pkce = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.method == "S256")
    }

    @Test func generatedVerifiersAreUnreservedAndOfValidLength() {
        let random = SeededWebRandom(seed: 7)
        let unreserved = Set(PKCE.alphabet)
        for length in [0, 42, 43, 64, 128, 500] {
            let pkce = PKCE(length: length, random: random)
            let bytes = Array(pkce.verifier.reveal.utf8)
            #expect(PKCE.lengths.contains(bytes.count))
            #expect(bytes.allSatisfy(unreserved.contains))
            #expect(pkce.challenge == PKCE.challenge(for: pkce.verifier.reveal))
            #expect(pkce.challenge.count == 43)
        }
        #expect(PKCE(random: random).verifier.reveal.count == PKCE.defaultLength)
    }

    @Test func randomSourceIsInjectedAndTheSystemOneDiffersEachTime() {
        #expect(PKCE(random: SeededWebRandom(seed: 1)) == PKCE(random: SeededWebRandom(seed: 1)))
        #expect(
            OAuthRandom.token(random: SeededWebRandom(seed: 1)) == OAuthRandom.token(random: SeededWebRandom(seed: 1)))
        #expect(PKCE() != PKCE())
        #expect(OAuthRandom.token() != OAuthRandom.token())
    }

    @Test func givenVerifiersAreChecked() {
        #expect(throws: WebSignInError.self) { try PKCE(verifier: String(repeating: "a", count: 42)) }
        #expect(throws: WebSignInError.self) { try PKCE(verifier: String(repeating: "a", count: 129)) }
        #expect(throws: WebSignInError.self) { try PKCE(verifier: String(repeating: "a", count: 42) + "+") }
        #expect(throws: Never.self) { try PKCE(verifier: String(repeating: "~", count: 128)) }
    }

    @Test func stateAndNonceHaveAtLeast128Bits() {
        let random = SeededWebRandom(seed: 3)
        let token = OAuthRandom.token(random: random).reveal
        #expect(token.count == 43)
        #expect(Base64URL.decode(token)?.count == 32)
        #expect("\(OAuthRandom.token(random: random))" == "<redacted>")
    }

    @Test func constantTimeComparison() {
        #expect(OAuthRandom.constantTimeEqual("abc", "abc"))
        #expect(!OAuthRandom.constantTimeEqual("abc", "abd"))
        #expect(!OAuthRandom.constantTimeEqual("abc", "abcd"))
        #expect(!OAuthRandom.constantTimeEqual("", "a"))
        #expect(OAuthRandom.constantTimeEqual("", ""))
    }
}
