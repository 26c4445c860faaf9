import AuthCrypto
import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// A key set cannot make a sign-in expensive: public exponents below 2^256 (FIPS 186-5), at most
/// ``JSONWebKeySet/maximumKeys`` keys read per set and ``JSONWebKeySet/maximumKeysPerID`` tried
/// per `kid`, and a key prepared only when a token names it. Why a key was refused reaches the app.
@Suite("Web sign-in: bounded key-set work, and why a key was refused", .hangLimit)
struct KeySetBoundsTests {
    static let modulus = Base64URL.encode(Data(WebTestSigner.modulus))
    static let token = WebTestSigner.token(claims: #"{"sub":"user-1"}"#)

    /// A JWK with `kid`, the test modulus (or another valid one) and exponent `e` (base64url).
    static func key(kid: String = "test-key", n: String = modulus, e: String = "AQAB") -> String {
        "{\"kty\":\"RSA\",\"kid\":\"\(kid)\",\"n\":\"\(n)\",\"e\":\"\(e)\"}"
    }

    /// A valid 2048-bit odd modulus that is not the signer's: one byte of the middle changed.
    static func otherModulus(_ index: Int) -> String {
        var bytes = WebTestSigner.modulus
        bytes[100] ^= UInt8(truncatingIfNeeded: index + 1)
        return Base64URL.encode(Data(bytes))
    }

    static func set(_ keys: [String]) throws -> JSONWebKeySet {
        try JSONWebKeySet(json: Data(("{\"keys\":[" + keys.joined(separator: ",") + "]}").utf8))
    }

    @Test func exponentsOfTwoToThe256OrMoreAreRefusedWithTheReason() throws {
        let huge = Base64URL.encode(Data([1] + [UInt8](repeating: 0, count: 31) + [1]))  // 2^256 + 1
        let largest = Base64URL.encode(Data([UInt8](repeating: 0xff, count: 32)))  // 2^256 - 1
        let refused = try Self.set([Self.key(e: huge)])
        #expect(refused.keys.isEmpty)
        #expect(refused.skipped.first?.reason == .unsuitableKey(.exponentTooLarge(bits: 257)))
        #expect(throws: JWSVerificationError.keyUnsuitable(.unsuitableKey(.exponentTooLarge(bits: 257)))) {
            try IDTokenSignature.verify(Self.token, keys: refused)
        }
        // The largest exponent allowed is read (and does not verify the test key's signature).
        let accepted = try Self.set([Self.key(e: largest)])
        #expect(accepted.keys.count == 1)
        #expect(throws: JWSVerificationError.badSignature) { try IDTokenSignature.verify(Self.token, keys: accepted) }
    }

    @Test func atMostSixtyFourKeysOfASetAreRead() throws {
        let others = (0..<70).map { Self.key(kid: "k\($0)", n: Self.otherModulus($0)) }
        var last = others
        last[JSONWebKeySet.maximumKeys - 1] = Self.key()
        #expect(try IDTokenSignature.verify(Self.token, keys: Self.set(last)).keyID == "test-key")
        var beyond = others
        beyond[JSONWebKeySet.maximumKeys] = Self.key()
        let set = try Self.set(beyond)
        #expect(set.keys.count == JSONWebKeySet.maximumKeys)
        #expect(throws: JWSVerificationError.keyUnsuitable(.beyondLimit)) {
            try IDTokenSignature.verify(Self.token, keys: set)
        }
    }

    @Test func atMostFourKeysWithOneKeyIDAreTried() throws {
        let wrong = (0..<6).map { Self.key(n: Self.otherModulus($0)) }
        var fourth = wrong
        fourth[JSONWebKeySet.maximumKeysPerID - 1] = Self.key()
        #expect(try IDTokenSignature.verify(Self.token, keys: Self.set(fourth)).keyID == "test-key")
        var fifth = wrong
        fifth[JSONWebKeySet.maximumKeysPerID] = Self.key()
        #expect(throws: JWSVerificationError.badSignature) {
            try IDTokenSignature.verify(Self.token, keys: Self.set(fifth))
        }
    }

    @Test func onlyTheKeysATokenNamesArePrepared() throws {
        let keys = (0..<40).map { Self.key(kid: "k\($0)", n: Self.otherModulus($0)) } + [Self.key()]
        let set = try Self.set(keys)
        #expect(set.keys.allSatisfy { !$0.isPrepared })
        _ = try IDTokenSignature.verify(Self.token, keys: set)
        #expect(set.keys.filter(\.isPrepared).map(\.keyID) == ["test-key"])
    }

    /// A 1024-bit key, a bad signature and an unknown key read differently to an app.
    @Test func theAppSeesWhyTheSignatureCheckFailed() async throws {
        let small = Base64URL.encode(Data(WebTestSigner.modulus.prefix(128)))
        let cases: [(jwks: String, says: String)] = [
            (#"{"keys":["# + Self.key(n: small) + "]}", "1024 bits is below the 2048-bit minimum"),
            (#"{"keys":["# + Self.key(n: Self.otherModulus(0)) + "]}", "signature does not verify"),
            (#"{"keys":["# + Self.key(kid: "other") + "]}", "no signing key for key ID \"test-key\""),
        ]
        for (jwks, says) in cases {
            let provider = ScriptedOpenIDProvider(jwks: [jwks], tokenAnswer: ScriptedOpenIDProvider.signingIn())
            let client = try WebAuthClient(
                issuer: URL(string: ScriptedOpenIDProvider.issuer)!, clientId: "web-app",
                redirectURI: URL(string: "com.example.app:/callback")!, transport: provider,
                credentialStore: InMemoryCredentialStore(),
                configuration: {
                    var configuration = WebAuthConfiguration()
                    configuration.requestTimeout = TestBounds.requestDeadline
                    configuration.clock = TestClock()
                    return configuration
                }())
            do {
                _ = try await client.signIn(WebSignInParameters(), using: InstantAgent(provider: provider))
                Issue.record("expected a refusal")
            } catch {
                #expect(error.failedIDTokenCheck == .signature)
                #expect(error.description.contains(says), "\(error.description)")
            }
        }
    }
}
