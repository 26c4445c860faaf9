import AuthCrypto
import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("The SDK's own DPoP keys (PS256 and RS256)", .hangLimit, .cpuHeavy)
struct SoftwareDPoPKeyTests {
    @Test func aNewKeySignsProofsTheServerCanCheckAndComesBackFromItsStoredForm() async throws {
        let provider = SoftwareDPoPKeyProvider()
        #expect(provider.supportedAlgorithms == ["PS256", "RS256"])
        let (key, stored) = try await provider.makeKey(algorithm: "RS256")
        #expect(key.algorithm == "RS256")
        #expect(Set(key.publicJWK.keys) == ["kty", "n", "e"])
        #expect(key.publicJWK["e"] == "AQAB")
        let proof = try await DPoPProof.make(
            key: key, method: "POST", url: URL(string: "https://server.example.com/token")!, issuedAt: Date())
        // Checked as a server would: the header's public key, RS256 over the signing input.
        let parts = proof.jwt.split(separator: ".").map(String.init)
        let header = try JSONValue.parse(try #require(Base64URL.decode(parts[0])))
        let jwk = try #require(header["jwk"])
        let n = try #require(jwk["n"]?.stringValue)
        let e = try #require(jwk["e"]?.stringValue)
        let publicKey = try RSAPublicKey(
            modulus: try #require(Base64URL.decode(n)), exponent: try #require(Base64URL.decode(e)))
        #expect(publicKey.modulusBitWidth == 2048)
        let signature = Array(try #require(Base64URL.decode(parts[2])))
        try RSASignature.verifySHA256(
            signature: signature, message: Array((parts[0] + "." + parts[1]).utf8), key: publicKey)
        // Read back from the store: the same key.
        let restored = try await provider.restoreKey(from: stored)
        #expect(restored.publicJWK == key.publicJWK)
        let input = Data("input".utf8)
        #expect(try await restored.sign(input) == (try await key.sign(input)), "RS256 is deterministic")
        // Never the key in a description.
        for text in [String(describing: key), String(reflecting: key), "\(key)"] {
            #expect(text == "DPoPKey(RS256, 2048 bits)")
        }
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains(key.publicJWK["n"] ?? "-"))

        // The same key stored as a PS256 key (no second key generation): PSS signatures, a new
        // salt each time, that the server's check takes.
        let pss = try await provider.restoreKey(from: SoftwareDPoPKeyProvider.pssMarker + stored)
        #expect(pss.algorithm == "PS256")
        #expect(pss.publicJWK == key.publicJWK)
        #expect(String(describing: pss) == "DPoPKey(PS256, 2048 bits)")
        let first = Array(try await pss.sign(input))
        let second = Array(try await pss.sign(input))
        #expect(first != second, "PS256 salts are random")
        for signature in [first, second] {
            try RSAPSSSignature.verifySHA256(signature: signature, message: Array(input), key: publicKey)
            #expect(throws: RSASignatureError.self) {
                try RSASignature.verifySHA256(signature: signature, message: Array(input), key: publicKey)
            }
        }
        let psProof = try await DPoPProof.make(
            key: pss, method: "GET", url: URL(string: "https://server.example.com/api")!, issuedAt: Date())
        let psHeader = try JSONValue.parse(
            try #require(Base64URL.decode(String(psProof.jwt.split(separator: ".")[0]))))
        #expect(psHeader["alg"]?.stringValue == "PS256")
    }

    @Test func otherAlgorithmsAndUnreadableStoredFormsAreTypedErrors() async {
        let provider = SoftwareDPoPKeyProvider()
        await #expect(throws: DPoPKeyProviderError.unsupportedAlgorithm("ES256")) {
            try await provider.makeKey(algorithm: "ES256")
        }
        for stored in [Data(), Data([0x30, 0x03, 0x02, 0x01, 0x00]), Data(repeating: 0xFF, count: 300)] {
            await #expect(throws: DPoPKeyProviderError.unreadableStoredForm) {
                try await provider.restoreKey(from: stored)
            }
        }
    }
}
