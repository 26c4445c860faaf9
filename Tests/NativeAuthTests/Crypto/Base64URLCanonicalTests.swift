import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Crypto: canonical base64url for JWS segments", .hangLimit)
struct Base64URLCanonicalTests {
    private func decode(_ text: String) -> [UInt8]? { Base64URL.decodeCanonical(Array(text.utf8)) }

    @Test("RFC 4648 vectors, in their unpadded url-safe spelling")
    func vectors() {
        #expect(decode("") == [])
        #expect(decode("Zg") == Array("f".utf8))
        #expect(decode("Zm8") == Array("fo".utf8))
        #expect(decode("Zm9v") == Array("foo".utf8))
        #expect(decode("Zm9vYg") == Array("foob".utf8))
        #expect(decode("Zm9vYmE") == Array("fooba".utf8))
        #expect(decode("Zm9vYmFy") == Array("foobar".utf8))
        #expect(decode("-_8") == [0xfb, 0xff])
    }

    @Test("Padding, the standard alphabet, stray characters, impossible lengths and spare bits are refused")
    func refusals() {
        for text in ["Zg==", "Zm8=", "+/8", "Zm9v\n", " Zm9v", "Z", "Zm9vY", "Zh", "Zm9", "Zm-", "Zg.", "é"] {
            #expect(decode(text) == nil, "\(text)")
        }
    }

    @Test("Agrees with the lenient decoder on every encoding of random bytes, and refuses every other spelling")
    func agreesWithEncoder() {
        var random = PropertyRandom(seed: 0xB64)
        for _ in 0..<500 {
            let bytes = (0..<random.below(70)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let text = Base64URL.encode(Data(bytes))
            #expect(decode(text) == bytes)
            // Changing the last character either changes the bytes or is refused: never the same bytes.
            if let last = text.last, let replacement = "AgQw-_".first(where: { $0 != last }) {
                let altered = String(text.dropLast()) + String(replacement)
                #expect(decode(altered) != bytes)
            }
        }
    }
}
