import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuth

@Suite("Support: base64url, JSON, JWT, secrets", .hangLimit)
struct SupportTests {
    // RFC 4648 §10 test vectors, in the base64url alphabet without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func base64urlVectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(Data(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Data(plain.utf8))
    }

    @Test func base64urlAlphabet() {
        // 0xfb 0xff encodes to "+/8" in base64 and "-_8" in base64url.
        #expect(Base64URL.encode(Data([0xfb, 0xff])) == "-_8")
        #expect(Base64URL.decode("-_8") == Data([0xfb, 0xff]))
        #expect(Base64URL.decode("-_8=") == Data([0xfb, 0xff]))
        #expect(Base64URL.decode("+/8") == nil)
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("ab c") == nil)
    }

    @Test func jsonParsing() throws {
        let value = try JSONValue.parse(
            Data(#"{"a":[1,-2.5e3,true,false,null],"b":"\u00e9\ud83d\ude00\n","a":"dup","c":{}}"#.utf8))
        #expect(value["a"]?.arrayValue?.count == 5)
        #expect(value["a"]?.arrayValue?[1].doubleValue == -2500)
        #expect(value["b"]?.stringValue == "é😀\n")
        #expect(value["c"] == .object([:]))
    }

    @Test(arguments: [
        (#""plain ascii""#, "plain ascii"),
        (#""""#, ""),
        (#""\"quoted\" \\ \/ \b\f\n\r\t""#, "\"quoted\" \\ / \u{08}\u{0C}\n\r\t"),
        (#""é before \n and after é""#, "é before \n and after é"),
        (#""\ud83d\ude00 pair, \u00e9 escaped""#, "😀 pair, é escaped"),
        (#""lone high \ud800 then text""#, "lone high \u{FFFD} then text"),
        (#""lone low \udc00""#, "lone low \u{FFFD}"),
        (#""high then not low \ud800\u0041""#, "high then not low \u{FFFD}A"),
        (#""high then high \ud800\ud800""#, "high then high \u{FFFD}\u{FFFD}"),
    ])
    func jsonStringsAndEscapes(json: String, expected: String) throws {
        #expect(try JSONValue.parse(Data(json.utf8)).stringValue == expected)
    }

    @Test func jsonStringsWithInvalidUTF8ReadAsReplacementCharacters() throws {
        // A truncated two-byte sequence, alone and next to an escape.
        let plain = try JSONValue.parse(Data([0x22, 0x61, 0xC3, 0x22]))
        #expect(plain.stringValue == "a\u{FFFD}")
        let escaped = try JSONValue.parse(Data([0x22, 0xC3, 0x5C, 0x6E, 0xE2, 0x22]))
        #expect(escaped.stringValue == "\u{FFFD}\n\u{FFFD}")
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":}", "tru", "\"\\x\"", "01", "1.", "{\"a\" 1}", "[1] 2", "\"\u{01}\"",
        "-", "{\"a\":\"\\u12\"}",
    ])
    func jsonRejectsMalformedInput(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(text.utf8)) }
    }

    @Test func jsonDepthLimitAndHugeNumbers() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(deep.utf8)) }
        let huge = try JSONValue.parse(Data("[1e999, 123456789012345678901234567890]".utf8))
        #expect(huge.arrayValue?[0].intValue == nil)
        #expect(huge.arrayValue?[1].intValue == nil)
        #expect(try JSONValue.parse(Data("{\"n\":\"42\"}".utf8))["n"]?.intValue == 42)
    }

    @Test func headerNamesMatchIgnoringASCIICaseOnly() {
        #expect("Content-Type".equalsIgnoringASCIICase("content-TYPE"))
        #expect("x-ms-request-id".equalsIgnoringASCIICase("X-MS-Request-ID"))
        #expect(!"Content-Type".equalsIgnoringASCIICase("Content-Typ"))
        #expect(!"a[".equalsIgnoringASCIICase("a{"), "only letters fold")
        #expect(!"@".equalsIgnoringASCIICase("`"))
        #expect(!"é".equalsIgnoringASCIICase("É"), "no Unicode folding: header names are ASCII")
        let response = HTTPResponse(statusCode: 200, headers: ["Retry-After": "5"])
        #expect(response.header("retry-after") == "5")
        #expect(response.header("retry-afte") == nil)
    }

    @Test func jwtPayload() {
        let claims = JWT.payload(of: TestTokens.idToken(username: "x@y.z"))
        #expect(claims?["preferred_username"]?.stringValue == "x@y.z")
        #expect(JWT.payload(of: "not-a-jwt") == nil)
        #expect(JWT.payload(of: "a.b") == nil)
        #expect(JWT.payload(of: "a.!!!.c") == nil)
        #expect(JWT.payload(of: TestTokens.idToken(username: "x@y.z") + ".d") == nil, "four segments")
        #expect(JWT.payload(of: "é." + Base64URL.encode(Data("{}".utf8)) + ".c") == [:])
        #expect(JWT.payload(of: "a." + Base64URL.encode(Data("[1]".utf8)) + ".c") == nil)
    }

    @Test func claimsAccessors() {
        let claims = Claims(
            JWT.payload(of: TestTokens.idToken(extra: "\"roles\":[\"admin\",\"user\"],\"scp\":\"a b\",\"aud\":\"app\""))
                ?? [:])
        #expect(claims.roles == ["admin", "user"])
        #expect(claims.scopes == ["a", "b"])
        #expect(claims.audiences == ["app"])
        #expect(claims.expiresAt == Date(timeIntervalSince1970: 1_800_003_600))
        #expect(claims.tenantId == "tenant-1")
        #expect(!claims.description.contains("ada@example.com"))
    }

    @Test func secretsNeverRender() {
        let secret = Secret("hunter2")
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        let call = WireCall.tokenWithPassword(
            continuationToken: Secret("ct"), username: "u", password: secret, scopes: [])
        var callDump = ""
        dump(call, to: &callDump)
        #expect(!callDump.contains("hunter2") && !"\(call)".contains("hunter2"))
    }

    @Test func httpDate() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("yesterday") == nil)
    }
}
