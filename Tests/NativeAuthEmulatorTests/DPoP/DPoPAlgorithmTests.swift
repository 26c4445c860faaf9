import AuthCrypto
import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

/// The emulator's reading of PS256, ES256 and EdDSA proof keys, checked with published signatures
/// (a DPoP proof is a JWS like any other) and published thumbprints.
@Suite("DPoP: PS256, ES256 and EdDSA proof keys", .hangLimit)
struct DPoPAlgorithmTests {
    /// RFC 7515 A.3: the ES256 example key and compact JWS.
    static let es256X = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let es256Y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let es256Token =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    /// RFC 8037 A.2 to A.4: the Ed25519 example key, its thumbprint and compact JWS.
    static let ed25519X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
    static let ed25519Thumbprint = "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
    static let ed25519Token =
        "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
        + ".hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    private func split(_ token: String) -> (input: [UInt8], signature: [UInt8]) {
        let parts = token.split(separator: ".")
        let signature = DPoPProofChecker.base64URL(parts[2]).map { Array($0) } ?? []
        return (Array((parts[0] + "." + parts[1]).utf8), signature)
    }

    @Test("the tenant lists the four algorithms it verifies")
    func supported() {
        #expect(DPoPPublicKey.supportedAlgorithms == ["RS256", "PS256", "ES256", "EdDSA"])
    }

    @Test("an ES256 key verifies RFC 7515 A.3's signature; its thumbprint is RFC 7638's form")
    func es256() throws {
        let key = try DPoPPublicKey(
            jwk: ["kty": "EC", "crv": "P-256", "x": .string(Self.es256X), "y": .string(Self.es256Y)],
            algorithm: "ES256")
        let (input, signature) = split(Self.es256Token)
        #expect(key.verifies(signature, of: input))
        #expect(!key.verifies(signature, of: input + [0]))
        #expect(!key.verifies(Array(signature.dropLast()), of: input))
        let text = #"{"crv":"P-256","kty":"EC","x":"\#(Self.es256X)","y":"\#(Self.es256Y)"}"#
        #expect(key.thumbprint == b64(Data(SHA256.hash(Array(text.utf8)))))
    }

    @Test("an EdDSA key verifies RFC 8037 A.4's signature and has A.3's thumbprint")
    func edDSA() throws {
        let key = try DPoPPublicKey(
            jwk: ["kty": "OKP", "crv": "Ed25519", "x": .string(Self.ed25519X)], algorithm: "EdDSA")
        let (input, signature) = split(Self.ed25519Token)
        #expect(key.verifies(signature, of: input))
        #expect(!key.verifies(signature, of: Array(input.dropLast())))
        #expect(key.thumbprint == Self.ed25519Thumbprint)
    }

    @Test("a PS256 proof key takes PSS signatures only, an RS256 one PKCS #1 v1.5 only")
    func ps256() throws {
        let input: [UInt8] = Array("header.payload".utf8)
        let rs256Signature = ProofKey.b.sign(input)
        let rs256 = try DPoPPublicKey(jwk: ["kty": "RSA", "n": .string(ProofKey.b.n), "e": "AQAB"], algorithm: "RS256")
        let ps256 = try DPoPPublicKey(jwk: ["kty": "RSA", "n": .string(ProofKey.b.n), "e": "AQAB"], algorithm: "PS256")
        #expect(rs256.verifies(rs256Signature, of: input))
        #expect(!ps256.verifies(rs256Signature, of: input))
        #expect(rs256.thumbprint == ps256.thumbprint)
    }

    @Test("keys that do not fit the alg, are off the curve or are not an encoding are refused")
    func refusals() {
        let cases: [(JSONObject, String)] = [
            (["kty": "EC", "crv": "P-256", "x": .string(Self.es256X), "y": .string(Self.ed25519X)], "ES256"),
            (["kty": "EC", "crv": "P-384", "x": .string(Self.es256X), "y": .string(Self.es256Y)], "ES256"),
            (["kty": "OKP", "crv": "X25519", "x": .string(Self.ed25519X)], "EdDSA"),
            (["kty": "OKP", "crv": "Ed25519", "x": "AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"], "EdDSA"),
            (["kty": "OKP", "crv": "Ed25519", "x": "AAAA"], "EdDSA"),
            (["kty": "OKP", "crv": "Ed25519", "x": .string(Self.ed25519X)], "ES256"),
            (["kty": "EC", "crv": "P-256", "x": .string(Self.es256X), "y": .string(Self.es256Y)], "PS256"),
            (["kty": "OKP", "crv": "Ed25519", "x": .string(Self.ed25519X), "d": "AAAA"], "EdDSA"),
        ]
        for (jwk, algorithm) in cases {
            #expect(throws: DPoPRefusal.self) { try DPoPPublicKey(jwk: jwk, algorithm: algorithm) }
        }
    }
}
