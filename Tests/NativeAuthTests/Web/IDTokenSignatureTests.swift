import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

@Suite("Web: ID token signature verification (RS256)", .hangLimit)
struct IDTokenSignatureTests {
    /// A compact token from a header and payload (JSON texts) and raw signature bytes.
    private func token(header: String, payload: String = #"{"sub":"x"}"#, signature: [UInt8] = [1, 2, 3]) -> String {
        Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(payload.utf8)) + "."
            + Base64URL.encode(Data(signature))
    }

    private func openSSLKeys() throws -> JSONWebKeySet {
        try JWKSFixtures.set([JWKSFixtures.rsa(kid: "openssl-fixture-1")])
    }

    private func replacing(_ token: String, at offset: Int, with character: Character) -> String {
        var characters = Array(token)
        characters[offset] = character
        return String(characters)
    }

    @Test("RFC 7515 A.2 verifies with its key, and the payload is the signed bytes")
    func rfc7515() throws {
        let keys = try JWKSFixtures.set([JWKSFixtures.rsa(n: SignatureFixtures.rfc7515Modulus)])
        let verified = try IDTokenSignature.verify(SignatureFixtures.rfc7515Token, keys: keys)
        #expect(verified.header == ["alg": .string("RS256")])
        #expect(verified.keyID == nil)
        #expect(
            verified.payload
                == Data("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8))
        #expect(verified.claims?["iss"] == .string("joe"))
    }

    @Test("RFC 7515 A.2 fails with one bit flipped in the header, the payload or the signature")
    func rfc7515BitFlips() throws {
        let keys = try JWKSFixtures.set([JWKSFixtures.rsa(n: SignatureFixtures.rfc7515Modulus)])
        let parts = SignatureFixtures.rfc7515Token.split(separator: ".").map { Base64URL.decode(String($0)) ?? Data() }
        func flipped(segment: Int, byte: Int, bit: Int) -> String {
            var segments = parts
            var bytes = [UInt8](segments[segment])
            bytes[byte] ^= UInt8(1) << UInt8(bit)
            segments[segment] = Data(bytes)
            return segments.map(Base64URL.encode).joined(separator: ".")
        }
        for bit in 0..<8 {
            // Header {"alg":"RS256"}: a flipped bit breaks the JSON or the algorithm name, or (in
            // the signed text) the signature; whichever check catches it, the token fails.
            for byte in [0, 3, 9, 12, 14] {
                #expect(throws: JWSVerificationError.self) {
                    try IDTokenSignature.verify(flipped(segment: 0, byte: byte, bit: bit), keys: keys)
                }
            }
            for byte in [0, 20, parts[1].count - 1] {
                #expect(throws: JWSVerificationError.badSignature) {
                    try IDTokenSignature.verify(flipped(segment: 1, byte: byte, bit: bit), keys: keys)
                }
            }
            for byte in [0, 128, 255] {
                #expect(throws: JWSVerificationError.badSignature) {
                    try IDTokenSignature.verify(flipped(segment: 2, byte: byte, bit: bit), keys: keys)
                }
            }
        }
        // A different header that still says RS256 fails on the signature: the header is signed too.
        let otherHeader = Base64URL.encode(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8))
        let swapped = ([otherHeader] + parts.dropFirst().map(Base64URL.encode)).joined(separator: ".")
        #expect(throws: JWSVerificationError.badSignature) { try IDTokenSignature.verify(swapped, keys: keys) }
    }

    @Test("RFC 7520 4.1 verifies, its key chosen by kid among several")
    func rfc7520() throws {
        let keys = try JWKSFixtures.set([
            JWKSFixtures.rsa(kid: "openssl-fixture-1"), JWKSFixtures.bilbo,
            JWKSFixtures.rsa(kid: "other", n: SignatureFixtures.rfc7515Modulus),
        ])
        let verified = try IDTokenSignature.verify(SignatureFixtures.rfc7520Token, keys: keys)
        #expect(verified.keyID == "bilbo.baggins@hobbiton.example")
        #expect(String(decoding: verified.payload, as: UTF8.self).hasPrefix("It\u{2019}s a dangerous business, Frodo"))
        #expect(verified.claims == nil)
    }

    @Test("An OpenSSL-signed 2048-bit token and a 4096-bit e = 3 token verify", arguments: signatureVerifiers.indices)
    func openSSLTokens(verifierIndex: Int) throws {
        let verifier = signatureVerifiers[verifierIndex]
        let keys = try JWKSFixtures.set([
            JWKSFixtures.rsa(kid: "openssl-fixture-1"),
            JWKSFixtures.rsa(kid: "openssl-fixture-e3", n: SignatureFixtures.opensslE3Modulus, e: "Aw"),
        ])
        let verified = try IDTokenSignature.verify(SignatureFixtures.opensslToken, keys: keys, verifier: verifier)
        #expect(verified.claims?["nonce"] == .string("n-0S6_WzA2Mj"))
        #expect(verified.header["typ"] == .string("JWT"))
        let e3 = try IDTokenSignature.verify(SignatureFixtures.opensslE3Token, keys: keys, verifier: verifier)
        #expect(e3.keyID == "openssl-fixture-e3")
        #expect(throws: JWSVerificationError.badSignature) {
            try IDTokenSignature.verify(SignatureFixtures.forgedE3Token, keys: keys, verifier: verifier)
        }
    }

    @Test("alg none, HMAC, other hashes and curves, and near-misses are refused by name")
    func refusedAlgorithms() throws {
        let keys = try openSSLKeys()
        for algorithm in [
            "none", "HS256", "HS384", "HS512", "ES384", "ES512", "PS384", "RS384", "RS512", "rs256", "RS256 ", "",
            "EdDSA ", "Ed448", "ES256K",
        ] {
            #expect(throws: JWSVerificationError.unsupportedAlgorithm(algorithm)) {
                try IDTokenSignature.verify(
                    token(header: #"{"alg":"\#(algorithm)","kid":"openssl-fixture-1"}"#), keys: keys)
            }
        }
        // The classic unsigned token: empty signature.
        let unsigned = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Data("{}".utf8)) + "."
        #expect(throws: JWSVerificationError.unsupportedAlgorithm("none")) {
            try IDTokenSignature.verify(unsigned, keys: keys)
        }
    }

    @Test("HS256 keyed with the RSA public key (key confusion) is refused as an unsupported algorithm")
    func hmacKeyConfusion() throws {
        #expect(throws: JWSVerificationError.unsupportedAlgorithm("HS256")) {
            try IDTokenSignature.verify(SignatureFixtures.hs256WithPublicKeyToken, keys: try openSSLKeys())
        }
    }

    @Test("A missing or non-string alg, a non-string kid and any crit header are refused")
    func headerRefusals() throws {
        let keys = try openSSLKeys()
        #expect(throws: JWSVerificationError.malformed(.algorithmMissing)) {
            try IDTokenSignature.verify(token(header: #"{"kid":"openssl-fixture-1"}"#), keys: keys)
        }
        #expect(throws: JWSVerificationError.malformed(.algorithmMissing)) {
            try IDTokenSignature.verify(token(header: #"{"alg":null}"#), keys: keys)
        }
        #expect(throws: JWSVerificationError.malformed(.algorithmMissing)) {
            try IDTokenSignature.verify(token(header: #"{"alg":["RS256"]}"#), keys: keys)
        }
        #expect(throws: JWSVerificationError.malformed(.invalidKeyID)) {
            try IDTokenSignature.verify(token(header: #"{"alg":"RS256","kid":1}"#), keys: keys)
        }
        for crit in [#"["exp"]"#, #"["b64"]"#, "[]", #""b64""#] {
            #expect(throws: JWSVerificationError.unsupportedCriticalHeader) {
                try IDTokenSignature.verify(token(header: #"{"alg":"RS256","crit":\#(crit),"b64":false}"#), keys: keys)
            }
        }
    }

    @Test("The key is chosen by kid: unknown kids, unsuitable keys and kid-less tokens")
    func keySelection() throws {
        let mixed = try JWKSFixtures.set([
            JWKSFixtures.rsa(kid: "openssl-fixture-1", n: SignatureFixtures.modulus1024),
            JWKSFixtures.rsa(kid: "a", n: SignatureFixtures.rfc7515Modulus),
            JWKSFixtures.rsa(kid: "b", n: SignatureFixtures.rfc7520Modulus),
        ])
        #expect(throws: JWSVerificationError.keyUnsuitable(.unsuitableKey(.modulusTooSmall(bits: 1024)))) {
            try IDTokenSignature.verify(SignatureFixtures.opensslToken, keys: mixed)
        }
        #expect(throws: JWSVerificationError.unknownKeyID("openssl-fixture-e3")) {
            try IDTokenSignature.verify(SignatureFixtures.opensslE3Token, keys: mixed)
        }
        // No kid: two suitable keys is ambiguous; one is used; none (one skipped) names the reason.
        #expect(throws: JWSVerificationError.unknownKeyID(nil)) {
            try IDTokenSignature.verify(SignatureFixtures.rfc7515Token, keys: mixed)
        }
        let ecOnly = try JWKSFixtures.set([#"{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}"#])
        #expect(throws: JWSVerificationError.keyUnsuitable(.unsuitableCurveKey(.coordinateLength(x: 1, y: 1)))) {
            try IDTokenSignature.verify(SignatureFixtures.rfc7515Token, keys: ecOnly)
        }
        #expect(throws: JWSVerificationError.unknownKeyID(nil)) {
            try IDTokenSignature.verify(SignatureFixtures.rfc7515Token, keys: JSONWebKeySet(keys: []))
        }
        // A token with a kid is not checked against a lone key with another kid (or none).
        let lone = try JWKSFixtures.set([JWKSFixtures.rsa(n: SignatureFixtures.rfc7520Modulus)])
        #expect(throws: JWSVerificationError.unknownKeyID("bilbo.baggins@hobbiton.example")) {
            try IDTokenSignature.verify(SignatureFixtures.rfc7520Token, keys: lone)
        }
        // Two keys sharing a kid are both tried.
        let rotated = try JWKSFixtures.set([
            JWKSFixtures.rsa(kid: "openssl-fixture-1", n: SignatureFixtures.rfc7515Modulus),
            JWKSFixtures.rsa(kid: "openssl-fixture-1"),
        ])
        #expect(try IDTokenSignature.verify(SignatureFixtures.opensslToken, keys: rotated).keyID == "openssl-fixture-1")
    }

    @Test("A key embedded in the header is never used")
    func embeddedKeyIgnored() throws {
        let other = try JWKSFixtures.set([JWKSFixtures.rsa(n: SignatureFixtures.rfc7515Modulus)])
        #expect(throws: JWSVerificationError.badSignature) {
            try IDTokenSignature.verify(SignatureFixtures.embeddedJWKToken, keys: other)
        }
        // The same token does verify with its real key in the set: only the key source differs.
        let real = try JWKSFixtures.set([JWKSFixtures.rsa()])
        #expect(throws: Never.self) { try IDTokenSignature.verify(SignatureFixtures.embeddedJWKToken, keys: real) }
    }

    @Test("Wrong shapes and non-canonical base64url are malformed")
    func malformedTokens() throws {
        let keys = try openSSLKeys()
        let valid = SignatureFixtures.opensslToken
        let parts = valid.split(separator: ".").map(String.init)
        let cases: [(String, JWSVerificationError.Malformation)] = [
            ("", .segmentCount),
            ("a.b", .segmentCount),
            (valid + ".x", .segmentCount),
            ("*." + parts[1] + "." + parts[2], .headerEncoding),
            (parts[0] + "=." + parts[1] + "." + parts[2], .headerEncoding),
            (Base64URL.encode(Data("[1]".utf8)) + "." + parts[1] + "." + parts[2], .headerNotJSONObject),
            ("." + parts[1] + "." + parts[2], .headerNotJSONObject),
            (parts[0] + ".a." + parts[2], .payloadEncoding),
            (parts[0] + "." + parts[1] + ".", .signatureEncoding),
            (parts[0] + "." + parts[1] + "." + parts[2] + "=", .signatureEncoding),
            (parts[0] + "." + parts[1] + "." + parts[2] + "+", .signatureEncoding),
        ]
        for (text, malformation) in cases {
            #expect(throws: JWSVerificationError.malformed(malformation)) {
                try IDTokenSignature.verify(text, keys: keys)
            }
        }
        // The signature ends in "g" (the last 6-bit group carries 2 spare bits); "h" decodes to the same
        // bytes but is a second spelling, so it is refused rather than accepted.
        #expect(parts[2].hasSuffix("g"))
        let respelled = parts[0] + "." + parts[1] + "." + parts[2].dropLast() + "h"
        #expect(Base64URL.decode(String(respelled.split(separator: ".")[2])) == Base64URL.decode(parts[2]))
        #expect(throws: JWSVerificationError.malformed(.signatureEncoding)) {
            try IDTokenSignature.verify(respelled, keys: keys)
        }
    }

    @Test("Signatures of the wrong length or at or above the modulus fail as bad signatures")
    func signatureRange() throws {
        let keys = try openSSLKeys()
        let parts = SignatureFixtures.opensslToken.split(separator: ".").map(String.init)
        let modulus = try #require(Base64URL.decode(SignatureFixtures.opensslModulus))
        let signature = try #require(Base64URL.decode(parts[2]))
        for bad in [
            Data([0]) + signature, signature.dropFirst(), modulus, Data(repeating: 0xff, count: 256), Data([1]),
        ] {
            let text = parts[0] + "." + parts[1] + "." + Base64URL.encode(Data(bad))
            #expect(throws: JWSVerificationError.badSignature) { try IDTokenSignature.verify(text, keys: keys) }
        }
    }

    @Test("Every one-character change to a valid token fails, and never crashes")
    func mutationsFail() throws {
        let keys = try openSSLKeys()
        let valid = SignatureFixtures.opensslToken
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ")
        var random = PropertyRandom(seed: 0x70C3)
        let count = valid.count
        for _ in 0..<150 {
            let mutated = replacing(valid, at: random.below(count), with: random.element(of: alphabet))
            guard mutated != valid else { continue }
            #expect(throws: JWSVerificationError.self) { try IDTokenSignature.verify(mutated, keys: keys) }
        }
    }

    @Test("Random bytes and random dotted segments never crash and never verify")
    func fuzz() throws {
        let keys = try openSSLKeys()
        var random = PropertyRandom(seed: 0xF022)
        for _ in 0..<500 {
            let length = random.below(300)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(throws: JWSVerificationError.self) { try IDTokenSignature.verify(text, keys: keys) }
        }
        let headers = [#"{"alg":"RS256"}"#, #"{"alg":"RS256","kid":"openssl-fixture-1"}"#, "{", "{}", "null", "\u{0}"]
        for _ in 0..<300 {
            let header = Base64URL.encode(Data(random.element(of: headers).utf8))
            let payload = Base64URL.encode(
                Data((0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
            let signature = Base64URL.encode(
                Data(
                    (0..<random.element(of: [0, 1, 255, 256, 257])).map { _ in UInt8(truncatingIfNeeded: random.next())
                    }))
            let dots = random.element(of: [".", "..", ""])
            #expect(throws: JWSVerificationError.self) {
                try IDTokenSignature.verify(header + "." + payload + dots + signature, keys: keys)
            }
        }
    }

    @Test("Error descriptions never contain token text")
    func descriptionsHoldNoSecrets() throws {
        let keys = try openSSLKeys()
        let valid = SignatureFixtures.opensslToken
        let parts = valid.split(separator: ".").map(String.init)
        var errors: [JWSVerificationError] = []
        for text in [
            parts[0] + "." + parts[1] + "." + parts[2].dropLast(4) + "AAAA", String(valid.dropLast()),
            "x." + parts[1] + ".y",
            token(header: #"{"alg":"\#(parts[1])"}"#), token(header: #"{"alg":"RS256","kid":"\#(parts[1])"}"#),
        ] {
            do {
                _ = try IDTokenSignature.verify(text, keys: keys)
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 5)
        for error in errors {
            let description = String(describing: error)
            #expect(!description.contains(parts[1]))
            #expect(!description.contains(parts[2].prefix(20)))
            #expect(description.count < 160)
        }
    }
}
