import AuthSupport
import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

/// The verifiers to run every JWS test through: the portable one, and the platform's where it
/// differs (Security and CryptoKit on Apple platforms).
let signatureVerifiers: [any SignatureVerifier] = {
    var verifiers: [any SignatureVerifier] = [PortableSignatureVerifier()]
    #if canImport(Security) && canImport(CryptoKit)
        verifiers.append(PlatformSignatureVerifier.platformDefault)
    #endif
    return verifiers
}()

/// The JWKs of the published examples.
enum AlgorithmKeys {
    static func es256(kid: String = "es", extra: String = "") -> String {
        #"{"kty":"EC","crv":"P-256","kid":"\#(kid)","x":"\#(AlgorithmFixtures.rfc7515ES256X)","y":"\#(AlgorithmFixtures.rfc7515ES256Y)"\#(extra)}"#
    }
    static func ed25519(kid: String = "ed", extra: String = "") -> String {
        #"{"kty":"OKP","crv":"Ed25519","kid":"\#(kid)","x":"\#(AlgorithmFixtures.rfc8037X)"\#(extra)}"#
    }
    static func ps256(extra: String = "") -> String {
        JWKSFixtures.rsa(kid: "openssl-ps256", n: AlgorithmFixtures.opensslPS256Modulus, extra: extra)
    }
}

/// A framework that records what it is handed and answers as told: the platform verifier's
/// choosing code, tested where the platform's frameworks are absent.
final class RecordingSignatureFramework: SignatureFramework, @unchecked Sendable {
    private let calls = Locked<[String]>([])
    let answer: Bool

    init(answer: Bool) { self.answer = answer }

    var recorded: [String] { calls.current }

    private func record(_ name: String, _ signature: [UInt8], _ key: [UInt8]) -> Bool {
        calls.withLock { $0.append("\(name) sig=\(signature.count) key=\(key.count)") }
        return answer
    }

    func verifyRSAPKCS1SHA256(signature: [UInt8], message: [UInt8], pkcs1Key: [UInt8]) -> Bool {
        record("rs256", signature, pkcs1Key)
    }
    func verifyRSAPSSSHA256(signature: [UInt8], message: [UInt8], pkcs1Key: [UInt8]) -> Bool {
        record("ps256", signature, pkcs1Key)
    }
    func verifyP256(signature: [UInt8], message: [UInt8], rawKey: [UInt8]) -> Bool {
        record("es256", signature, rawKey)
    }
    func verifyEd25519(signature: [UInt8], message: [UInt8], rawKey: [UInt8]) -> Bool {
        record("eddsa", signature, rawKey)
    }
}

@Suite("Web: ID token signatures with PS256, ES256 and EdDSA", .hangLimit)
struct IDTokenAlgorithmTests {
    private func allKeys() throws -> JSONWebKeySet {
        try JWKSFixtures.set([AlgorithmKeys.es256(), AlgorithmKeys.ed25519(), AlgorithmKeys.ps256()])
    }

