import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

/// The byte-level base64url, percent-encoding and HTTP-date code agrees with Foundation's.
@Suite("Support: byte-level encoders agree with Foundation", .hangLimit)
struct ByteCodingTests {
    @Test func base64urlMatchesFoundation() {
        var random = SplitMix64(seed: 1)
        for length in 0..<300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let foundation = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(Data(bytes)) == foundation, "\(length) bytes")
            #expect(Base64URL.decode(foundation) == Data(bytes), "\(length) bytes")
            let padding = String(repeating: "=", count: (4 - foundation.count % 4) % 4)
            #expect(Base64URL.decode(foundation + padding) == Data(bytes), "\(length) bytes, padded")
        }
    }

    @Test func decimalIntegersMatchTheStandardLibrary() {
        let edges = [
            "", "+", "-", "0", "-0", "+0", "007", "42", "-42", "+42", " 1", "1 ", "1_000", "1.0", "0x10", "١٢",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "+9223372036854775807", "99999999999999999999", "--1", "+-1", "1-",
        ]
        for text in edges {
            #expect(Int(decimal: text) == Int(text), "\(text)")
        }
        var random = SplitMix64(seed: 3)
        let pool: [Character] = ["0", "1", "5", "9", "-", "+", " ", "a", "٣"]
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<22, using: &random)
            let text = String((0..<length).map { _ in pool.randomElement(using: &random)! })
            #expect(Int(decimal: text) == Int(text), "\(text)")
        }
    }

    @Test func percentEncodingMatchesFoundation() {
        var random = SplitMix64(seed: 2)
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let pool: [Unicode.Scalar] = Array("aZ09-._~ +&=%/?#é€😀\n\"'<>".unicodeScalars)
        for _ in 0..<500 {
            let length = Int.random(in: 0..<24, using: &random)
            var text = ""
            for _ in 0..<length { text.unicodeScalars.append(pool[Int.random(in: 0..<pool.count, using: &random)]) }
            #expect(FormBody.escape(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved), "\(text)")
        }
        var form = FormBody()
        form.add("a b", "c&d=é")
        form.add("empty", "")
        #expect(String(decoding: form.encoded, as: UTF8.self) == "a%20b=c%26d%3D%C3%A9&empty=")
    }

    @Test func fixdateMatchesAFormatter() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var random = SplitMix64(seed: 3)
        // 1900-01-01 to 2100-01-01, and the edges of leap days.
        var instants = (0..<400).map { _ in Int.random(in: -2_208_988_800..<4_102_444_800, using: &random) }
        instants += [951_782_400, 951_868_799, 1_709_164_800, 0, -1, 4_107_542_399]
        for seconds in instants {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = formatter.string(from: date)
            #expect(HTTPDate.parseFixdate(Array(text.utf8)) == date, "\(text)")
            #expect(HTTPDate.parse(text) == date, "\(text)")
        }
    }

    @Test(arguments: [
        "Mon, 06 Nov 1994 08:49:37 GMT",  // a Sunday
        "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 06 Nov 1994 08:60:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun,  6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun, 0x Nov 1994 08:49:37 GMT",
    ])
    func fixdateRefusesWhatItDoesNotRead(text: String) {
        #expect(HTTPDate.parseFixdate(Array(text.utf8)) == nil)
    }
}
