import Foundation
import NativeAuthTestSupport
import Testing

@testable import AuthCrypto
@testable import NativeAuth

/// The system generator as signing uses it, and the test signer built on it: several threads sign
/// at once with no race reported (this suite runs under ThreadSanitizer, where a generator with no
/// storage made concurrent signatures a reported race on one shared placeholder address).
@Suite("Crypto: the secure generator and concurrent signing", .hangLimit)
struct SecureRandomGeneratorTests {
    @Test func theGeneratorHasStorageOfItsOwnAndDrawsDifferentWords() {
        #expect(MemoryLayout<SecureRandomGenerator>.size > 0)
        var generator = SecureRandomGenerator()
        let words = Set((0..<16).map { _ in generator.next() })
        #expect(words.count > 1, "16 draws of 64 bits were all equal")
    }

    @Test func theTestSignersCRTKeyMakesTokensItsModulusVerifies() throws {
        // Signed with the CRT members, verified with n and e alone: both are the same key.
        let token = WebTestSigner.token(claims: #"{"sub":"one"}"#)
        let parts = token.split(separator: ".")
        try #require(parts.count == 3)
        let signature = try #require(Base64URL.decode(String(parts[2])))
        let publicKey = try RSAPublicKey(modulus: WebTestSigner.modulus, exponent: [1, 0, 1])
        try RSASignature.verifySHA256(
            signature: [UInt8](signature), message: Array("\(parts[0]).\(parts[1])".utf8), key: publicKey)
    }

    @Test func fourThreadsSignAtOnceAndEveryTokenIsSigned() async {
        let tokens = await withTaskGroup(of: String.self) { group in
            for index in 0..<4 {
                group.addTask { WebTestSigner.token(claims: #"{"sub":"\#(index)"}"#) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tokens.count == 4)
        #expect(tokens.allSatisfy { !$0.hasSuffix(".invalid") })
    }
}
