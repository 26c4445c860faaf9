import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

/// JWK Set documents for tests.
enum JWKSFixtures {
    /// One RSA JWK as JSON text.
    static func rsa(
        kid: String? = nil, n: String = SignatureFixtures.opensslModulus, e: String = "AQAB", extra: String = ""
    ) -> String {
        var members = ["\"kty\":\"RSA\"", "\"n\":\"\(n)\"", "\"e\":\"\(e)\""]
        if let kid { members.append("\"kid\":\"\(kid)\"") }
        if !extra.isEmpty { members.append(extra) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A JWK Set of `keys` (JSON texts).
    static func set(_ keys: [String]) throws -> JSONWebKeySet {
        try JSONWebKeySet(json: Data(("{\"keys\":[" + keys.joined(separator: ",") + "]}").utf8))
    }

    /// The RFC 7520 §3.3 public key, as the RFC gives it.
    static let bilbo = rsa(
        kid: "bilbo.baggins@hobbiton.example", n: SignatureFixtures.rfc7520Modulus, extra: "\"use\":\"sig\"")
}

@Suite("Web: JWK Set parsing", .hangLimit)
struct JSONWebKeySetTests {
    @Test("RSA signing keys are kept with their kid; leading zero bytes in n are accepted")
    func acceptsRSAKeys() throws {
        let modulus = try #require(Base64URL.decode(SignatureFixtures.opensslModulus))
        let paddedN = Base64URL.encode(Data([0]) + modulus)
        let set = try JWKSFixtures.set([
            JWKSFixtures.bilbo,
            JWKSFixtures.rsa(kid: "padded", n: paddedN, extra: "\"alg\":\"RS256\",\"key_ops\":[\"verify\"]"),
            JWKSFixtures.rsa(),
        ])
        #expect(set.skipped.isEmpty)
        #expect(set.keys.map(\.keyID) == ["bilbo.baggins@hobbiton.example", "padded", nil])
        #expect(set.keys[1].publicKey == set.keys[2].publicKey)
        #expect(set.keys[1].publicKey?.modulusBitWidth == 2048)
    }

    @Test("Keys that cannot check signatures are skipped, each with its reason")
    func skipsUnsuitableKeys() throws {
        let set = try JWKSFixtures.set([
            #"{"kty":"EC","kid":"ec","crv":"P-384","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}"#,
            #"{"kty":"oct","kid":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ"}"#,
            #"{"kid":"no-kty","n":"AQAB","e":"AQAB"}"#,
            JWKSFixtures.rsa(kid: "enc", extra: #""use":"enc""#),
            JWKSFixtures.rsa(kid: "rs384", extra: #""alg":"RS384""#),
            JWKSFixtures.rsa(kid: "ps384", extra: #""alg":"PS384""#),
            JWKSFixtures.rsa(kid: "encrypt-only", extra: #""key_ops":["encrypt"]"#),
            JWKSFixtures.rsa(kid: "small", n: SignatureFixtures.modulus1024),
            JWKSFixtures.rsa(kid: "bad-n", n: "not*base64"),
            JWKSFixtures.rsa(kid: "bad-e", e: ""),
            JWKSFixtures.rsa(kid: "e-one", e: "AQ"),
            #"{"kty":"RSA","kid":"no-n","e":"AQAB"}"#,
            #"{"kty":"RSA","kid":7,"n":"AQAB","e":"AQAB"}"#,
            #""just a string""#,
            JWKSFixtures.rsa(kid: "good"),
        ])
        #expect(set.keys.map(\.keyID) == ["good"])
        let reasons = set.skipped.map { [$0.keyID ?? "-": $0.reason] }
        let expected: [[String: JSONWebKeyRejection]] = [
            ["ec": .unsupportedCurve("P-384")],
            ["oct": .unsupportedKeyType("oct")],
            ["no-kty": .unsupportedKeyType(nil)],
            ["enc": .unsupportedUse("enc")],
            ["rs384": .unsupportedAlgorithm("RS384")],
            ["ps384": .unsupportedAlgorithm("PS384")],
            ["encrypt-only": .notForVerification],
            ["small": .unsuitableKey(.modulusTooSmall(bits: 1024))],
            ["bad-n": .invalidParameter("n")],
            ["bad-e": .invalidParameter("e")],
            ["e-one": .unsuitableKey(.invalidExponent)],
            ["no-n": .invalidParameter("n")],
            ["-": .invalidParameter("kid")],
            ["-": .notAnObject],
        ]
        #expect(reasons == expected)
    }

    @Test("A document that is not a JWK Set is refused")
    func refusesNonSets() {
        #expect(throws: JSONWebKeySet.ParseError.notJSONObject) { try JSONWebKeySet(json: Data("nope".utf8)) }
        #expect(throws: JSONWebKeySet.ParseError.notJSONObject) { try JSONWebKeySet(json: Data("[]".utf8)) }
        #expect(throws: JSONWebKeySet.ParseError.missingKeys) { try JSONWebKeySet(json: Data("{}".utf8)) }
        #expect(throws: JSONWebKeySet.ParseError.missingKeys) {
            try JSONWebKeySet(json: Data(#"{"keys":{}}"#.utf8))
        }
        #expect(throws: Never.self) { try JSONWebKeySet(json: Data(#"{"keys":[]}"#.utf8)) }
    }

    @Test("Rejection descriptions are short and printable")
    func descriptions() {
        let long = String(repeating: "x", count: 500) + "\u{7}"
        let text = JSONWebKeyRejection.unsupportedKeyType(long).description
        #expect(text.count < 120)
        #expect(!text.contains("\u{7}"))
        #expect(JSONWebKeyRejection.unsuitableKey(.evenModulus).description == "RSA modulus is even")
    }
}