    /// `token` with its header replaced by `header` (JSON text), the rest kept.
    private func rewritingHeader(_ token: String, _ header: String) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return ([Base64URL.encode(Data(header.utf8))] + parts.dropFirst().map(String.init)).joined(separator: ".")
    }

    @Test(
        "RFC 7515 A.3 (ES256), RFC 8037 A.4 (EdDSA) and an OpenSSL PS256 token verify",
        arguments: signatureVerifiers.indices)
    func publishedTokens(verifierIndex: Int) throws {
        let verifier = signatureVerifiers[verifierIndex]
        let es = try JWKSFixtures.set([AlgorithmKeys.es256()])
        let verified = try IDTokenSignature.verify(AlgorithmFixtures.rfc7515ES256Token, keys: es, verifier: verifier)
        #expect(verified.claims?["iss"] == .string("joe"))
        #expect(verified.keyID == "es")
        let ed = try JWKSFixtures.set([AlgorithmKeys.ed25519()])
        let signed = try IDTokenSignature.verify(AlgorithmFixtures.rfc8037Token, keys: ed, verifier: verifier)
        #expect(signed.payload == Data("Example of Ed25519 signing".utf8))
        let ps = try IDTokenSignature.verify(
            AlgorithmFixtures.opensslPS256Token, keys: try allKeys(), verifier: verifier)
        #expect(ps.claims?["nonce"] == .string("n-0S6_WzA2Mj"))
        #expect(ps.keyID == "openssl-ps256")
    }

    @Test("A changed payload or signature fails each algorithm as a bad signature")
    func tampering() throws {
        let keys = try JWKSFixtures.set([AlgorithmKeys.es256(), AlgorithmKeys.ed25519(), AlgorithmKeys.ps256()])
        let tokens = [
            rewritingHeader(AlgorithmFixtures.rfc7515ES256Token, #"{"alg":"ES256","kid":"es"}"#),
            rewritingHeader(AlgorithmFixtures.opensslPS256Token, #"{"alg":"PS256","kid":"openssl-ps256"}"#),
        ]
        for token in tokens {
            // Any header change is a signature change: the header is signed.
            #expect(throws: JWSVerificationError.badSignature) { try IDTokenSignature.verify(token, keys: keys) }
        }
        let edHeader = rewritingHeader(AlgorithmFixtures.rfc8037Token, #"{"alg":"EdDSA","kid":"ed"}"#)
        #expect(throws: JWSVerificationError.badSignature) { try IDTokenSignature.verify(edHeader, keys: keys) }
        // A signature one byte short is refused before any arithmetic.
        let short = String(AlgorithmFixtures.rfc8037Token.dropLast(3))
        #expect(throws: JWSVerificationError.self) { try IDTokenSignature.verify(short, keys: keys) }
    }

    @Test("The key decides the algorithm: a header naming another algorithm than its key's is refused")
    func keyDecidesAlgorithm() throws {
        // RSA key published for RS256 only: a PS256 token naming it is refused, though it verifies.
        let rs256Only = try JWKSFixtures.set([AlgorithmKeys.ps256(extra: #""alg":"RS256""#)])
        #expect(throws: JWSVerificationError.algorithmNotAllowedByKey("PS256")) {
            try IDTokenSignature.verify(AlgorithmFixtures.opensslPS256Token, keys: rs256Only)
        }
        // Published for PS256: verifies; an RS256 header on the same signature is refused by name.
        let ps256Only = try JWKSFixtures.set([AlgorithmKeys.ps256(extra: #""alg":"PS256""#)])
        #expect(throws: Never.self) {
            try IDTokenSignature.verify(AlgorithmFixtures.opensslPS256Token, keys: ps256Only)
        }
        let asRS256 = rewritingHeader(AlgorithmFixtures.opensslPS256Token, #"{"alg":"RS256","kid":"openssl-ps256"}"#)
        #expect(throws: JWSVerificationError.algorithmNotAllowedByKey("RS256")) {
            try IDTokenSignature.verify(asRS256, keys: ps256Only)
        }
        // Tokens naming the EC or OKP key with any other algorithm.
        let keys = try allKeys()
        for (algorithm, kid) in [("RS256", "es"), ("PS256", "es"), ("EdDSA", "es"), ("ES256", "ed"), ("RS256", "ed")] {
            let token = rewritingHeader(
                AlgorithmFixtures.rfc7515ES256Token, #"{"alg":"\#(algorithm)","kid":"\#(kid)"}"#)
            #expect(throws: JWSVerificationError.algorithmNotAllowedByKey(algorithm)) {
                try IDTokenSignature.verify(token, keys: keys)
            }
        }
        // "Ed25519", the fully specified name, is EdDSA with an Ed25519 key; a key may publish it.
        let fully = try JWKSFixtures.set([AlgorithmKeys.ed25519(extra: #","alg":"Ed25519""#)])
        #expect(fully.keys.first?.algorithms == [.edDSA])
        // none and HMAC stay refused, whatever key is named.
        for algorithm in ["none", "HS256"] {
            let token = rewritingHeader(AlgorithmFixtures.rfc7515ES256Token, #"{"alg":"\#(algorithm)","kid":"es"}"#)
            #expect(throws: JWSVerificationError.unsupportedAlgorithm(algorithm)) {
                try IDTokenSignature.verify(token, keys: keys)
            }
        }
    }

    @Test("EC and OKP keys: curve, alg and point are each checked, and a bad key is skipped with its reason")
    func curveKeys() throws {
        let set = try JWKSFixtures.set([
            AlgorithmKeys.es256(kid: "es-alg", extra: #","alg":"ES256""#),
            AlgorithmKeys.ed25519(kid: "ed-alg", extra: #","alg":"EdDSA""#),
            AlgorithmKeys.es256(kid: "es-384", extra: #","alg":"ES384""#),
            #"{"kty":"EC","crv":"P-384","kid":"p384","x":"AA","y":"AA"}"#,
            #"{"kty":"EC","kid":"no-crv","x":"AA","y":"AA"}"#,
            #"{"kty":"EC","crv":"P-256","kid":"no-y","x":"\#(AlgorithmFixtures.rfc7515ES256X)"}"#,
            #"{"kty":"EC","crv":"P-256","kid":"off","x":"\#(AlgorithmFixtures.rfc7515ES256X)","y":"\#(AlgorithmFixtures.rfc8037X)"}"#,
            #"{"kty":"OKP","crv":"X25519","kid":"x25519","x":"\#(AlgorithmFixtures.rfc8037X)"}"#,
            #"{"kty":"OKP","crv":"Ed448","kid":"ed448","x":"AA"}"#,
            #"{"kty":"OKP","crv":"Ed25519","kid":"short","x":"AAAA"}"#,
            #"{"kty":"OKP","crv":"Ed25519","kid":"not-a-point","x":"AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}"#,
            #"{"kty":"OKP","crv":"Ed25519","kid":"enc","use":"enc","x":"\#(AlgorithmFixtures.rfc8037X)"}"#,
        ])
        #expect(set.keys.map(\.keyID) == ["es-alg", "ed-alg"])
        let reasons = set.skipped.map { [$0.keyID ?? "-": $0.reason] }
        let expected: [[String: JSONWebKeyRejection]] = [
            ["es-384": .unsupportedAlgorithm("ES384")],
            ["p384": .unsupportedCurve("P-384")],
            ["no-crv": .unsupportedCurve(nil)],
            ["no-y": .invalidParameter("y")],
            ["off": .unsuitableCurveKey(.notOnCurve)],
            ["x25519": .unsupportedCurve("X25519")],
            ["ed448": .unsupportedCurve("Ed448")],
            ["short": .unsuitableCurveKey(.ed25519Length(3))],
            ["not-a-point": .unsuitableCurveKey(.ed25519Encoding)],
            ["enc": .unsupportedUse("enc")],
        ]
        #expect(reasons == expected)
        #expect(throws: JWSVerificationError.keyUnsuitable(.unsuitableCurveKey(.notOnCurve))) {
            try IDTokenSignature.verify(
                rewritingHeader(AlgorithmFixtures.rfc7515ES256Token, #"{"alg":"ES256","kid":"off"}"#), keys: set)
        }
    }

    @Test(
        "The platform verifier hands a framework only algorithms that fit the key, with signatures of the right length")
    func frameworkVerifierChooses() throws {
        let framework = RecordingSignatureFramework(answer: true)
        let verifier = FrameworkSignatureVerifier(framework: framework)
        let rsa = try rsaKey(n: AlgorithmFixtures.opensslPS256Modulus)
        let p256 = SignatureVerificationKey.p256(
            try P256PublicKey(
                x: try #require(Base64URL.decode(AlgorithmFixtures.rfc7515ES256X)),
                y: try #require(Base64URL.decode(AlgorithmFixtures.rfc7515ES256Y))))
        let ed = SignatureVerificationKey.ed25519(
            try Ed25519PublicKey(try #require(Base64URL.decode(AlgorithmFixtures.rfc8037X))))
        let sig64 = [UInt8](repeating: 1, count: 64)
        let sig256 = [UInt8](repeating: 1, count: 256)
        #expect(verifier.isValidSignature(sig256, of: [], algorithm: .rs256, key: .rsa(rsa)))
        #expect(verifier.isValidSignature(sig256, of: [], algorithm: .ps256, key: .rsa(rsa)))
        #expect(verifier.isValidSignature(sig64, of: [], algorithm: .es256, key: p256))
        #expect(verifier.isValidSignature(sig64, of: [], algorithm: .edDSA, key: ed))
        // Mismatches never reach the framework.
        #expect(!verifier.isValidSignature(sig64, of: [], algorithm: .es256, key: ed))
        #expect(!verifier.isValidSignature(sig64, of: [], algorithm: .edDSA, key: p256))
        #expect(!verifier.isValidSignature(sig256, of: [], algorithm: .es256, key: .rsa(rsa)))
        #expect(!verifier.isValidSignature(sig64, of: [], algorithm: .rs256, key: .rsa(rsa)))
        #expect(!verifier.isValidSignature(sig256, of: [], algorithm: .es256, key: p256))
        #expect(!verifier.isValidSignature(Array(sig64.dropLast()), of: [], algorithm: .edDSA, key: ed))
        #expect(
            framework.recorded == [
                "rs256 sig=256 key=\(rsa.pkcs1DER.count)", "ps256 sig=256 key=\(rsa.pkcs1DER.count)",
                "es256 sig=64 key=64", "eddsa sig=64 key=32",
            ])
        // The framework's answer is the verifier's.
        let refusing = FrameworkSignatureVerifier(framework: RecordingSignatureFramework(answer: false))
        #expect(!refusing.isValidSignature(sig64, of: [], algorithm: .es256, key: p256))
    }

    @Test("A token verified through the framework verifier reaches it once, for the named key")
    func frameworkThroughTokens() throws {
        let framework = RecordingSignatureFramework(answer: true)
        let verifier = FrameworkSignatureVerifier(framework: framework)
        _ = try IDTokenSignature.verify(
            AlgorithmFixtures.rfc8037Token, keys: try JWKSFixtures.set([AlgorithmKeys.ed25519()]), verifier: verifier)
        #expect(framework.recorded == ["eddsa sig=64 key=32"])
    }
}
