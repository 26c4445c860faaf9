import Foundation
import NativeAuth
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

/// Hostile proofs get a clean refusal, never a crash or a hang: huge, malformed, deeply nested,
/// of the wrong types, with huge keys; and nothing of them comes back in a header.
@Suite("DPoP: hostile proofs", .hangLimit)
struct DPoPHostileProofTests {
    static func segment(_ json: String) -> String { b64(Data(json.utf8)) }

    /// Proofs that must all be refused, by name.
    static var hostile: [(String, String)] {
        let valid = DPoPHarness().tokenProof()
        let parts = valid.jwt.split(separator: ".").map(String.init)
        let nested = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        func header(_ json: String) -> String { segment(json) + "." + parts[1] + "." + parts[2] }
        func claims(_ json: String) -> String { parts[0] + "." + segment(json) + "." + parts[2] }
        let hugeModulus = b64(Data([0xFF] + [UInt8](repeating: 0xAB, count: 2047) + [0x01]))
        return [
            ("a 100 kB header", String(repeating: "A", count: 100_000)),
            ("100 kB of dots", String(repeating: ".", count: 100_000)),
            ("malformed base64", "!!!.@@@.###"),
            (
                "base64 of the other alphabet",
                parts[0].replacingOccurrences(of: "-", with: "+") + "/." + parts[1] + "." + parts[2]
            ),
            ("white space inside", parts[0] + " ." + parts[1] + "." + parts[2]),
            ("control characters", "\u{01}\u{02}.\u{7F}.\r\n"),
            ("a header nested 10,000 deep", header(nested)),
            ("claims nested 10,000 deep", claims(nested)),
            ("a header that is a string", header(#""dpop+jwt""#)),
            (
                "a header of invalid UTF-8",
                b64(Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D])) + "." + parts[1] + "." + parts[2]
            ),
            ("typ a number", header(#"{"typ":7,"alg":"RS256","jwk":{}}"#)),
            ("alg an array", header(#"{"typ":"dpop+jwt","alg":["RS256"],"jwk":{}}"#)),
            ("jwk a string", header(#"{"typ":"dpop+jwt","alg":"RS256","jwk":"key"}"#)),
            ("n a number", header(#"{"typ":"dpop+jwt","alg":"RS256","jwk":{"kty":"RSA","n":12345,"e":"AQAB"}}"#)),
            ("e an object", header(#"{"typ":"dpop+jwt","alg":"RS256","jwk":{"kty":"RSA","n":"AQAB","e":{}}}"#)),
            ("n not base64url", header(#"{"typ":"dpop+jwt","alg":"RS256","jwk":{"kty":"RSA","n":"*","e":"AQAB"}}"#)),
            (
                "a 16,384-bit modulus",
                header(#"{"typ":"dpop+jwt","alg":"RS256","jwk":{"kty":"RSA","n":"\#(hugeModulus)","e":"AQAB"}}"#)
            ),
            (
                "a 9-byte exponent",
                header(
                    #"{"typ":"dpop+jwt","alg":"RS256","jwk":{"kty":"RSA","n":"\#(valid.key.n)","e":"AQAAAAAAAAAB"}}"#)
            ),
            ("a signature longer than the modulus", parts[0] + "." + parts[1] + "." + parts[2] + "AAAA"),
            ("a signature of zeros", parts[0] + "." + parts[1] + "." + b64(Data(count: 256))),
            ("a signature of all ones", parts[0] + "." + parts[1] + "." + b64(Data(repeating: 0xFF, count: 256))),
            ("iat an object", claims(#"{"jti":"j","htm":"POST","htu":"x","iat":{}}"#)),
            ("iat 1e308", claims(#"{"jti":"j","htm":"POST","htu":"x","iat":1e308}"#)),
            ("iat -1e308", claims(#"{"jti":"j","htm":"POST","htu":"x","iat":-1e308}"#)),
            ("a quote and a line break", "\"\r\nX-Injected: yes"),
        ]
    }

    @Test("at the token endpoint, every hostile proof is 400 invalid_dpop_proof")
    func tokenEndpoint() async throws {
        let harness = DPoPHarness()
        let code = try await harness.code()
        for (name, value) in Self.hostile {
            let reply = try await harness.redeem(code, proof: value)
            #expect(reply.status == 400, "\(name): \(reply.text)")
            #expect(reply.error == "invalid_dpop_proof", "\(name)")
            #expect(!reply["error_description"].contains("X-Injected"), "\(name)")
        }
        #expect(try await harness.redeem(code, proof: harness.tokenProof().jwt).status == 200)
    }

    @Test("at the resource, every hostile proof is 401, and its challenge repeats nothing of it")
    func resource() async throws {
        let harness = DPoPHarness()
        let token = try await harness.boundTokens()["access_token"]
        for (name, value) in Self.hostile {
            let reply = try await harness.me(dpop: token, proof: value)
            #expect(reply.status == 401, "\(name): \(reply.text)")
            #expect(reply.error == "invalid_dpop_proof", "\(name)")
            #expect(!reply.challenge.contains("\r") && !reply.challenge.contains("\n"), "\(name)")
            #expect(reply.challenge.count < 300, "\(name)")
        }
    }

    @Test("hostile Authorization values at the resource are refused cleanly")
    func hostileAuthorization() async throws {
        let harness = DPoPHarness()
        for value in ["DPoP", "DPoP ", "DPoP \(String(repeating: "a.", count: 50_000))", "DPoP a.b.c", "DPoP \u{0}"] {
            let reply = try await harness.me(authorization: value, headers: ["DPoP": harness.tokenProof().jwt])
            #expect(reply.status == 401)
            #expect(["invalid_request", "invalid_token"].contains(reply.error ?? ""))
        }
    }

    @Test("seeded random proofs made of JWT characters are all refused")
    func randomProofs() async throws {
        let harness = DPoPHarness()
        let code = try await harness.code()
        var random = SplitMix64(seed: 9449)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ {}\"")
        let valid = harness.tokenProof().jwt
        for _ in 0..<200 {
            var text: String
            if Bool.random(using: &random) {
                text = String(
                    (0..<Int.random(in: 0...300, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            } else {
                // A valid proof with a few characters changed.
                var characters = Array(valid)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    characters[Int.random(in: 0..<characters.count, using: &random)] =
                        alphabet.randomElement(using: &random)!
                }
                text = String(characters)
            }
            guard text != valid else { continue }
            let reply = try await harness.redeem(code, proof: text)
            #expect(reply.status == 400, "\(text)")
        }
    }
}
