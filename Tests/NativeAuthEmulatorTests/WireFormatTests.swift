import Foundation
import NativeAuthTestSupport
import Testing

@testable import NativeAuthEmulator

@Suite("Wire format helpers", .hangLimit)
struct WireFormatTests {
    @Test func jsonWriterKeepsKeyOrderAndEscapes() {
        var object: JSONObject = ["b": 1, "a": "x"]
        object["c"] = .array([.bool(true), .null, .double(1.5), .double(2)])
        object["b"] = "replaced"
        object["gone"] = nil
        #expect(object.keys == ["b", "a", "c"])
        #expect(JSON.object(object).serialized == #"{"b":"replaced","a":"x","c":[true,null,1.5,2]}"#)
        let tricky = JSON.string("quote\" back\\ nl\n tab\t bell\u{07} é 😀")
        #expect(tricky.serialized == #""quote\" back\\ nl\n tab\t bell\u0007 é 😀""#)
        // JSONSerialization agrees.
        let decoded = try? JSONSerialization.jsonObject(with: JSON.array([tricky]).data) as? [String]
        #expect(decoded == ["quote\" back\\ nl\n tab\t bell\u{07} é 😀"])
    }

    @Test func jsonParserReadsWhatItShould() throws {
        let value = try JSONParser.parse(
            #" {"s":"a\u00e9\ud83d\ude00\n","i":-12,"d":1.5e2,"t":true,"f":false,"n":null,"a":[1,[]],"o":{}} "#)
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object["s"] == .string("aé😀\n"))
        #expect(object["i"] == .integer(-12))
        #expect(object["d"] == .double(150))
        #expect(object["t"] == .bool(true) && object["f"] == .bool(false) && object["n"] == .null)
        #expect(object["a"] == .array([.integer(1), .array([])]))
        #expect(object["o"] == .object(JSONObject()))
    }

    @Test(arguments: [
        "", "{", "{\"a\":1,}", "[1 2]", "01", "1.", "\"unterminated", "{\"a\" 1}", "tru", "\"\\x\"", "1 2",
    ])
    func jsonParserRejects(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
    }

    @Test func formBodyDecoding() throws {
        let form = try FormBody(data: Data("a=1&b=x+y%2Bz&c=&d&a=2&e=%C3%A9&&".utf8))
        #expect(form["a"] == "1")
        #expect(form["b"] == "x y+z")
        #expect(form["c"] == "" && form["d"] == "")
        #expect(form["e"] == "é")
        #expect(form["missing"] == nil)
        #expect(
            try FormBody(data: Data("l=oob++password%20redirect".utf8)).list("l") == ["oob", "password", "redirect"])
        #expect(throws: FormBody.Malformed.self) { try FormBody(data: Data("a=%4".utf8)) }
        #expect(throws: FormBody.Malformed.self) { try FormBody(data: Data("a=%FF".utf8)) }
    }

    @Test func masking() {
        #expect(Encoding.maskedLabel("alice@contoso.com") == "a***e@co**o.com")
        #expect(Encoding.maskedLabel("b@abc.io") == "b***@a**.io")
        #expect(Encoding.maskedLabel("+15551234567") == "+*******4567")
        #expect(Encoding.maskedLabel("123") == "***")
    }

    @Test func datesAndIds() {
        let date = Date(timeIntervalSince1970: 784_111_777)
        #expect(Encoding.httpDate(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(Encoding.errorTimestamp(date) == "1994-11-06 08:49:37Z")
        #expect(Encoding.stableUUID("x") == Encoding.stableUUID("x"))
        #expect(Encoding.stableUUID("x") != Encoding.stableUUID("y"))
        #expect(UUID(uuidString: Encoding.stableUUID("x")) != nil)
        #expect(Encoding.base64URL(Data([0xFB, 0xFF])) == "-_8")
    }
}
