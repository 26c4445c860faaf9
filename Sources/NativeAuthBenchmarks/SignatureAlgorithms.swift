import Foundation
import NativeAuth

/// ID token verification with the algorithms beside RS256, timed like the RS256 row: each token
/// checked against its parsed JWK Set, the signature verified by the platform's verifier (the
/// SDK's own arithmetic on Linux).
enum SignatureAlgorithms {
    /// A published or independently made token of each algorithm, and a key set holding its key.
    static let cases: [(name: String, token: String, jwks: String)] = [
        (
            "PS256 ID token verification, 2048-bit key (OpenSSL-signed token)",
            "eyJhbGciOiJQUzI1NiIsImtpZCI6Im9wZW5zc2wtcHMyNTYiLCJ0eXAiOiJKV1QifQ"
                + ".eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwic3ViIjoiMjQ4Mjg5NzYxMDAxIiwiYXVkIjoiY2xpZW50LTEiLCJub25jZSI6"
                + "Im4tMFM2X1d6QTJNaiIsImV4cCI6MjAwMDAwMDAwMCwiaWF0IjoxNzAwMDAwMDAwfQ"
                + ".JL_iZ564QkBDgZrmFed8VpnJUCEoDinrtzFuPwh6ePOILR4ldlv6h2MoJhxykpT7P2xIFv0toyeSqCT6vFW7OqMBPBQwBfYNAPYyOQbq"
                + "Z-qGrqoWoF3mwAbIH1Z8ft-3EJ9IZGYPF9mB8NzUr4tj9I-VocI2lp9kZOphI2N4CPm6eyi65XG2hGQi7I1aCfXfT-6ReR9OPeNDrN-I"
                + "1Ok3h-mXyZ-MGmZYZMEpWhSW7FhYK_Y8gu-lia_894MUDYTPuHhQElybZJEck4HuUPrkAK4bpzHQpKwrymGTTAb9_PxFUl6tf5cA2MGPi"
                + "2CUK4Z55ZZOCdMLh0AzEg7ke0AUig",
            #"{"keys":[{"kty":"RSA","kid":"openssl-ps256","alg":"PS256","e":"AQAB","n":""#
                + "qJQt8UN07IvuIfwcMlMoQiFFEehlKN1jvpb2C2tIfwzRjBYPGj9qj5GccS8FRBkeuRNSLZNNAUjmOAZR5RLMF93jEoJeigVKpwIFASs2"
                + "V06lU5my35U8SmytrwWznUt-eq1DkiWbzdQio087DaFXvhat9i38Yfi_bQy5MnHJGtudw4afLKDNtjg2Z0SzQ4AUNZ4HcL0eLxDGAcNE"
                + "vBURF9NyiTnUgNUSJEItIOx0Spbtj90AeHeWVuklZqd6gv-JS_5uITeYRaE-IPVSVL-pAeKbayH7ZxS5QTw0pRSVvjOv5vInzn9h2OHY"
                + "sDx3s5s8Mff7qrDGkFBEoF6Sq_nBJQ" + #""}]}"#
        ),
        (
            "ES256 ID token verification, P-256 key (RFC 7515 A.3)",
            "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290I"
                + "jp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q",
            #"{"keys":[{"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","#
                + #""y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}]}"#
        ),
        (
            "EdDSA ID token verification, Ed25519 key (RFC 8037 A.4)",
            "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
                + ".hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg",
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#
        ),
    ]

    /// Times `signatures` verifications of each case (after a warm-up), and prints a line each.
    static func run(signatures: Int) throws {
        let clock = ContinuousClock()
        for (name, token, jwks) in cases {
            let check = try signatureCheck(token: token, jwks: Array(jwks.utf8))
            guard check() else { throw BenchmarkFailure.setup("\(name): the token does not verify") }
            for _ in 0..<min(signatures, 100) { _ = check() }
            var samples: [Double] = []
            samples.reserveCapacity(signatures)
            for _ in 0..<signatures {
                let start = clock.now
                guard check() else { throw BenchmarkFailure.setup("\(name): verification failed") }
                samples.append(nanoseconds(clock.now - start))
            }
            print(Stats(samples).line(name))
        }
    }
}
