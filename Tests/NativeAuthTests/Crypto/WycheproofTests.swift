import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto

/// Project Wycheproof's vectors for the three algorithms added beside RS256: every `valid` vector
/// verifies, every `invalid` one is refused. The three files hold no `acceptable` vector, and the
/// counts below assert that, so a newer copy that brings some fails here and makes the decision
/// visible. The decision then: an `acceptable` vector is refused (the check expects `false`) unless
/// the algorithm's specification requires accepting it.
@Suite(.hangLimit, .cpuHeavy) struct WycheproofTests {
    @Test func ecdsaP256SHA256InP1363Form() throws {
        var tally = VectorTally()
        for group in try Wycheproof.groups("ecdsa_secp256r1_sha256_p1363_test.json") {
            let x = try #require(Wycheproof.fixed(bytes(hex: group.key["wx"] ?? ""), count: 32))
            let y = try #require(Wycheproof.fixed(bytes(hex: group.key["wy"] ?? ""), count: 32))
            let key = try P256PublicKey(x: x, y: y)
            for test in group.tests {
                tally.record(test, verified: ECDSAP256.isValidSignature(test.signature, of: test.message, key: key))
            }
        }
        #expect(tally.failures == [])
        #expect(tally.counts == ["valid": 173, "invalid": 89])
    }

    @Test func rsaPSS2048SHA256MGF1Salt32() throws {
        var tally = VectorTally()
        for group in try Wycheproof.groups("rsa_pss_2048_sha256_mgf1_32_test.json") {
            let key = try RSAPublicKey(
                modulus: bytes(hex: group.key["modulus"] ?? ""), exponent: bytes(hex: group.key["publicExponent"] ?? "")
            )
            for test in group.tests {
                let verified =
                    (try? RSAPSSSignature.verifySHA256(signature: test.signature, message: test.message, key: key))
                    != nil
                tally.record(test, verified: verified)
            }
        }
        #expect(tally.failures == [])
        #expect(tally.counts == ["valid": 63, "invalid": 45])
    }

    @Test func ed25519() throws {
        var tally = VectorTally()
        for group in try Wycheproof.groups("ed25519_test.json") {
            let key = try Ed25519PublicKey(bytes(hex: group.key["pk"] ?? ""))
            for test in group.tests {
                tally.record(test, verified: Ed25519.isValidSignature(test.signature, of: test.message, key: key))
            }
        }
        #expect(tally.failures == [])
        #expect(tally.counts == ["valid": 88, "invalid": 63])
    }
}
